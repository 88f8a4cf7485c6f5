"""Detail panes as screen lines: prose Texts and tables laid out by hand.

A Rich Table measures every cell of every column each time it renders (a node's detail with its
events, conditions and 110 pods took about 35 ms of CPU per redraw at 150,000 pods). Here a table
is its cells' plain widths, a column per max over its cells, and one Text per screen line:
laying it out costs a pass over the cells, and the pane renders only the lines on screen
(`details.DetailPane`). They print through Rich as well (`__rich_console__`: the tests read them so).

The layout follows the Rich tables it replaces (`box=None, padding=(0, 1)`): a space before the
first column, two between columns; a header row in "bold dim"; one column may wrap (fold) its
long values onto more lines, the others cut theirs with an ellipsis; on a narrow pane the
wrapping column gives way first, then the columns on the right, never the first `keep` below their
header.
"""

from __future__ import annotations

import io
from typing import Iterable, Iterator, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

HEADER_STYLE = "bold dim"

# Text.wrap needs a console only for its tab size: one, writing nowhere.
_CONSOLE = Console(file=io.StringIO(), width=200, color_system=None, legacy_windows=False)


def _cell(value: "str | Text") -> Text:
    return value if isinstance(value, Text) else Text(str(value), end="")


def _cut(text: Text, width: int) -> Text:
    if text.cell_len <= width:
        return text
    text = text.copy()
    text.truncate(width, overflow="ellipsis")
    return text


def wrap_text(text: Text, width: int) -> list[Text]:
    """One Text per screen line of `text` at `width` (as Rich would print it: words wrapped, long
    words folded; a no_wrap Text is cut instead)."""
    if "\n" not in text.plain and text.cell_len <= width:
        return [text]
    if text.no_wrap:
        return [_cut(line, width) for line in text.split("\n")]
    return list(text.wrap(_CONSOLE, max(1, width), overflow="fold"))


class TableBlock:
    """A table of cells (str or Text) rendered as screen lines at a given width."""

    __slots__ = ("headers", "rows", "wrap", "keep", "max_widths", "min_widths", "show_header")

    def __init__(self, *headers: str, wrap: int = -1, keep: int = 0, show_header: bool = True) -> None:
        self.headers = headers
        self.rows: list[tuple[Text, ...]] = []
        self.wrap = wrap % len(headers)
        self.keep = keep
        self.max_widths: list[int | None] = [None] * len(headers)
        self.min_widths: list[int] = [len(h) if i < keep else 0 for i, h in enumerate(headers)]
        self.show_header = show_header

    def add_row(self, *cells: "str | Text") -> None:
        self.rows.append(tuple(_cell(c) for c in cells))

    def widths(self, room: int) -> list[int]:
        """Each column's width: its widest cell (and header) within its maximum; shrunk, when the
        table is wider than `room`, from the wrapping column and then from the right."""
        count = len(self.headers)
        widths = [len(h) if self.show_header else 0 for h in self.headers]
        for row in self.rows:
            for i, cell in enumerate(row):
                length = cell.cell_len
                if length > widths[i]:
                    widths[i] = length
        for i, most in enumerate(self.max_widths):
            if most is not None and widths[i] > most:
                widths[i] = max(most, self.min_widths[i])
        excess = sum(widths) + 2 * count - room
        order = [self.wrap] + [i for i in range(count - 1, -1, -1) if i != self.wrap]
        for i in order:
            if excess <= 0:
                break
            floor = max(self.min_widths[i], min(widths[i], len(self.headers[i]) if i < self.keep else 1))
            give = min(excess, widths[i] - floor)
            if give > 0:
                widths[i] -= give
                excess -= give
        return widths

    def lines(self, room: int) -> list[Text]:
        widths = self.widths(room)
        out: list[Text] = []
        if self.show_header:
            header = self._line([Text(h, end="") for h in self.headers], widths)
            header.stylize(HEADER_STYLE)  # padding included, as Rich styles a header row
            out.append(header)
        wrap = self.wrap
        for row in self.rows:
            cells = list(row)
            spill: list[Text] = []
            cell = cells[wrap] if wrap < len(cells) else None
            if cell is not None and cell.cell_len > widths[wrap] > 0:
                folded = wrap_text(cell, widths[wrap])
                cells[wrap], spill = folded[0], folded[1:]
            out.append(self._line(cells, widths))
            for more in spill:
                blank = [Text("", end="")] * len(widths)
                blank[wrap] = more
                out.append(self._line(blank, widths))
        return out

    @staticmethod
    def _line(cells: Sequence[Text], widths: Sequence[int]) -> Text:
        line = Text(no_wrap=True, overflow="crop", end="\n")
        for i, width in enumerate(widths):
            cell = _cut(cells[i], width) if i < len(cells) else Text("", end="")
            line.append(" ")
            line.append_text(cell)
            line.append(" " * (width - cell.cell_len + 1))
        line.rstrip()
        return line

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines(options.max_width)


class SideBySide:
    """Two blocks next to each other (the node's taints and its lease), `gap` columns apart: the
    right one gets the room the left one leaves, and goes under it when that is less than
    `min_room` columns."""

    __slots__ = ("left", "right", "gap", "min_room")

    def __init__(self, left: Sequence[object], right: Sequence[object], gap: int = 5, min_room: int = 40) -> None:
        self.left = left
        self.right = right
        self.gap = gap
        self.min_room = min_room

    def lines(self, room: int) -> list[Text]:
        left = list(_lines_of(self.left, room))
        width = max((line.cell_len for line in left), default=0)
        if room - width - self.gap < self.min_room:
            return left + list(_lines_of(self.right, room))
        right = list(_lines_of(self.right, room - width - self.gap))
        out: list[Text] = []
        for y in range(max(len(left), len(right))):
            line = Text(no_wrap=True, overflow="crop", end="\n")
            if y < len(left):
                line.append_text(left[y])
            if y < len(right):
                line.append(" " * (width - line.cell_len + self.gap))
                line.append_text(right[y])
            out.append(line)
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines(options.max_width)


def _lines_of(parts: Iterable[object], room: int) -> Iterator[Text]:
    for part in parts:
        if isinstance(part, Text):
            for line in wrap_text(part, room):
                if line.end != "\n":  # printed by Rich one per line (never change the caller's Text)
                    line = line.copy()
                    line.end = "\n"
                yield line
        else:
            yield from part.lines(room)  # type: ignore[attr-defined]


class Lines:
    """A detail pane's content: Texts (prose, wrapped at the pane's width) and blocks (tables)."""

    __slots__ = ("parts",)

    def __init__(self, parts: Sequence[object]) -> None:
        self.parts = parts

    def lines(self, room: int) -> list[Text]:
        return list(_lines_of(self.parts, room))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines(options.max_width)


def as_lines(renderable: object) -> Lines | None:
    """The renderable as Lines when it is made of Texts and blocks only (a Group of Texts, a Text),
    else None (rendered the general way)."""
    if isinstance(renderable, Lines):
        return renderable
    if isinstance(renderable, Text):
        return Lines([renderable])
    if isinstance(renderable, Group) and all(isinstance(r, (Text, TableBlock, SideBySide))
                                             for r in renderable.renderables):
        return Lines(list(renderable.renderables))
    return None
