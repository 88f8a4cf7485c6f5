"""One-line bars the app computes again every frame (the header, the view tabs, a view's title)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class TextBar(Static):
    """A Static told its text every frame: the same text again draws nothing. Textual renders a
    Static's content whole at each update (the header's two lines cost about 0.9 ms a paint at 30
    frames a second), and paused, or between two changes, nothing in it moves."""

    _shown: Text | None = None

    def show(self, text: Text, layout: bool = False) -> None:
        """Show `text`; `layout` when its height may change (a layout of the screen costs more than
        the rest of a frame)."""
        if text == self._shown:
            return
        self._shown = text
        self.update(text, layout=layout)
