"""The footer: the shown keys of the focused view and the palette key on the right, in one line that
the widget draws itself. Keys that do not fit whole are left out (the palette key stays), rather than
cut in the middle of a word on a narrow terminal; `?` lists every key.

Textual's Footer is a container of one widget per key: each time the screen says its bindings changed
(a view switch says it several times over) it rebuilds them all, which lays out the whole screen again
(~30 ms a view switch at 150,000 pods). This one is a single line of fixed size: new keys repaint that
line, once per burst of announcements and only when the keys it would show differ. It looks and
behaves as Textual's (same styles, compact style, a click presses the key, a key's tooltip on hover)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby

from rich.style import Style
from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.widget import Widget

DISABLED = Style(dim=True)


@dataclass(frozen=True, slots=True)
class FooterKey:
    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str


@dataclass(frozen=True, slots=True)
class KeyGroup:
    """The keys of two or more actions of one binding group (+ and - for the speed): the keys side
    by side, then the group's description."""

    keys: tuple[FooterKey, ...]
    description: str
    compact: bool


class KeyFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer--separator"}
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer--separator {
            color: $foreground 20%;
        }
    }
    """

    compact = reactive(False)
    """Less space around each key (narrow terminals)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: tuple = ((), None)  # what the line shows: FooterKey and KeyGroup items; the palette key
        self._update_pending = False
        self._spans: list[tuple[int, int, FooterKey]] = []  # (start, end, key) as last drawn
        self.shown: list[str] = []  # the keys drawn, palette not included (tests read it)
        self.updates = 0  # times the keys shown changed

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen) -> None:
        # (as Textual's Footer: while the terminal has no focus, the keys stay as they were)
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._update_pending:
            self._update_pending = True
            self.call_later(self._update_if_changed)

    def _update_if_changed(self) -> None:
        self._update_pending = False
        if not self.is_attached:
            return
        items = self.items()
        if items != self._items:
            self._items = items
            self.updates += 1
            self.refresh()

    def items(self) -> tuple:
        """What Textual's Footer composes: one key per action (the first bound), a group of two or
        more actions as their keys and the group's description; and the palette key (or None)."""
        active = self.screen.active_bindings
        by_action: defaultdict[str, list] = defaultdict(list)
        for (_, binding, enabled, tooltip) in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        items: list = []
        display = self.app.get_key_display
        for group, members in groupby(by_action.values(), lambda bindings: bindings[0][0].group):
            members = list(members)
            if group is not None and len(members) > 1:
                keys = tuple(FooterKey(binding.key, display(binding), "", enabled, tooltip or binding.description)
                             for binding, enabled, tooltip in (bindings[0] for bindings in members))
                items.append(KeyGroup(keys, group.description, group.compact))
                continue
            for binding, enabled, tooltip in (bindings[0] for bindings in members):
                items.append(FooterKey(binding.key, display(binding), binding.description, enabled, tooltip))
        found = active.get(self.app.COMMAND_PALETTE_BINDING) if self.app.ENABLE_COMMAND_PALETTE else None
        palette = None
        if found is not None:
            _node, binding, enabled, _tooltip = found
            palette = FooterKey(binding.key, display(binding), binding.description, enabled,
                                binding.tooltip or binding.description)
        return tuple(items), palette

    # ---------------------------------------------------------------- drawing

    def _piece(self, item, palette: bool = False) -> tuple[Text, list[tuple[int, int, FooterKey]]]:
        """One item's text (Textual's paddings and margins as spaces) and where its keys are in it."""
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        if isinstance(item, KeyGroup):
            return self._group_piece(item, key_style, description_style)
        compact = self.compact or palette  # (Textual's palette key is always in the compact style)
        text = Text(end="")
        text.append(item.display if compact else f" {item.display} ", key_style)
        if item.description:
            text.append(f" {item.description}" if compact else f"{item.description} ", description_style)
        if not item.enabled:
            text.stylize(DISABLED)
        spans = [(0, text.cell_len, item)]
        if self.compact and not palette:
            text.append(" ")  # the compact style's margin after each key
        return text, spans

    def _group_piece(self, group: KeyGroup, key_style: Style, description_style: Style
                     ) -> tuple[Text, list[tuple[int, int, FooterKey]]]:
        text = Text(" " if group.compact else "", end="")  # a compact group's left padding
        spans = []
        margin = "" if group.compact else " "
        for key in group.keys:
            text.append(margin)
            start = text.cell_len
            text.append(key.display, DISABLED + key_style if not key.enabled else key_style)
            spans.append((start, text.cell_len, key))
            text.append(margin)
        text.append(" " if group.compact else "")  # the group's right margin
        text.append(group.description + ("" if self.compact else " "), description_style)
        return text, spans

    def render(self) -> Text:
        width = self.size.width
        keys, palette = self._items
        line = Text(end="", no_wrap=True, overflow="crop")
        spans: list[tuple[int, int, FooterKey]] = []
        right = Text(end="")
        if palette is not None:
            right.append("▏", self.get_component_rich_style("footer--separator"))
            piece, palette_spans = self._piece(palette, palette=True)
            right.append_text(piece)
            right.append(" ")  # its padding (its margin in the compact style)
        limit = width - right.cell_len
        margin = 1 if self.compact else 0  # may lie under the palette key
        for item in keys:
            piece, item_spans = self._piece(item)
            if line.cell_len + piece.cell_len - margin > limit:
                break  # this key and the ones after it do not fit whole
            spans += [(line.cell_len + start, line.cell_len + end, key) for start, end, key in item_spans]
            line.append_text(piece)
        self.shown = [key.key for _start, _end, key in spans]
        if line.cell_len > limit:
            line.right_crop(line.cell_len - limit)
        if palette is not None:
            line.append(" " * max(0, limit - line.cell_len))
            start = line.cell_len + 1  # after the separator
            line.append_text(right)
            spans += [(start + a, start + b, key) for a, b, key in palette_spans]
        self._spans = spans
        return line

    def watch_compact(self) -> None:
        self.refresh()

    # ---------------------------------------------------------------- mouse

    def _key_at(self, x: int) -> FooterKey | None:
        return next((item for start, end, item in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        item = self._key_at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self._key_at(event.x)
        self.tooltip = (item.tooltip or item.description) if item is not None else None
