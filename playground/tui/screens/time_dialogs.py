"""Go to time: any instant of this session, typed as a duration (3m20s, 200s, 90)."""

from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Button, Input, Static

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
                          "(the old one is kept as a branch: palette, \"Switch to\" / \"Save\")."),
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
