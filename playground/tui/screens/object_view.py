"""Full-screen views of one object, as k9s opens them: `kubectl describe` (v, and d in the pod views)
and the object's YAML (y). They follow the simulation while open; Esc goes back."""

from __future__ import annotations

from typing import Callable

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class ObjectScreen(ModalScreen):
    """One object's text, refreshed while the clock moves; `produce` returns None once it is gone."""

    DEFAULT_CSS = """
    ObjectScreen { background: $surface; }
    ObjectScreen > #object-title { dock: top; width: 100%; height: 1; background: $primary; color: $text;
                                   padding: 0 1; text-style: bold; }
    ObjectScreen > VerticalScroll { background: $surface; padding: 0 1; }
    ObjectScreen #object-body { width: auto; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="playground.object.close"),
        Binding("y", "switch('yaml')", "YAML", id="playground.object.yaml"),
        Binding("v", "switch('describe')", "Describe", id="playground.object.describe"),
    ]

    def __init__(self, kind: str, name: str, mode: str, produce: Callable[[str], str | None],
                 readable: Callable[[], bool]) -> None:
        super().__init__()
        self.kind = kind
        self.object_name = name
        self.mode = mode  # "describe" or "yaml"
        self.produce = produce  # mode -> text, None when the object is gone
        self.readable = readable
        self.text = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="object-title")
        with VerticalScroll():
            yield Static("", id="object-body")

    def on_mount(self) -> None:
        self.reload()
        self.set_interval(0.5, self.reload, name="object-refresh")

    def reload(self) -> None:
        if not self.readable():
            return  # a tick runs in the engine thread: keep what is shown
        text = self.produce(self.mode)
        namespace, _, name = self.object_name.rpartition("/")
        target = f"{self.kind} {name}" + (f" -n {namespace}" if namespace else "")
        command = f"kubectl describe {target}" if self.mode == "describe" else f"kubectl get {target} -o yaml"
        title = Text(f"{command}   (Esc back, {'y YAML' if self.mode == 'describe' else 'v describe'})")
        self.query_one("#object-title", Static).update(title)
        if text is None:
            text = f'Error from server (NotFound): {self.kind}s "{self.object_name.split("/")[-1]}" not found'
        if text == self.text:
            return
        self.text = text
        body = self.query_one("#object-body", Static)
        if self.mode == "yaml":
            body.update(Syntax(text, "yaml", theme="ansi_dark", background_color="default", word_wrap=False))
        else:
            body.update(Text(text))

    def action_switch(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            self.text = ""
            self.reload()

    def action_close(self) -> None:
        self.dismiss(None)
