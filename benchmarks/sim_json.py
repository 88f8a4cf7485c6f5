"""`playground sim --json` at 5,000 nodes and 150,000 pods: what writing its one JSON document costs
once the run is over (load.py's scenario, opened and run for 30 simulated seconds).

Prints CPU seconds (time.process_time; min and median of the runs) of making the document and its
text as `sim --json` of the revision does (written to /dev/null): its pieces (report.json_pieces
over report.snapshot_lazily: each long list made as it is written), or on an older revision the
whole document (report.snapshot) then its text (report.json_text, or the json module with
indent=1); the text's size; and the process's RSS once the cluster is open and at its peak;
asserts nothing.

    python benchmarks/sim_json.py [--nodes 5000] [--pods 150000] [--runs 3] [--src=DIR]

--src runs another checkout of the code (the base revision, for before / after figures).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import time

from checkout import use_checkout  # noqa: E402

use_checkout()

from playground.engine import Simulation  # noqa: E402
from playground.engine.report import snapshot  # noqa: E402

from clusters import open_as_the_cli_does  # noqa: E402
from load import read_scenario, rss_mib, size_arguments  # noqa: E402


def sim_json_text(sim):
    """The pieces of the document's text, as `sim --json` of this revision makes them."""
    try:
        from playground.engine.report import json_pieces, snapshot_lazily
    except ImportError:  # a revision before them
        try:
            from playground.engine.report import json_text
        except ImportError:  # and before it
            return [json.dumps(snapshot(sim), indent=1).encode()]
        return [json_text(snapshot(sim))]
    return json_pieces(snapshot_lazily(sim))


def main() -> None:
    args = size_arguments().parse_args()
    sim = Simulation(read_scenario(args.nodes, args.pods))
    open_as_the_cli_does(sim)
    sim.run_until_ms(30_000)
    opened = rss_mib()
    seconds = []
    with open(os.devnull, "wb") as sink:
        for _ in range(args.runs):
            start = time.process_time()
            size = 0
            for piece in sim_json_text(sim):
                size += len(piece)
                sink.write(piece)
            seconds.append(time.process_time() - start)
    print(f"sim --json at {args.nodes} nodes / {len(sim.store.pods)} pods, {sim.store.recorder.total} events, "
          f"CPU s over {args.runs} runs:")
    print(f"  the document's text  min {min(seconds):6.2f}   median {statistics.median(seconds):6.2f}")
    print(f"  {size / 2**20:.0f} MiB of JSON; RSS once open {opened:.0f} MiB, peak RSS of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
