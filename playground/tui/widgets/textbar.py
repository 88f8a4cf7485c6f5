"""One-line bars the app computes again every frame (the header, the view tabs, a view's title)."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from .vtable import text_segments


class TextBar(Widget):
    """Lines of text, one screen line each (cut with an ellipsis), told again every frame: the same
    text again draws nothing, and a new one draws its lines from their segments (Textual's line API).
    As a Static, the header's two lines cost about 0.9 ms a paint at 30 frames a second: Textual
    made and styled its content whole at each update."""

    DEFAULT_CSS = "TextBar { height: auto; }"

    def __init__(self, text: str | Text = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text = text if isinstance(text, Text) else Text(text, end="")
        self._lines = _lines(self._text)
        self._strips: dict[int, Strip] = {}  # line -> its strip at `_width`
        self._width = 0

    @property
    def content(self) -> Text:
        """What it shows (as Static.content)."""
        return self._text

    def render(self) -> Text:
        """As a Static's: what it shows (the paint goes through render_line)."""
        return self._text

    def show(self, text: Text) -> None:
        """Show `text`; a layout of the screen (which costs more than the rest of a frame) only when
        its number of lines changed."""
        if text == self._text:
            return
        lines = _lines(text)
        old, self._text, self._lines = self._lines, text, lines
        if len(lines) != len(old):
            self._strips.clear()
            self.refresh(layout=True)
            return
        # The clock moves every frame, the zones' line and the tabs seldom: draw the changed lines.
        for y, (line, before) in enumerate(zip(lines, old)):
            if line != before:
                self._strips.pop(y, None)
                self.refresh(Region(0, self.gutter.top + y, self.size.width, 1))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        base = self.rich_style
        if y >= len(self._lines):
            return Strip.blank(width, base)
        if width != self._width:
            self._strips.clear()
            self._width = width
        strip = self._strips.get(y)
        if strip is None:
            line = self._lines[y]
            if line.cell_len > width:
                line = line.copy()
                line.truncate(width, overflow="ellipsis")
            segments = Segment.apply_style(text_segments(line, self.app.console), base)
            strip = self._strips[y] = Strip(list(segments)).crop_extend(0, width, base)
        return strip


def _lines(text: Text) -> list[Text]:
    lines = list(text.split("\n", allow_blank=True))
    for line in lines:
        line.end = ""
    return lines
