"""Render SVG screenshots of the main views from real scenarios at chosen times.

    python -m playground.tui.screenshots [--out screenshots] [--only NAME ...] [--size 160x48]

Each shot loads a scenario (from scenarios/, sometimes with timeline entries added here), runs the app
headless, steps the engine tick by tick to the chosen time, selects a view and a row, and saves
screenshots/<name>.svg. Nothing reads the wall clock: the header shows the fixed scenario epoch plus
simulated time, so the files only change when the UI or the engine does.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..scenario import Scenario, load_scenario
from ..units import parse_duration

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIOS = ROOT / "scenarios"


def with_timeline(path: Path, *entries: dict, extra: dict | None = None) -> Callable[[], Scenario]:
    """A scenario file plus timeline entries (and other top-level lists) added in memory."""

    def build() -> Scenario:
        data = load_scenario(path).to_toml_dict()
        data["timeline"] = list(data.get("timeline", [])) + list(entries)
        for key, items in (extra or {}).items():
            data[key] = list(data.get(key, [])) + list(items)
        return Scenario.model_validate(data)

    return build


@dataclass
class Shot:
    name: str
    title: str
    scenario: Callable[[], Scenario]
    path: Path
    at: str
    view: str = "nodes"
    select: str | None = None
    keys: list[str] = field(default_factory=list)


def shots() -> list[Shot]:
    default = SCENARIOS / "default.toml"
    zone_b_down = with_timeline(default, *({"at": "30s", "do": "power-off", "node": f"b-{i}"} for i in (1, 2, 3)))
    shutdown = with_timeline(default, {"at": "20s", "do": "shutdown", "node": "a-1"})
    # The default scenario's budget (web, minAvailable 11 of 12) lets one web pod go, then holds the
    # second until the first one's replacement is ready: blocked from 20 s to the 25 s retry.
    drain_pdb = with_timeline(default, {"at": "20s", "do": "drain", "node": "b-1", "ignoreDaemonsets": True})
    return [
        Shot("zone-outage-nodes", "Zone b powered off: Ready→Unknown, tainting at node-eviction-rate, countdowns",
             zone_b_down, default, "1m26s", "nodes", "b-3"),
        Shot("zone-outage-evictions", "Zone b, 5 minutes later: pods deleted by the taint-eviction controller",
             zone_b_down, default, "6m40s", "nodes", "b-1"),
        Shot("zone-outage-leases", "Leases during the zone outage: renewals stopped at 30s",
             zone_b_down, default, "1m26s", "leases", "b-1"),
        Shot("zone-outage-events", "The event log during the zone outage", zone_b_down, default, "6m40s", "events"),
        Shot("pending-explained", "Pending pods and the scheduler's reasons, in its own words",
             lambda: load_scenario(SCENARIOS / "pending-explained.toml"), SCENARIOS / "pending-explained.toml",
             "1m", "pending", "default/huge"),
        Shot("graceful-shutdown", "A graceful node shutdown in progress: pods stopped by priority group",
             shutdown, default, "27s", "nodes", "a-1"),
        Shot("drain-blocked-nodes", "kubectl drain blocked by a PodDisruptionBudget", drain_pdb, default, "23s",
             "nodes", "b-1"),
        Shot("drain-blocked-pdbs", "The PodDisruptionBudget that blocks the drain", drain_pdb, default, "23s",
             "pdbs", "default/web"),
        Shot("pods", "All pods, with what happens next to each", zone_b_down, default, "6m40s", "pods"),
        Shot("rollout-stuck", "A RollingUpdate whose surge pod cannot be scheduled: ProgressDeadlineExceeded",
             lambda: load_scenario(SCENARIOS / "rollout-stuck.toml"), SCENARIOS / "rollout-stuck.toml", "12m5s",
             "deployments", "web"),
        Shot("zone-outage-sorted", "Nodes sorted by LEASE AGE, stalest first (shift+L twice, as k9s sorts)",
             zone_b_down, default, "1m26s", "nodes", "b-1", keys=["L", "L"]),
        Shot("describe-node", "kubectl describe node b-1 during the zone outage (v)",
             zone_b_down, default, "1m26s", "nodes", "b-1", keys=["v"]),
        Shot("yaml-pod", "The selected pod as kubectl get -o yaml prints it (y)",
             zone_b_down, default, "1m26s", "pods", None, keys=["y"]),
        Shot("time-travel", "Rewound from 7m to 4m (<, three times) with the plots shown (ctrl+t): the instant "
             "marked, the recorded future dimmed", zone_b_down, default, "7m", "nodes", "b-1",
             keys=["ctrl+t", "less_than_sign", "less_than_sign", "less_than_sign"]),
        Shot("help", "? lists every key and its binding id", lambda: load_scenario(default), default, "5s", "nodes",
             keys=["question_mark"]),
    ]


async def render(shot: Shot, out: Path, size: tuple[int, int]) -> Path:
    from .app import PlaygroundApp

    app = PlaygroundApp(shot.scenario(), path=shot.path, paused=True, keymap_file=None, auto_frames=False,
                        view=shot.view)
    async with app.run_test(size=size) as pilot:
        await app.advance_to(parse_duration(shot.at))
        app.action_view(shot.view)
        if shot.select is not None:
            app.views[shot.view].table.select_key(shot.select)
        await pilot.pause()
        app.views[shot.view].frame(True)
        for key in shot.keys:
            await pilot.press(key)
            await pilot.pause()
            await app.workers.wait_for_complete()  # a time-travel key works in a worker
        await pilot.pause()
        await pilot.pause(0.05)
        app.clear_notifications()
        await pilot.pause()
        target = out / f"{shot.name}.svg"
        app.save_screenshot(filename=target.name, path=str(out))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m playground.tui.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    parser.add_argument("--only", nargs="*", help="names of the shots to render")
    parser.add_argument("--size", default="160x48")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for shot in shots():
        if args.only and shot.name not in args.only:
            continue
        path = asyncio.run(render(shot, out, (width, height)))
        print(f"{path}  {shot.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
