"""The header: scenario, simulated clock (elapsed and a wall-style timestamp from a fixed epoch),
speed or PAUSED, every zone's state, and a banner while all zones are fully disrupted; and the view
tabs under it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ...units import format_duration
from .. import format as fmt
from .textbar import TextBar

if TYPE_CHECKING:
    from ..app import PlaygroundApp


def header_text(app: "PlaygroundApp") -> Text:
    sim = app.sim
    runner = app.runner
    now = sim.clock.now
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(" Cluster Playground ", "bold reverse")
    text.append("  ")
    text.append(sim.scenario.scenario.name, "bold")
    if app.scenario_path is not None:
        text.append(f" ({app.scenario_path.name})", "dim")
    text.append(f"  k8s v{sim.release.version}", "bold cyan")
    text.append("   ")
    if runner.paused:
        text.append(" PAUSED ", "bold black on yellow")
    else:
        text.append(f" ▶ ×{runner.speed} ", "bold black on green")
        actual = runner.actual_speed()
        if actual is not None and actual < 0.85 * runner.speed:
            text.append(f" actual ×{actual:.0f}", "bold red")
    if runner.busy:
        text.append("  engine busy…", "bold magenta")
    text.append("   T+", "dim")
    text.append(format_duration(now // 1000 * 1000) if sim.tick >= 1000 else format_duration(now), "bold")
    history = sim.history
    if history is not None and history.head > now:  # gone back in time: the recorded future lies ahead
        text.append(f" ◀ recorded to {format_duration(history.head)}", "bold magenta")
    text.append("   ")
    text.append(fmt.wall_time(now, app.epoch), "cyan")
    text.append(f"   tick {format_duration(sim.tick)}", "dim")
    return text


def zones_text(app: "PlaygroundApp") -> Text:
    nlc = app.sim.nodelifecycle
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(" Zones ", "bold")
    states = sorted(list(nlc.zone_states.items()))  # one C-level copy: safe while a tick runs
    if not states:
        text.append(" none yet", "dim")
    for zone, state in states:
        counts = nlc.zone_counts.get(zone)
        text.append("  ")
        text.append(fmt.zone_label(zone), "" if zone else "dim")
        text.append(" ")
        text.append(state, fmt.ZONE_STYLE.get(state, ""))
        if counts:
            text.append(f" {counts[1]}/{counts[0]} ready", "dim")
    return text


BANNER = (" ALL ZONES FULLY DISRUPTED — the node lifecycle controller assumes a control-plane problem: it "
          "stops tainting nodes NoExecute and marks them Ready=Unknown only, so no pods are evicted. ")


class ClusterHeader(TextBar):
    DEFAULT_CSS = """
    ClusterHeader { height: auto; background: $panel; }
    """

    def refresh_from(self, app: "PlaygroundApp") -> None:
        lines = [header_text(app), zones_text(app)]
        if app.sim.nodelifecycle.all_zones_down:
            lines.append(Text(BANNER, style="bold white on red", no_wrap=True, overflow="ellipsis", end=""))
        text = Text("\n", no_wrap=True, overflow="ellipsis", end="").join(lines)  # one screen line each
        self.show(text)


class ViewTabs(TextBar):
    DEFAULT_CSS = """
    ViewTabs { height: 1; background: $boost; }
    """

    def refresh_from(self, app: "PlaygroundApp") -> None:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        for index, view in enumerate(app.view_names, 1):
            label = f" {index} {app.view_title(view)}"
            count = app.view_count(view)
            if count is not None:
                label += f" {count}"
            label += " "
            if view == app.current_view:
                text.append(label, "bold reverse")
            else:
                text.append(label, "")
            text.append(" ")
        hint = "   : view   / filter   ? help   ctrl+p palette"
        if text.cell_len + len(hint) <= self.size.width or not self.size.width:
            text.append(hint, "dim")  # only whole: a narrow screen keeps every tab instead
        self.show(text)  # one line, whatever it says
