"""The footer, fitted to the screen: keys that do not fit whole are left out (the palette key stays on
the right), rather than cut in the middle of a word on a narrow terminal. `?` lists every key.

Textual's Footer rebuilds all its keys (new widgets, restyled) each time the screen says its
bindings changed, which a view switch says several times over; at 150,000 pods those rebuilds were
a large part of a key's latency. This one rebuilds once per burst of announcements (after the
current message), and only when the keys it would show differ from the ones shown."""

from __future__ import annotations

from textual.widgets import Footer


class FittingFooter(Footer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None  # what the last compose showed
        self._rebuild_pending = False
        self.rebuilds = 0

    def bindings_changed(self, screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_later(self._rebuild_if_changed)

    def shown_keys(self) -> tuple:
        """What compose would show: the screen's shown bindings, their state and the palette key."""
        keys = tuple((binding.key, binding.description, binding.action, binding.group, enabled, tooltip)
                     for (_, binding, enabled, tooltip) in self.screen.active_bindings.values() if binding.show)
        return keys, self.show_command_palette, self.compact

    async def _rebuild_if_changed(self) -> None:
        self._rebuild_pending = False
        if not self.is_attached:
            return
        keys = self.shown_keys()
        if keys == self._shown:
            return
        self._shown = keys
        await self.recompose()

    async def recompose(self) -> None:
        self.rebuilds += 1
        await super().recompose()
        self.call_after_refresh(self._fit, 5)

    def on_resize(self) -> None:
        for child in self.children:
            child.display = True
        self.call_after_refresh(self._fit, 5)

    def _fit(self, tries: int = 0) -> None:
        children = list(self.children)
        if any(c.display and not c.region.width for c in children):
            if tries > 0:  # not laid out yet: look again after the next refresh
                self.call_after_refresh(self._fit, tries - 1)
            return
        palette = [c for c in children if c.has_class("-command-palette")]
        limit = min((p.region.x for p in palette), default=self.region.right)
        cut = False
        for child in children:
            if child in palette:
                continue
            cut = cut or child.region.right > limit
            if cut and child.display:
                child.display = False
