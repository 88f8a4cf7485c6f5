"""The progress of a long engine step, above the views: placing the pods of a large scenario at t=0.

The engine reports placement through the scheduler's `progress(done, total)` callback, the same one
headless `sim` and `check` print their stderr line from. It is called in the engine thread, so the
callback only stores the figures (`OpeningProgress.report`); the UI reads them on its own timer
(`OpeningProgress.refresh_from`) and never touches the engine meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from ...cli import PROGRESS_MIN_PODS

if TYPE_CHECKING:
    from ..app import PlaygroundApp

# Before the scheduler reports, a step of instant 0 that has run this long shows an indeterminate bar
# (the controllers are creating the pods that the scheduler will place).
OPENING_NOTICE_SECONDS = 0.5
CREATING = "Opening the scenario: creating its pods…"
PLACING = "Placing the pods created at t=0: {done:,} of {total:,}"


class OpeningProgress(Horizontal):
    """A one-line bar, hidden unless the engine is placing many pods (or opening a big scenario)."""

    DEFAULT_CSS = """
    OpeningProgress {
        height: 1;
        display: none;
        background: $panel;
        padding: 0 1;
        & > Label { width: auto; margin-right: 2; }
        & > ProgressBar { width: 1fr; }
        & Bar { width: 1fr; }
    }
    """

    def __init__(self, min_pods: int = PROGRESS_MIN_PODS, **kwargs) -> None:
        super().__init__(**kwargs)
        self.min_pods = min_pods
        self.placing: tuple[int, int] | None = None  # (done, total), written by the engine thread
        self.shown: tuple[int, int | None] | None = None  # what the bar shows: (done, total or None)

    def compose(self) -> ComposeResult:
        yield Label("", id="opening-label")
        yield ProgressBar(total=None, show_eta=False, id="opening-bar")

    def report(self, done: int, total: int) -> None:
        """The scheduler's progress callback (engine thread): remember the figures, nothing else."""
        if total >= self.min_pods:
            self.placing = (done, total)

    def refresh_from(self, app: "PlaygroundApp", busy_for: float) -> None:
        """Show the figures of the step running now (`busy_for` seconds so far), or hide the bar."""
        placing = self.placing
        if not app.runner.busy:
            self.placing = None  # no step runs, so the engine thread writes nothing meanwhile
            state = None
        elif placing is not None:
            state = placing
        elif busy_for >= OPENING_NOTICE_SECONDS and app.sim.clock.now == 0:
            state = (0, None)
        else:
            state = None
        self.show(state)

    def show(self, state: tuple[int, int | None] | None) -> None:
        if state == self.shown:
            return
        self.shown = state
        self.display = state is not None
        if state is None:
            return
        done, total = state
        bar = self.query_one(ProgressBar)
        if total is None:
            self._label(CREATING, CREATING)
            bar.update(total=None)
        else:
            self._label(PLACING.format(done=done, total=total), PLACING.format(done=total, total=total))
            bar.update(total=total, progress=done)

    def _label(self, text: str, widest: str) -> None:
        """Show `text` in a label as wide as `widest`: a count that grows keeps the label's size, so
        the screen is not laid out again ten times a second while a big scenario opens (each layout
        painted the header, the tabs and the footer too, taking time from the engine's open)."""
        label = self.query_one(Label)
        width = len(widest)
        resized = label.styles.width is None or label.styles.width.cells != width
        if resized:
            label.styles.width = width
        label.update(text, layout=resized)
