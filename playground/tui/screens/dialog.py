"""The dialog base and the generic dialogs (confirm, pick one by name). A dialog only gathers the
user's choice and returns it with `dismiss`; the app re-checks the target when the dialog closes (the
simulation kept running) and applies the operation.
"""

from __future__ import annotations

from typing import Callable, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

DIALOG_CSS = """
Dialog {
    align: center middle;
    background: $background 60%;
}
Dialog > #box {
    width: 96;
    max-width: 95%;
    height: auto;
    max-height: 90%;
    border: thick $primary;
    background: $surface;
    padding: 1 2;
    overflow-y: auto;
}
Dialog.-danger > #box { border: thick $error; }
Dialog #title { text-style: bold; width: 100%; margin-bottom: 1; }
Dialog .help { color: $text-muted; margin-bottom: 1; }
Dialog .error { color: $error; text-style: bold; margin-top: 1; }
Dialog .warning { color: $warning; text-style: bold; margin-bottom: 1; }
Dialog .error.-hidden { display: none; }
Dialog #buttons { height: auto; margin-top: 1; align-horizontal: right; }
Dialog #buttons Button { margin-left: 2; }
Dialog OptionList { height: auto; max-height: 16; margin-bottom: 1; }
Dialog Input { border: none; height: 1; padding: 0 1; background: $boost; margin-bottom: 1; }
Dialog Input:focus { border: none; background: $primary 30%; }
Dialog .field { height: auto; }
Dialog .field Label { width: 30; }
Dialog .field Input { width: 1fr; }
Dialog .field Select { width: 1fr; margin-bottom: 1; }
Dialog Checkbox { border: none; padding: 0; height: auto; background: $surface; }
Dialog .option-help { color: $text-muted; padding-left: 4; margin-bottom: 1; }
Dialog .field Input { margin-bottom: 0; }
Dialog Checkbox:focus { border: none; background: $primary 30%; }
"""


class Dialog(ModalScreen):
    """A centred box with a title; Escape cancels (returns None)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="playground.dialog.cancel")]

    TITLE_TEXT = ""

    def action_cancel(self) -> None:
        self.dismiss(None)

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static(Text(self.dialog_title(), end=""), id="title")
            yield from self.body()
            error = Static("", classes="error -hidden", id="error")
            yield error
            buttons = list(self.buttons())
            if buttons:
                with Horizontal(id="buttons"):
                    yield from buttons

    def dialog_title(self) -> str:
        return self.TITLE_TEXT

    def body(self) -> ComposeResult:
        yield from ()

    def buttons(self) -> Iterable[Button]:
        yield Button("OK", id="ok", variant="primary")
        yield Button("Cancel", id="cancel")

    def show_error(self, message: str) -> None:
        error = self.query_one("#error", Static)
        error.update(Text(message))
        error.remove_class("-hidden")

    def deployment_field(self, options: list[tuple[str, str]], value) -> ComposeResult:
        """The "Deployment" row of the dialogs that act on one (scale, rollout, strategy)."""
        with Horizontal(classes="field"):
            yield Label("Deployment")
            yield Select(options, value=value, allow_blank=False, id="deployment")

    def chosen_deployment(self) -> str | None:
        """The Deployment chosen in deployment_field, or None after saying one must be chosen."""
        name = self.query_one("#deployment", Select).value
        if not isinstance(name, str):
            self.show_error("choose a deployment")
            return None
        return name

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.submit()

    def submit(self) -> None:
        self.dismiss(True)


class ConfirmDialog(Dialog):
    """Yes/no, for what cannot be undone (power off). y or Enter confirms, n or Escape cancels."""

    BINDINGS = [
        Binding("y", "confirm", "Yes", id="playground.dialog.yes"),
        Binding("n", "cancel", "No", id="playground.dialog.no"),
    ]

    def __init__(self, title: str, message: str | Text, confirm_label: str = "Yes", danger: bool = True) -> None:
        super().__init__(classes="-danger" if danger else "")
        self._title = title
        self._message = message
        self._label = confirm_label

    def dialog_title(self) -> str:
        return self._title

    def body(self) -> ComposeResult:
        yield Static(self._message if isinstance(self._message, Text) else Text(self._message), classes="help")

    def buttons(self) -> Iterable[Button]:
        yield Button(f"{self._label} (y)", id="ok", variant="error")
        yield Button("Cancel (n)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    def action_confirm(self) -> None:
        self.dismiss(True)


class PickerDialog(Dialog):
    """Pick one item by name: type to narrow the list, arrows to move, Enter to choose."""

    LIMIT = 300

    def __init__(self, title: str, help_text: str, items: Callable[[str], list[tuple[str, str]]],
                 current: str | None = None) -> None:
        super().__init__()
        self._title = title
        self._help = help_text
        self._items = items  # query -> [(id, label)]
        self._current = current

    def dialog_title(self) -> str:
        return self._title

    def body(self) -> ComposeResult:
        if self._help:
            yield Static(Text(self._help), classes="help")
        yield Input(placeholder="type a name to narrow the list", id="query")
        yield OptionList(id="choices")

    def buttons(self) -> Iterable[Button]:
        return ()

    def on_mount(self) -> None:
        self._fill("")
        self.query_one("#query", Input).focus()

    def _fill(self, query: str) -> None:
        choices = self.query_one("#choices", OptionList)
        choices.clear_options()
        items = self._items(query)
        options = [Option(Text(label, end=""), id=ident) for ident, label in items[: self.LIMIT]]
        choices.add_options(options)
        highlight = 0
        if self._current is not None and not query:
            for i, (ident, _) in enumerate(items[: self.LIMIT]):
                if ident == self._current:
                    highlight = i
                    break
        if options:
            choices.highlighted = highlight

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        self._fill(event.value.strip())

    @on(Input.Submitted, "#query")
    def _submitted(self, event: Input.Submitted) -> None:
        self.submit()

    _MOVES = {"down": "cursor_down", "up": "cursor_up", "pagedown": "page_down", "pageup": "page_up"}

    def on_key(self, event) -> None:
        """Arrows move the list while the cursor stays in the query."""
        choices = self.query_one("#choices", OptionList)
        move = self._MOVES.get(event.key)
        if move is not None and self.focused is not choices:
            getattr(choices, f"action_{move}")()
            event.stop()
            event.prevent_default()

    @on(OptionList.OptionSelected, "#choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def submit(self) -> None:
        choices = self.query_one("#choices", OptionList)
        if choices.highlighted is None:
            self.show_error("nothing matches")
            return
        self.dismiss(choices.get_option_at_index(choices.highlighted).id)
