"""`?`: every key, what it does and its binding id (for a keymap), grouped, plus a first walk-through."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from ..app import PlaygroundApp

GETTING_STARTED = (
    "First steps: the Nodes view lists the nodes; ↑/↓ select one and the pane below explains it. "
    "Press p on a node to power it off (and confirm). Watch its LEASE AGE grow past "
    "node-monitor-grace-period, Ready go Unknown (NotReady), the unreachable taints appear, the countdowns in "
    "\"What happens next\" run, and its pods move once their tolerationSeconds are over. Space pauses, . steps "
    "one tick, + and - change the speed; ctrl+p finds any command by name.\n"
    "Remap keys with a keymap file (binding ids below): $PLAYGROUND_KEYMAP or "
    "~/.config/cluster-playground/keymap.toml, e.g.  \"playground.node.power-off\" = \"P\"\n"
)

WIDE = 120  # from this width the binding id has its own column


def key_display(app: "PlaygroundApp", binding: Binding) -> str:
    keys = app.keymap_keys(binding)
    return ", ".join(app.get_key_display(Binding(key, binding.action)) for key in keys)


def help_renderable(app: "PlaygroundApp", width: int | None = None) -> Group:
    """Every key by group. Narrower than WIDE, the help and the binding id share the last column,
    which wraps at word boundaries (the first columns keep their width)."""
    wide = (width if width is not None else app.size.width) >= WIDE
    parts: list = [Text(GETTING_STARTED, style="dim")]
    for group, bindings in app.binding_groups():
        # Fixed widths so that the groups line up.
        table = Table(box=None, padding=(0, 2), show_header=False, expand=False)
        table.add_column("key", style="bold cyan", no_wrap=True, width=14 if wide else 10)
        table.add_column("action", no_wrap=True, width=26 if wide else 20)
        if wide:
            table.add_column("id", style="dim", no_wrap=True, width=34)
        table.add_column("help", style="dim", overflow="fold")
        for binding in bindings:
            if wide:
                table.add_row(key_display(app, binding), binding.description, binding.id or "", binding.tooltip)
            else:
                help_text = Text(binding.tooltip or "", style="dim")
                if binding.id:
                    help_text.append(f"  {binding.id}", "italic")
                table.add_row(key_display(app, binding), binding.description, help_text)
        parts.append(Text(group, style="bold underline"))
        parts.append(table)
        parts.append(Text(""))
    return Group(*parts)


class HelpScreen(ModalScreen):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background 60%; }
    HelpScreen > VerticalScroll {
        width: 96%; height: 92%; border: thick $primary; background: $surface; padding: 0 1;
    }
    """
    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close", id="playground.help.close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_renderable(self.app), id="help-body")  # type: ignore[arg-type]

    def on_resize(self) -> None:
        self.query_one("#help-body", Static).update(help_renderable(self.app))  # type: ignore[arg-type]

    def action_close(self) -> None:
        self.dismiss(None)
