"""What every view is made of: a titled VirtualTable fed by a row Source, with a k9s-style `/` filter
line. Each view keeps its table in step with the engine through the ChangeSet only."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Input

from ...engine.store import ChangeSet
from .details import DETAIL_PERIOD, DetailPane
from .textbar import TextBar
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ...engine import Simulation
    from ..app import PlaygroundApp

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """"a-2" before "a-10"."""
    return tuple(int(part) if i % 2 else part for i, part in enumerate(_DIGITS.split(name)))


class Source:
    """Base row source: reads the app's current simulation, only while the engine is idle."""

    def __init__(self, view: "TableView") -> None:
        self.view = view

    @property
    def sim(self) -> "Simulation":
        return self.view.playground.sim

    def readable(self) -> bool:
        return self.view.playground.engine_idle


# ---------------------------------------------------------------- view base


class FilterInput(Input):
    BINDINGS = [Binding("escape", "clear", "Clear filter", show=False, id="playground.filter.clear")]

    def action_clear(self) -> None:
        self.value = ""
        self.post_message(self.Submitted(self, ""))


SORT_GROUP = Binding.Group("Sort", compact=True)
RESORT_LIMIT = 20_000  # rows re-sorted each frame when sorted by a time-driven column (ages)
# While the clock runs, what changes with simulated time alone (ages, countdowns, an order by age) is
# redrawn at most this often (wall seconds), as the detail pane is; rows the engine changed are redrawn
# every frame, and a pause or a step redraws at once. At ×1000 every age changes on every frame:
# reading and repainting each visible row 12 times a wall second was a third of the UI's work while
# watching a zone outage at 150,000 pods, for figures nobody reads at that pace.
TIME_PERIOD = DETAIL_PERIOD


def sort_bindings(sorts: Iterable[tuple[str, str, str]]) -> list[Binding]:
    """k9s' shift+letter sort keys: (key, column key, column label) -> a binding per column. The same
    key again reverses the order."""
    return [
        Binding(key, f"sort('{column}')", f"Sort {label}", show=False, id=f"playground.sort.{column}",
                group=SORT_GROUP, tooltip=f"Sort by {label}; again to reverse (k9s: shift+{key.lower()})")
        for key, column, label in sorts
    ]


class TableView(Vertical):
    """A titled table with a k9s-style `/` filter line; subclasses say what the rows are."""

    DEFAULT_CSS = """
    TableView { height: 1fr; }
    TableView > .view-title { height: 1; background: $boost; padding: 0 1; }
    TableView > FilterInput { height: 1; border: none; padding: 0 1; display: none; background: $panel; }
    TableView > FilterInput:focus { border: none; }
    TableView.-filtering > FilterInput { display: block; }
    """

    TITLE = ""
    FILTER_HINT = "filter"
    FOLLOW_TAIL = False
    DETAIL_ID: str | None = None  # views with a detail pane under the table name it here

    def __init__(self, playground: "PlaygroundApp", *, id: str) -> None:
        super().__init__(id=id)
        self.playground = playground
        self.title_bar = TextBar("", classes="view-title")
        self.filter_input = FilterInput(placeholder=f"/{self.FILTER_HINT} (Enter keeps it, Esc clears; !text inverts)")
        self.table = VirtualTable(self.columns(), self.make_source(), follow_tail=self.FOLLOW_TAIL,
                                  id=f"{id}-table")
        self._filter_timer: Timer | None = None
        self._timed_at = float("-inf")  # the runner's clock when time-driven cells were last redrawn

    def columns(self) -> list[Column]:
        raise NotImplementedError

    def make_source(self) -> Source:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        yield self.title_bar
        yield self.filter_input
        yield self.table
        if self.DETAIL_ID:
            self.detail = DetailPane(id=self.DETAIL_ID)
            yield self.detail

    @property
    def sim(self) -> "Simulation":
        return self.playground.sim

    # ---- data

    def row_keys(self) -> Iterable[str]:
        """Every row of a fresh table."""
        raise NotImplementedError

    def load(self) -> None:
        """A (new) simulation: fill the table from scratch."""
        self.table.replace_all(self.row_keys())
        if self.table.row_count:
            self.table.move_cursor(0)
        if self.DETAIL_ID:
            self.detail.forget()

    def apply(self, changes: ChangeSet) -> None:
        """Rows that changed since the last frame."""
        raise NotImplementedError

    def live_count(self) -> int:
        """How many rows the view has (the tabs show it)."""
        return self.table.total_count

    def frame(self, time_moved: bool) -> None:
        """Once per frame while this view is shown: redraw what depends on time."""
        table = self.table
        due = time_moved and self._time_due()
        table.hold_time = time_moved and not due
        if due:
            if table.sort_volatile and table.total_count <= RESORT_LIMIT:
                table.resort()
            if table.volatile:
                table.invalidate()
        self.update_title()

    def _time_due(self) -> bool:
        runner = getattr(self.playground, "runner", None)
        if runner is None:
            return True
        if not runner.redraw_due(self._timed_at, TIME_PERIOD):
            return False
        self._timed_at = runner.clock()
        return True

    def action_sort(self, column: str) -> None:
        self.playground.when_engine_idle(lambda: self._sort(column))

    def _sort(self, column: str) -> None:
        self.table.toggle_sort(column)
        self.update_title()

    def update_title(self) -> None:
        table = self.table
        text = Text(end="")
        text.append(self.TITLE, "bold")
        if table.filter:
            text.append(f"  /{table.filter}", "bold yellow")
            text.append(f"  [{table.row_count}/{table.total_count}]", "dim")
        else:
            text.append(f"  [{table.total_count}]", "dim")
        if table.sort is not None:
            column, descending = table.sort
            label = next((c.label for c in table.columns if c.key == column), column)
            text.append(f"  sorted by {label} {'↓' if descending else '↑'}", "bold cyan")
        extra = self.title_extra()
        if extra:
            text.append("   ")
            text.append_text(extra)
        self.title_bar.show(text)  # one line (height: 1), whatever it says

    def title_extra(self) -> Text | None:
        return None

    # ---- filter

    def open_filter(self) -> None:
        self.add_class("-filtering")
        self.filter_input.value = self.table.filter
        self.filter_input.focus()

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        # Debounced: filtering 150,000 pods is a one-off O(rows) pass, not one per key press.
        self._filter_timer = self.set_timer(0.15, lambda: self.apply_filter(event.value))

    @on(Input.Submitted)
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self.apply_filter(event.value)
        if not event.value:
            self.remove_class("-filtering")
        self.table.focus()

    def apply_filter(self, text: str) -> None:
        self.playground.when_engine_idle(lambda: self._filter(text))

    def _filter(self, text: str) -> None:
        self.table.set_filter(text)
        self.update_title()

    def clear_filter(self) -> bool:
        if not self.table.filter and not self.has_class("-filtering"):
            return False
        self.filter_input.value = ""
        self.apply_filter("")
        self.remove_class("-filtering")
        self.table.focus()
        return True
