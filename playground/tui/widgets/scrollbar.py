"""Scrollbars that draw again only when what they show changes.

Textual's ScrollBar draws itself again whenever its window moves or the size of what it scrolls
changes: at 150,000 rows, a Pods table whose row count moves every frame made its scrollbar draw
every frame, 1-2 ms each time through Rich's renderer and Textual's styles cache (watching the Pods
view of a zone outage at x1000: 0.9 s of the UI thread's ~6 s in 20 s, more than the table's own
rows). Yet the thumb of a 30-line bar over 150,000 rows stays on the same eighth of a cell for
thousands of rows.

SteadyScrollBar keeps the lines of its last drawing with what they were drawn from: the thumb's
place in eighths of a cell as ScrollBarRender.render_bar works it out (`_thumb`), the bar's size,
colours and crop, the background it is drawn over and the app's line filters and theme. When all of
those are the same, the last lines are what the plain drawing would give, and they are returned
without drawing; otherwise it draws as Textual does and keeps the result.
"""

from __future__ import annotations

from math import ceil

from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip


def _thumb(size: int, virtual_size: float, window_size: float, position: float) -> tuple | None:
    """Where ScrollBarRender.render_bar puts the thumb of a bar of `size` cells: (start cell, start
    eighth, end cell, end eighth); None for a bar with no thumb (nothing to scroll)."""
    if not (window_size and size and virtual_size and size != virtual_size):
        return None
    eighths = len(ScrollBarRender.VERTICAL_BARS)  # (as many as HORIZONTAL_BARS)
    thumb_size = max(1, window_size / (virtual_size / size))
    offset = (size - thumb_size) * (position / (virtual_size - window_size))
    start = int(offset * eighths)
    end = start + ceil(thumb_size * eighths)
    return (*divmod(max(0, start), eighths), *divmod(max(0, end), eighths))


class SteadyScrollBar(ScrollBar):
    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._drawn: tuple | None = None  # what the kept lines were drawn from
        self._drawn_lines: list[Strip] = []

    def render_lines(self, crop: Region) -> list[Strip]:
        key = self._drawing_key(crop)
        if key is not None and key == self._drawn:
            return list(self._drawn_lines)
        lines = super().render_lines(crop)
        self._drawn, self._drawn_lines = key, list(lines)
        return lines

    def _drawing_key(self, crop: Region) -> tuple | None:
        """Everything the drawing of `crop` depends on (what Widget.render_lines hands Textual's
        styles cache, and what the bar's renderable draws); None where this bar draws through
        another renderer or its thumb cannot be placed (it then draws every time, as Textual's does)."""
        if self.renderer is not ScrollBarRender:
            return None
        bar = self.render()
        if not isinstance(bar, ScrollBarRender):
            return None
        width, height = self.size  # (what the renderable is drawn to)
        try:
            thumb = _thumb(height if self.vertical else width, bar.virtual_size, bar.window_size, bar.position)
        except ZeroDivisionError:
            return None
        app = self.app
        return (crop, self.region.size, self.size, self.vertical, bar.thickness, bar.style, thumb,
                self.background_colors, self.opacity, tuple(map(id, self.get_line_filters())),
                id(app.ansi_theme), app.native_ansi_color, app.theme)


class SteadyScrollbars:
    """For a scrolling widget (put before its Widget base): its scrollbars are SteadyScrollBars, made
    as Widget.vertical_scrollbar and horizontal_scrollbar make Textual's plain ones."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return self._steady_scrollbar(True)

    @property
    def horizontal_scrollbar(self) -> ScrollBar:
        return self._steady_scrollbar(False)

    def _steady_scrollbar(self, vertical: bool) -> ScrollBar:
        name = "vertical" if vertical else "horizontal"
        bar = getattr(self, f"_{name}_scrollbar")
        if bar is None:
            thickness = self.scrollbar_size_vertical if vertical else self.scrollbar_size_horizontal
            bar = SteadyScrollBar(vertical=vertical, name=name, thickness=thickness)
            setattr(self, f"_{name}_scrollbar", bar)  # (before it starts, as Textual's)
            bar.display = False
            self.app._start_widget(self, bar)
        return bar
