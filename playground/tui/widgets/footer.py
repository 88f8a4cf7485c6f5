"""The footer, fitted to the screen: keys that do not fit whole are left out (the palette key stays on
the right), rather than cut in the middle of a word on a narrow terminal. `?` lists every key."""

from __future__ import annotations

from textual.widgets import Footer


class FittingFooter(Footer):
    async def recompose(self) -> None:
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
