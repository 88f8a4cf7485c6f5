"""k9s's `:` prompt to go to a view by name."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Input


class ViewPrompt(ModalScreen):
    """k9s's `:` prompt: type a view (nodes, pods, pending, leases, events, …), Enter."""

    DEFAULT_CSS = """
    ViewPrompt { align: center top; background: $background 30%; }
    ViewPrompt > Input { width: 80; max-width: 95%; margin-top: 3; border: tall $accent; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="playground.prompt.cancel")]

    def __init__(self, aliases: dict[str, str], views: list[str] | None = None) -> None:
        super().__init__()
        self.views = views if views is not None else list(dict.fromkeys(aliases.values()))
        self.aliases = {alias: view for alias, view in aliases.items() if view in self.views}

    def compose(self) -> ComposeResult:
        from textual.suggester import SuggestFromList

        yield Input(placeholder=": " + " | ".join([*self.views, "q"]),
                    suggester=SuggestFromList(sorted(self.views) + ["quit"]), id="prompt")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip().lstrip(":").lower()
        if text in ("q", "q!", "quit"):
            self.dismiss("quit")
            return
        view = self.aliases.get(text)
        if view is None:
            matches = [v for a, v in self.aliases.items() if a.startswith(text)] if text else []
            view = matches[0] if matches else None
        if view is None:
            self.notify(f"no view called {text!r}", severity="warning")
            return
        self.dismiss(view)
