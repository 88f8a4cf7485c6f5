"""The plot strip: a sparkline per figure over the recorded history, the current instant marked.

Like Textual's Sparkline, one block character per column (▁…█, scaled to the figure's peak over the
strip), but drawn as one Text so that the column of the current instant can be marked (reverse video)
and the recorded future after it dimmed: Sparkline has neither. Each column shows the figure at the
end of its slice of time (the figures are step functions sampled at the instants they changed), read
by bisection, so a redraw costs O(columns x figures), whatever the history's length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from ...engine.history import format_bytes
from ...engine.metrics import metric_title
from ...units import format_duration

if TYPE_CHECKING:
    from ...engine import Simulation

BLOCKS = " ▁▂▃▄▅▆▇█"
LABEL = 22
VALUE = 8
COLOURS = {"pending": "yellow", "running": "green", "evictions": "red"}


def sparkline(values: list[float]) -> str:
    """A blank for zero, at least ▁ for any positive value, █ for the peak."""
    peak = max(values, default=0)
    top = len(BLOCKS) - 1
    return "".join(BLOCKS[max(1, round(v / peak * top))] if v > 0 else BLOCKS[0] for v in values)


def label(metric: str) -> str:
    """The row's title in LABEL - 1 columns; a long zone name keeps its end, where zones differ."""
    if metric.startswith("ready:"):
        zone = metric.removeprefix("ready:") or "(no zone)"
        room = LABEL - 1 - len("Ready ")
        return "Ready " + (zone if len(zone) <= room else "…" + zone[-(room - 1):])
    return metric_title(metric)[:LABEL - 1]


def strip_text(sim: "Simulation", width: int) -> Text:
    """The whole strip for a terminal `width` columns wide."""
    history = sim.history
    text = Text(no_wrap=True, end="")
    if history is None:
        text.append("Time travel is off.", "dim")
        return text
    columns = max(8, width - LABEL - VALUE - 2)
    now = sim.clock.now
    end = max(history.head, now, 1)
    # column i covers ((i) * end / columns, (i + 1) * end / columns]; the instant `now` falls in `mark`
    times = [(i + 1) * end // columns for i in range(columns)]
    mark = min(columns - 1, max(0, -(-now * columns // end) - 1))
    memory = history.memory()
    head = f"  recorded to {format_duration(history.head)}" if history.head > now else ""
    text.append(f"{'Plots':<{LABEL}}", "bold")
    text.append(f"0s … {format_duration(now)}{head}   history: {memory.checkpoints} checkpoints, "
                f"{format_bytes(memory.total)} of {format_bytes(memory.budget)}", "dim")
    current = history.series.at(now)
    from ...engine.metrics import metric_value

    for metric in history.series.metrics():
        values = history.series.values(metric, times)
        line = sparkline(values)
        colour = COLOURS.get(metric, "cyan")
        text.append("\n")
        text.append(f"{label(metric):<{LABEL}}")
        text.append(line[:mark], colour)
        text.append(line[mark:mark + 1], f"reverse bold {colour}")
        text.append(line[mark + 1:], "dim")
        value = metric_value(current, metric) if current is not None else 0
        text.append(f" {value:>{VALUE}}", "bold")
    return text


class PlotStrip(Static):
    """Shown and hidden with ctrl+t; redrawn by the app's frames while shown."""

    DEFAULT_CSS = """
    PlotStrip { height: auto; max-height: 12; padding: 0 1; background: $panel; display: none; }
    PlotStrip.-shown { display: block; }
    """

    def refresh_from(self, sim: "Simulation") -> None:
        if self.has_class("-shown"):
            self.update(strip_text(sim, self.size.width - 2 if self.size.width else 120))
