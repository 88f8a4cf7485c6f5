"""`playground sim --json` at 5,000 nodes and 150,000 pods: what writing its one JSON document costs
once the run is over (load.py's scenario, opened and run for 30 simulated seconds).

Prints CPU seconds (time.process_time; min and median of the runs) for building the document
(report.snapshot: nodes, pods, events as dicts) and for writing its text (report.json_text, or on a
revision without it the json module with indent=1, which `sim --json` used then), the text's size,
and the process's peak RSS; asserts nothing.

    python benchmarks/sim_json.py [--nodes 5000] [--pods 150000] [--runs 3] [--src=DIR]

--src runs another checkout of the code (the base revision, for before / after figures).
"""

from __future__ import annotations

import json
import resource
import statistics
import time

from checkout import use_checkout  # noqa: E402

use_checkout()

from playground.engine import Simulation  # noqa: E402
from playground.engine.report import snapshot  # noqa: E402

from clusters import open_as_the_cli_does  # noqa: E402
from load import read_scenario, size_arguments  # noqa: E402

try:
    from playground.engine.report import json_text  # noqa: E402
except ImportError:  # a revision before it
    def json_text(document) -> bytes:
        return json.dumps(document, indent=1).encode()


def main() -> None:
    args = size_arguments().parse_args()
    sim = Simulation(read_scenario(args.nodes, args.pods))
    open_as_the_cli_does(sim)
    sim.run_until_ms(30_000)
    built, written = [], []
    for _ in range(args.runs):
        start = time.process_time()
        document = snapshot(sim)
        built.append(time.process_time() - start)
        start = time.process_time()
        size = len(json_text(document))
        written.append(time.process_time() - start)
        del document
    print(f"sim --json at {args.nodes} nodes / {len(sim.store.pods)} pods, {sim.store.recorder.total} events, "
          f"CPU s over {args.runs} runs:")
    for title, values in (("build the document", built), ("write its text", written)):
        print(f"  {title:20s} min {min(values):6.2f}   median {statistics.median(values):6.2f}")
    print(f"  {size / 2**20:.0f} MiB of JSON; peak RSS of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
