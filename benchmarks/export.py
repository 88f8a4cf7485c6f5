"""`playground export` of large scenarios: the manifests (Nodes, workloads, bare pods) and timeline.sh
written into a folder, for kwok or kind.

Two scenarios of 5,000 nodes and 150,000 pods: load.py's (nodePools and Deployments: 5,000 Node
manifests and 30 Deployments) and import_dump.py's production copy (the dump imported as
`playground import` makes it: 5,000 Nodes, its workloads and the pods they own). Prints CPU seconds
(time.process_time; min and median of the runs) of `manifests.export` and the size of what it wrote;
asserts nothing.

    python benchmarks/export.py [--nodes 5000] [--pods 150000] [--runs 3] [--src=DIR]

--src runs another checkout of the code (the base revision, for before / after figures).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from checkout import use_checkout  # noqa: E402

use_checkout()

from playground.manifests import scenario_from_data  # noqa: E402
from playground.manifests.exporter import export  # noqa: E402
from playground.manifests.importer import import_dump  # noqa: E402
from playground.manifests.reader import read_files  # noqa: E402

import import_dump as dump_benchmark  # noqa: E402
from load import read_scenario, size_arguments  # noqa: E402


def production_copy(nodes: int, pods: int, folder: Path):
    path = folder / "dump.json"
    path.write_text(json.dumps(dump_benchmark.dump(nodes, pods)))
    data, _report = import_dump(read_files([str(path)]), "production-copy")
    return scenario_from_data(data)


def export_once(scenario, folder: Path) -> tuple[float, int]:
    start = time.process_time()
    written = export(scenario, folder)
    return time.process_time() - start, sum(path.stat().st_size for path in written)


def main() -> None:
    args = size_arguments().parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scenarios = {"nodePools and Deployments": read_scenario(args.nodes, args.pods),
                     "the production copy": production_copy(args.nodes, args.pods, Path(tmp))}
        print(f"export {args.nodes} nodes / {args.pods} pods, CPU s over {args.runs} runs:")
        for title, scenario in scenarios.items():
            runs = [export_once(scenario, Path(tmp) / f"{title}-{i}") for i in range(args.runs)]
            seconds = [cpu for cpu, _ in runs]
            print(f"  {title:26s} min {min(seconds):6.2f}   median {statistics.median(seconds):6.2f}"
                  f"   ({runs[0][1] / 2**20:.1f} MiB written)")


if __name__ == "__main__":
    main()
