"""Time dialogs: go to any instant of this session, typed as a duration (3m20s, 200s, 90); and the
kept branches (futures left behind by a fork), to switch to one or save it."""

from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from ...scenario.validation import MAX_TIME_MS
from ...units import UnitError, format_duration, parse_duration
from .dialog import Dialog


def parse_instant(text: str) -> int:
    """"3m20s", "200s" or plain seconds "200" -> ms; raises ValueError with a message for the user."""
    text = text.strip()
    if not text:
        raise ValueError("type a time such as 3m20s, 200s or 200")
    try:
        ms = int(round(float(text) * 1000)) if text.replace(".", "", 1).isdigit() else parse_duration(text)
    except UnitError as exc:
        raise ValueError(f"{exc}; e.g. 3m20s, 200s or 200") from None
    if ms > MAX_TIME_MS:
        raise ValueError(f"at most {format_duration(MAX_TIME_MS)} (the playground's limit)")
    return ms


class GoToTimeDialog(Dialog):
    """Returns the instant in ms, or None."""

    def __init__(self, now: int, head: int) -> None:
        super().__init__()
        self.now = now
        self.head = head

    def dialog_title(self) -> str:
        return "Go to time"

    def body(self) -> ComposeResult:
        yield Static(Text(f"Now {format_duration(self.now)}; recorded to {format_duration(self.head)}. "
                          "Earlier instants are restored from the history; later ones follow the recorded "
                          "operations, then run on. A new operation after going back forks a new future "
                          "(the old one is kept as a branch: b lists the branches)."),
                     classes="help")
        yield Input(value=format_duration(self.now), id="time")

    def buttons(self) -> Iterable[Button]:
        yield Button("Go", id="ok", variant="primary")
        yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#time", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        try:
            ms = parse_instant(self.query_one("#time", Input).value)
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.dismiss(ms)


class BranchesDialog(Dialog):
    """The kept branches: Enter (or w) switches to the highlighted one, s saves it as a scenario.
    Returns ("switch" | "save", name), or None."""

    BINDINGS = [
        Binding("w", "choose('switch')", "Switch to", id="playground.branches.switch"),
        Binding("s", "choose('save')", "Save…", id="playground.branches.save"),
    ]

    def __init__(self, now: int, branches: list[tuple[str, int, int, int]]) -> None:
        """branches: (name, forked at ms, recorded to ms, operations) of each."""
        super().__init__()
        self.now = now
        self.branches = branches

    def dialog_title(self) -> str:
        return "Branches"

    def body(self) -> ComposeResult:
        yield Static(Text(f"Now {format_duration(self.now)}. Each branch is a future left behind when a new "
                          "operation was applied after going back. Switching to one makes it current at its "
                          "furthest instant; the current future is kept as a branch in its place."),
                     classes="help")
        width = max(len(name) for name, *_ in self.branches)
        yield OptionList(*(Option(Text(f"{name:<{width}}  forked at {format_duration(forked)}, recorded to "
                                       f"{format_duration(head)}, {ops} operation(s)", end=""), id=name)
                           for name, forked, head, ops in self.branches), id="branches")

    def buttons(self) -> Iterable[Button]:
        yield Button("Switch to (w)", id="ok", variant="primary")
        yield Button("Save… (s)", id="save")
        yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        branches = self.query_one("#branches", OptionList)
        branches.highlighted = len(self.branches) - 1  # the newest: the future just left
        branches.focus()

    def highlighted(self) -> str | None:
        branches = self.query_one("#branches", OptionList)
        if branches.highlighted is None:
            return None
        return branches.get_option_at_index(branches.highlighted).id

    def action_choose(self, what: str) -> None:
        name = self.highlighted()
        if name is not None:
            self.dismiss((what, name))

    @on(OptionList.OptionSelected, "#branches")
    def _selected(self) -> None:
        self.action_choose("switch")

    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        self.action_choose("save")

    def submit(self) -> None:
        self.action_choose("switch")
