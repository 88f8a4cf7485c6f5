"""A virtual table: rows are keys in a sorted list; cells are read from a source only for the lines
on screen.

Why not DataTable: in Textual 8, `DataTable.remove_row` rebuilds its key→index map (O(rows) per
removed row) and every `update_cell` bumps an update counter that makes the next render rebuild the
row order and y-offset lists (O(rows) per frame). With 150,000 pods, lease ages that change for every
node every tick, and hundreds of pods moving per second, that is O(all rows) Python work per frame.
Here the per-frame cost is O(rows changed) for bookkeeping (bisect into sorted rows kept in blocks:
sortedrows.py) plus O(lines visible) for rendering, whatever the table size (design rule 5, toolong's
approach).

Rows keep their place on screen: the cursor stays on its row key, and when rows come or go above it
the view scrolls with it, so the selected row does not jump. A table with `follow_tail` (the event
log) keeps showing the newest row while the cursor is on the last row and the view is at its end.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Hashable, Iterable, Iterator, Protocol, Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from ...gcpause import no_gc
from .scrollbar import SteadyScrollbars
from .sortedrows import SortedRows

Cell = "str | Text"
BULK = 64  # above this many changed keys (and a 32nd of the rows), entries are replaced in one pass
# A filter that keeps at most one row in FEW sorts the rows it found (VirtualTable._matching).
FEW = 8


@dataclass(slots=True)
class Column:
    key: str
    label: str
    width: int = 0  # fits the widest cell on screen, between min_width and max_width
    max_width: int = 40
    justify: str = "left"
    flex: bool = False  # takes the width left over (the last, long column: MESSAGE, REASON)
    volatile: bool = False  # its sort values change with time alone (ages): re-sorted on each frame
    # Its text changes with simulated time alone (an age): while the table holds such changes
    # (`hold_time`), a row whose other cells did not change keeps the line it painted.
    timed: bool = False
    min_width: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.width = max(self.width, cell_len(self.label))
        self.min_width = self.width


def flex_floor(column: Column) -> int:
    """The narrowest a flex column gets: its label and a sort arrow."""
    return min(column.width, cell_len(column.label) + 1)


class Descending:
    """A sort value in reverse order, so that rows sorted descending stay one ascending list (bisect)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: "Descending") -> bool:
        return other.value < self.value

    def __gt__(self, other: "Descending") -> bool:
        return self.value < other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Descending({self.value!r})"


_key = itemgetter(1)


def _own_key(entry: tuple) -> Any:
    return entry[0][1]  # a sorted row's entry: ((value, its own sort key), key, ...)


def _own_key_and_key(entry: tuple) -> Any:
    return entry[0][1], entry[1]


def _value(entry: tuple) -> Any:
    return entry[0][0]


def _descending_value(entry: tuple) -> Any:
    return entry[0][0].value


class RowSource(Protocol):
    """Where a table's cells come from. Every method is called only while `readable()` is true."""

    def readable(self) -> bool: ...

    def sort_key(self, key: Hashable) -> Any: ...

    # Optional: `sort_key_is_key = True` when sort_key(key) is the key itself (a sort skips a pass);
    # `sort_values(column, keys)`, the (key, sort_value(column, key)) of many rows at once.

    def cells(self, key: Hashable) -> Sequence["str | Text"]: ...

    def match_text(self, key: Hashable) -> str: ...

    # Optional: `sort_value(column_key, key)`, a comparable value of a row for a column (else the
    # cell's text, numbers compared as numbers).


def keeps_its_box(widget: Widget, old: Size, new: Size) -> bool:
    """Would a line-API widget's size on screen stay the same with `new` content (its virtual size)
    instead of `old`? Yes while it is not shown (a layout follows when it is), or when its height is
    fixed by the layout (or, for `height: auto`, capped below both contents) and its width does not
    follow the content. Then setting the virtual size needs no layout of the whole screen (which
    repaints every widget): only the scrollbars follow."""
    if not widget.is_mounted:
        return False
    if any(not node.display for node in widget.ancestors_with_self if isinstance(node, Widget)):
        return True
    if not widget.size:
        return False
    styles = widget.styles
    room = widget.container_size
    if styles.width is not None and styles.width.is_auto and old.width != new.width:
        return False
    if styles.height is not None and styles.height.is_auto:
        return old.height > room.height and new.height > room.height
    return True


def set_virtual_size(widget: ScrollView, size: Size, repaint: bool = True) -> None:
    """A line-API widget's content size. Setting virtual_size asks for a layout of the whole screen,
    which repaints every widget; when the widget's box cannot change (`keeps_its_box`), only its
    scrollbars follow (they ask for a layout themselves if one appears or goes) and it repaints
    (`repaint`: a widget that repaints the lines that changed itself says False)."""
    old = widget.virtual_size
    if size == old:
        return
    if keeps_its_box(widget, old, size):
        widget.set_reactive(ScrollView.virtual_size, size)
        if widget.container_size:
            widget._scroll_update(size)
        if repaint:
            widget.refresh()
    else:
        widget.virtual_size = size


class VirtualTable(SteadyScrollbars, ScrollView, can_focus=True):
    """A table that renders only its visible lines (see module doc)."""

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False, id="table.cursor-up", tooltip="Previous row"),
        Binding("down", "cursor_down", "Down", show=False, id="table.cursor-down", tooltip="Next row"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page-up", tooltip="One screen up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page-down", tooltip="One screen down"),
        Binding("home", "first", "First row", show=False, id="table.first", tooltip="The first row"),
        Binding("end", "last", "Last row (follow)", show=False, id="table.last", tooltip="The last row; the event log follows new events from there"),
        Binding("left", "scroll_left", "Scroll left", show=False, id="table.left", tooltip="Scroll wide tables"),
        Binding("right", "scroll_right", "Scroll right", show=False, id="table.right", tooltip="Scroll wide tables"),
    ]

    # The cursor's look when the table has focus is a component class of its own, not a `:focus`
    # rule: focus moves from table to table on every view switch, and a `:focus` rule makes Textual
    # restyle both tables each time (see watch_has_focus).
    COMPONENT_CLASSES = {"vtable--header", "vtable--cursor", "vtable--cursor-focused", "vtable--placeholder"}

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        & > .vtable--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        & > .vtable--cursor {
            background: $block-cursor-blurred-background;
        }
        & > .vtable--cursor-focused {
            background: $block-cursor-background;
            text-style: bold;
        }
        & > .vtable--placeholder {
            color: $text-muted;
        }
    }
    """

    class CursorMoved(Message):
        """The cursor is on a different row (or the table became empty: key None)."""

        def __init__(self, table: "VirtualTable", key: Hashable | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> "VirtualTable":
            return self.table

    class Activated(Message):
        """Enter (or a double click) on a row."""

        def __init__(self, table: "VirtualTable", key: Hashable) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> "VirtualTable":
            return self.table

    def __init__(
        self,
        columns: list[Column],
        source: RowSource,
        *,
        follow_tail: bool = False,
        volatile: bool = True,
        cell_padding: int = 1,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = columns
        self.source = source
        self.follow_tail = follow_tail
        # Volatile rows hold values that change with time (ages, countdowns): every frame in which the
        # clock moved re-renders the visible lines (and only those).
        self.volatile = volatile
        self.cell_padding = cell_padding
        self._skeys: dict[Hashable, Any] = {}  # every row (filtered or not) -> its sort key
        # Rows are (sort key, key) entries, or (sort key, key, lowered match text) when the source says
        # a row's text changes only with the row (`stable_match_text`): a filter over 150,000 pods is
        # then one substring test per entry, reading nothing else.
        self._stable = bool(getattr(source, "stable_match_text", False))
        # The same texts by key (stable sources): a row whose text and sort key did not change keeps
        # its entry (a zone going NotReady changes 30,000 pods' READY, not their texts).
        self._texts: dict[Hashable, str] = {}
        self._all = SortedRows()  # every row, sorted
        self._rows = self._all  # shown rows, sorted (the same rows unfiltered)
        self._filter = ""
        self._sort: tuple[str, bool] | None = None  # (column key, descending), None: the source's order
        self._cursor_key: Hashable | None = None
        self._cursor_index = 0
        self._cache: dict[Hashable, Strip] = {}
        # What each cached strip was rendered from (cell_signature), cells read by a repaint check and
        # not rendered yet, and what each screen line shows as last rendered: (key, cursor?, signature).
        self._sigs: dict[Hashable, tuple] = {}
        self._fresh: dict[Hashable, Sequence] = {}
        self._painted: dict[int, tuple | None] = {}
        self._repaint_pending = False
        self._recheck = False  # the visible rows' cells may have changed with time alone
        self._recheck_when_shown = False  # time moved while the table was hidden (no size)
        self._header_cache: Strip | None = None
        self._lines_size: Size | None = None  # the size the cached lines were made for
        self._lines_style: Style | None = None  # the table's style they were made with
        self._widths_grew = False
        self._natural: dict[Hashable, tuple[int, ...]] = {}  # a rendered row's cell widths, for fitting
        self._last_posted: Hashable | None = object()
        self.render_count = 0  # lines rendered (for tests and the benchmark)
        self._line_style: Style | None = None  # the widget's style during a paint (render_lines)
        # While set (the clock runs and the view's time-driven redraw is not due), a row whose cells
        # changed only in timed columns keeps its painted line.
        self.hold_time = False
        self._held: dict[Hashable, Strip] = {}  # painted lines of rows changed since, until re-read
        self._timed = frozenset(i for i, c in enumerate(columns) if c.timed or c.volatile)

    # ---------------------------------------------------------------- queries

    @property
    def row_count(self) -> int:
        """Rows shown (after the filter)."""
        return len(self._rows)

    @property
    def total_count(self) -> int:
        return len(self._skeys)

    @property
    def cursor_key(self) -> Hashable | None:
        return self._cursor_key

    @property
    def cursor_index(self) -> int:
        return self._cursor_index

    @property
    def filter(self) -> str:
        return self._filter

    def keys(self) -> list[Hashable]:
        """The shown keys in order (O(rows): for tests and one-off use, not per frame)."""
        return [entry[1] for entry in self._rows]

    def __contains__(self, key: object) -> bool:
        return key in self._skeys

    def is_shown(self, key: Hashable) -> bool:
        return self.index_of(key) is not None

    def index_of(self, key: Hashable) -> int | None:
        skey = self._skeys.get(key)
        if skey is None:
            return None
        return self._rows.find(skey, key)

    @property
    def visible_rows(self) -> int:
        """How many data lines fit under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def visible_keys(self) -> list[Hashable]:
        top = int(self.scroll_y)
        return [entry[1] for entry in self._rows[top: top + self.visible_rows]]

    # ---------------------------------------------------------------- sort

    @property
    def sort(self) -> tuple[str, bool] | None:
        """(column key, descending) of the sort the user chose, or None for the table's own order."""
        return self._sort

    def _row_sort_key(self, key: Hashable) -> Any:
        own = self.source.sort_key(key)
        if self._sort is None:
            return own
        column, descending = self._sort
        value = self._sort_value(column, key)
        return (Descending(value) if descending else value, own)

    def _sort_keys(self, keys: Iterable[Hashable]) -> dict[Hashable, Any]:
        """_row_sort_key of many rows (a sort reads every row), the values through the source's bulk
        `sort_values(column, keys)` when it has one (NotImplemented: row by row, as `_sort_value`)."""
        own = self.source.sort_key
        if self._sort is None:
            return {key: own(key) for key in keys}
        column, descending = self._sort
        bulk = getattr(self.source, "sort_values", None)
        pairs = bulk(column, keys) if bulk is not None else NotImplemented
        if pairs is NotImplemented:  # (as sort_value, a source may leave a column to the cells)
            pairs = ((key, self._sort_value(column, key)) for key in keys)
        if descending:
            return {key: (Descending(value), own(key)) for key, value in pairs}
        return {key: (value, own(key)) for key, value in pairs}

    def _sort_value(self, column: str, key: Hashable) -> Any:
        by_source = getattr(self.source, "sort_value", None)
        if by_source is not None:
            value = by_source(column, key)
            if value is not NotImplemented:
                return value
        index = next(i for i, c in enumerate(self.columns) if c.key == column)
        cells = self.source.cells(key)
        cell = cells[index] if index < len(cells) else ""
        return natural_text_key(cell.plain if isinstance(cell, Text) else str(cell))

    def sort_by(self, column: str | None, descending: bool = False) -> None:
        """Order the rows by a column (None: the table's own order), keeping the cursor on its row.
        A one-off pass over every row, as k9s re-sorts its table."""
        sort = None if column is None else (column, descending)
        if column is not None and not any(c.key == column for c in self.columns):
            raise KeyError(column)
        self._sort = sort
        self._header_cache = None
        self.resort()

    def toggle_sort(self, column: str) -> None:
        """k9s: the column's key sorts ascending, pressed again descending, and so on."""
        if self._sort is not None and self._sort[0] == column:
            self.sort_by(column, not self._sort[1])
        else:
            self.sort_by(column, False)

    def resort(self) -> None:
        """Sort keys again (a sort by a column whose values change with time alone)."""
        if not self.source.readable():
            return
        with no_gc():  # 300,000 tuples that stay: the collector would walk them again and again
            skeys = self._skeys = self._sort_keys(self._skeys)
            entries = self._in_order([(skeys[entry[1]], *entry[1:]) for entry in self._all])
            self._all = SortedRows(entries)
        self._rebuild_rows()

    def _in_order(self, entries: list) -> list:
        """The entries sorted as they compare (SortedRows keeps them so). Sorted by a column, the same
        order comes from two stable sorts on plain keys: the rows' own sort keys (and their keys where
        those are equal), then the column's values (reversed for a descending sort). Python sorts a list of plain keys with comparisons made for
        their type; entries ((value, own key), key, ...) compare as nested tuples, and a Descending
        value in Python: a sort of 150,000 pods took 0.4-1.1 s that way."""
        if self._sort is None:
            entries.sort()
            return entries
        descending = self._sort[1]
        if getattr(self.source, "sort_key_is_key", False):
            entries.sort(key=_key)  # (the rows' own sort keys are their keys: all different)
        else:
            entries.sort(key=_own_key)
            if len(set(map(_own_key, entries))) < len(entries):
                entries.sort(key=_own_key_and_key)  # rows whose own keys are equal go by their keys
        entries.sort(key=_descending_value if descending else _value, reverse=descending)
        return entries

    @property
    def sort_volatile(self) -> bool:
        if self._sort is None:
            return False
        return any(c.key == self._sort[0] and c.volatile for c in self.columns)

    # ---------------------------------------------------------------- filter

    def _fresh_text(self, key: Hashable) -> str:
        return self.source.match_text(key).lower()

    def _needle(self) -> tuple[str, bool]:
        needle = self._filter
        negate = needle.startswith("!")
        return (needle[1:] if negate else needle), negate

    def _matches(self, key: Hashable) -> bool:
        needle, negate = self._needle()
        if not needle:
            return True
        return (needle in self._fresh_text(key)) != negate

    def set_filter(self, text: str) -> None:
        """Show only rows whose text contains `text` (case-insensitive; "!text" inverts). One substring
        test per row (per shown row while the text only grows), in the order rows are kept."""
        text = text.strip().lower()
        if text == self._filter:
            return
        old_needle, old_negate = self._needle()
        self._filter = text
        needle, negate = self._needle()
        narrowing = self._stable and bool(old_needle) and not old_negate and not negate and old_needle in needle
        self._rebuild_rows(narrowing)

    # ---------------------------------------------------------------- changes

    def replace_all(self, keys: Iterable[Hashable], keep_widths: bool = False) -> None:
        """Set the rows from scratch (loading a scenario; `keep_widths`: a log whose rows were mostly
        replaced, whose columns keep fitting what they showed). Not for per-tick use."""
        if not keep_widths:
            for column in self.columns:
                column.width = column.min_width
            self._header_cache = None
            self._natural.clear()
        with no_gc():
            self._skeys = self._sort_keys(keys)
            if self._stable:
                texts = self._texts = dict(self._source_texts(self._skeys))
                entries = [(skey, key, texts[key]) for key, skey in self._skeys.items()]
            else:
                entries = [(skey, key) for key, skey in self._skeys.items()]
            self._all = SortedRows(self._in_order(entries))
        self._rebuild_rows()

    def _source_texts(self, keys: Iterable[Hashable]) -> Iterator[tuple[Hashable, str]]:
        """(key, lowered match text), through the source's bulk `match_texts` when it has one."""
        bulk = getattr(self.source, "match_texts", None)
        pairs = bulk(keys) if bulk is not None else ((key, self.source.match_text(key)) for key in keys)
        for key, text in pairs:
            yield key, text.lower()

    def _rebuild_rows(self, narrowing: bool = False) -> None:
        """The shown rows from every row (or from the shown ones when the filter only narrowed) through
        the filter, keeping the cursor's row where it can."""
        needle, negate = self._needle()
        with self._keep_place():
            if not needle:
                self._rows = self._all
            elif self._stable and negate:
                rows = self._rows if narrowing else self._all
                self._rows = SortedRows([entry for entry in rows if needle not in entry[2]])
            elif self._stable:
                self._rows = self._matching(self._rows if narrowing else None, needle)
            else:
                text = self._fresh_text
                self._rows = SortedRows([entry for entry in self._all if (needle in text(entry[1])) != negate])
        self._invalidate_all()

    def _matching(self, shown: SortedRows | None, needle: str) -> SortedRows:
        """The rows whose kept text holds `needle`, of the shown ones or (None) of every row. When
        the rows spread over the order say few of many will, they are found in the texts by key and
        put in order: a dict's strings lie in the order they were made, while the rows' tuples are
        all over the heap (kept sorted as rows came and went), and reading 150,000 of them costs
        more than the substring tests (31 ms against 10 for the same 150,000 tests, 3,000 found)."""
        if shown is None:
            sample = self._all.spread()
            if sum(needle in entry[2] for entry in sample) * FEW <= len(sample):
                texts = self._texts
                found = [key for key, text in texts.items() if needle in text]
                if len(found) * FEW <= len(self._all):
                    skeys = self._skeys
                    return SortedRows(self._in_order([(skeys[key], key, texts[key]) for key in found]))
        rows = self._all if shown is None else shown
        return SortedRows([entry for entry in rows if needle in entry[2]])

    def _set_entries(self, entries: dict[Hashable, tuple]) -> None:
        """Replace the entries of these rows (new texts) in every row and in the shown rows."""
        lists = [self._all] if self._rows is self._all else [self._all, self._rows]
        for rows in lists:
            # A pass over 150,000 rows costs about as much as 4,000 bisects.
            if len(entries) > max(BULK, len(rows) // 32):
                rows.replace(entries)
            else:
                for key, entry in entries.items():
                    index = rows.find(entry[0], key)
                    if index is not None:
                        rows[index] = entry

    def upsert(self, keys: Iterable[Hashable]) -> None:
        """Rows that appeared or changed: new ones are inserted in order, changed ones re-rendered
        (and re-filtered, and their match texts made again). Costs the rows named, not the table
        (a pass over the rows when more than BULK texts changed)."""
        keys = list(dict.fromkeys(keys))  # each key once, in order
        needle, negate = self._needle()
        filtering = bool(needle)
        stable = self._stable
        texts = dict(self._source_texts(keys)) if stable else None
        texts_now = self._texts
        add_all: list[tuple] = []
        add: list[tuple] = []
        drop: list[tuple] = []
        moved: list[tuple] = []  # (old sort key, key) of rows whose sort value changed
        changed: dict[Hashable, tuple] = {}
        rows = self._rows
        by_column = self._sort is not None
        for key in keys:
            self._forget(key)
            skey = self._skeys.get(key)
            new = skey is None
            if new:
                skey = self._skeys[key] = self._row_sort_key(key)
            elif by_column:
                fresh = self._row_sort_key(key)
                if fresh != skey:
                    # The row moves: out of its old place, in again as if new.
                    moved.append((skey, key))
                    if filtering and rows.find(skey, key) is not None:
                        drop.append((skey, key))
                    skey = self._skeys[key] = fresh
                    new = True
            if stable:
                text = texts[key]  # type: ignore[index]
                entry = (skey, key, text)
            else:
                text = self._fresh_text(key) if filtering else ""
                entry = (skey, key)
            if new:
                if stable:
                    texts_now[key] = text
                add_all.append(entry)
                if filtering and (needle in text) != negate:
                    add.append(entry)
                continue
            if stable:
                if texts_now.get(key) == text:
                    continue  # the same sort key and text: the entry stands
                texts_now[key] = text
                changed[key] = entry
            if filtering:
                index = rows.find(skey, key)
                match = (needle in text) != negate
                if match and index is None:
                    add.append(entry)
                elif not match and index is not None:
                    drop.append(entry)
        if changed:
            self._set_entries(changed)
        if add_all or add or drop:
            with self._keep_place():
                self._all.remove(moved)
                self._all.insert(add_all)
                if filtering:
                    self._rows.remove(drop)
                    self._rows.insert(add)
        elif keys:
            self._repaint()

    def remove(self, keys: Iterable[Hashable]) -> None:
        drop = []
        for key in keys:
            skey = self._skeys.pop(key, None)
            self._texts.pop(key, None)
            self._forget(key, hold=False)
            if skey is not None:
                drop.append((skey, key))
        if drop:
            with self._keep_place():
                self._all.remove(drop)
                if self._rows is not self._all:
                    self._rows.remove(drop)

    @contextmanager
    def _keep_place(self) -> Iterator[None]:
        """Keep the cursor on its row and that row on its screen line across a change; follow the
        tail when asked to."""
        old_count = len(self._rows)
        at_tail = self.follow_tail and (old_count == 0 or (
            self._cursor_index >= old_count - 1 and self.scroll_y >= self.max_scroll_y))
        cursor_key = self._cursor_key
        old_index = self._cursor_index
        screen_line = old_index - int(self.scroll_y)
        yield
        count = len(self._rows)
        if at_tail and count:
            self._cursor_index = count - 1
        else:
            index = self.index_of(cursor_key) if cursor_key is not None else None
            self._cursor_index = min(old_index, count - 1) if index is None else index
        self._cursor_index = max(0, self._cursor_index)
        self._cursor_key = self._rows[self._cursor_index][1] if count else None
        self._update_virtual_size()
        if at_tail:
            self._set_top(max(0, count + 1 - self.scrollable_content_region.height))
        elif 0 <= screen_line < self.visible_rows:
            self._set_top(max(0, min(self._cursor_index - screen_line, self._max_top())))
        self._post_cursor()
        self._repaint()

    def _set_top(self, top: int) -> None:
        """Scroll so that row `top` is the first shown, without the scroll watchers (whose repaint of
        the whole table this table does line by line); the scrollbar's thumb follows, as the
        watchers would have moved it."""
        self.set_scroll(None, top)
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    def _max_top(self) -> int:
        return max(0, len(self._rows) + 1 - self.scrollable_content_region.height)

    def invalidate(self, keys: Iterable[Hashable] | None = None) -> None:
        """These rows' cells may have changed (all rows' when keys is None: time moved): the visible
        ones are read again and only the lines whose cells changed are repainted."""
        if keys is None:
            self._repaint(recheck=True)
            return
        # Only rows read or painted since have anything to forget: 30,000 pods of a zone going
        # NotReady cost the few on screen, not a call each.
        read = self._cache.keys() | self._sigs.keys() | self._fresh.keys()
        for key in read.intersection(keys):
            self._forget(key)
        self._repaint()

    def _forget(self, key: Hashable, hold: bool = True) -> None:
        """Read this row again before painting it. Its last painted line is kept (`hold`) for a row
        that may still be on screen: if only its times changed and the repaint holds them
        (_repaint_changed), or while the engine is busy (_row_strip). A view hands the engine's
        changes over before it says whether this frame holds times."""
        strip = self._cache.pop(key, None)
        held = self._held
        if hold and strip is not None:
            if len(held) > 4 * max(self.visible_rows, 16):
                held.clear()  # lines of rows long gone from the screen
            held[key] = strip
        elif not hold:
            held.pop(key, None)
        self._sigs.pop(key, None)
        self._fresh.pop(key, None)

    def _invalidate_all(self) -> None:
        """Every line again (column widths, size or style changed): a repaint of the whole table."""
        self._cache.clear()
        self._sigs.clear()
        self._fresh.clear()
        self._held.clear()
        self.refresh()

    def _repaint(self, recheck: bool = False) -> None:
        """Repaint the lines whose row, cursor or cells changed, once per burst of changes. Textual
        re-renders every line of a widget refreshed whole (styles, filters: about 0.3 ms a line), and a
        table at ×1000 changes a few rows per frame, or none."""
        self._recheck |= recheck
        if not self._repaint_pending:
            self._repaint_pending = True
            self.call_later(self.flush_repaint)

    def flush_repaint(self) -> None:
        """Read now the rows a repaint waits for (the app calls this at the end of a frame, while the
        engine is idle: a repaint left for later may find it busy again)."""
        if self._repaint_pending:
            self._repaint_changed()

    def _repaint_changed(self) -> None:
        self._repaint_pending = False
        recheck, self._recheck = self._recheck, False
        if not self.is_mounted or not self.size:
            # The layout that gives it a size paints it, but a table shown again keeps the lines it
            # had: its next paint reads the rows again if time moved meanwhile (render_lines).
            self._recheck_when_shown |= recheck
            return
        if not self.source.readable():
            self.refresh()  # the lines as last painted now; the frame after the engine's step repaints
            return
        rows = self._rows
        top = int(self.scroll_y)
        cursor = self._cursor_index
        sigs, painted = self._sigs, self._painted
        visible = set()
        width = max(self.virtual_size.width, self.size.width)
        for line in range(1, self.visible_rows + 1):
            index = top + line - 1
            state = None
            if index < len(rows):
                key = rows[index][1]
                visible.add(key)
                sig = sigs.get(key)
                if recheck or sig is None:
                    cells = self.source.cells(key)
                    fresh = cell_signature(cells)
                    if fresh != sig:
                        shown = painted.get(line)
                        held = self._held.get(key) if self.hold_time else None
                        if held is not None and shown and shown[:2] == (key, index == cursor) \
                                and self._only_times_differ(shown[2], fresh):
                            # the line stays as painted until times are due
                            self._cache[key] = held
                            sigs[key] = sig = shown[2]
                        else:
                            self._cache.pop(key, None)
                            self._fresh[key] = cells
                            sigs[key] = sig = fresh
                state = (key, index == cursor, sig)
            if painted.get(line) != state:
                self.refresh(Region(0, line, width, 1))
        if recheck:  # rows off screen are read again when they scroll into view
            for key in [k for k in self._cache if k not in visible]:
                self._forget(key, hold=False)

    def _only_times_differ(self, old: tuple, new: tuple) -> bool:
        timed = self._timed
        return bool(timed) and len(old) == len(new) and all(
            a == b for i, (a, b) in enumerate(zip(old, new)) if i not in timed)

    def render_lines(self, crop):
        if self._recheck_when_shown and self.size:
            # Shown again: its first paint reads the rows time changed (a Show or Resize handled
            # after that paint would leave the old lines on screen for a frame).
            self._recheck_when_shown = False
            self._recheck = True
            self._repaint_changed()
        # The widget's style walks its ancestors each time it is read: once a paint, not twice a line.
        self._line_style = self.rich_style
        try:
            lines = super().render_lines(crop)
        finally:
            self._line_style = None
        self._fit_widths()
        return lines

    def _fit_widths(self) -> None:
        """Columns as wide as their widest cell on screen (within their bounds): a column widened by a
        long value narrows again once no visible row needs it (k9s sizes columns from the rows)."""
        natural = self._natural
        widths = [max(c.min_width, cell_len(self.header_label(c))) for c in self.columns]
        for key in self.visible_keys():
            row = natural.get(key)
            if row is None:
                return  # not rendered yet (the engine was busy): fit at the next paint
            for i, width in enumerate(row[:len(widths)]):
                if width > widths[i]:
                    widths[i] = width
        changed = False
        for column, width in zip(self.columns, widths):
            width = min(width, max(column.max_width, column.min_width))
            if not column.flex and width != column.width:
                column.width = width
                changed = True
        if changed:
            self._header_cache = None
            self._update_virtual_size()
            self.call_later(self._invalidate_all)

    # ---------------------------------------------------------------- cursor

    def move_cursor(self, index: int, *, scroll: bool = True) -> None:
        count = len(self._rows)
        if not count:
            self._cursor_index, self._cursor_key = 0, None
            self._post_cursor()
            return
        index = max(0, min(index, count - 1))
        self._cursor_index = index
        self._cursor_key = self._rows[index][1]
        if scroll:
            self._scroll_to_cursor()
        self._post_cursor()
        self._repaint()  # two lines when the view did not scroll (a scroll repaints it whole)

    def select_key(self, key: Hashable) -> bool:
        index = self.index_of(key)
        if index is None:
            return False
        self.move_cursor(index)
        return True

    def _scroll_to_cursor(self) -> None:
        top = int(self.scroll_y)
        rows = self.visible_rows
        if self._cursor_index < top:
            self._set_top(self._cursor_index)
        elif self._cursor_index >= top + rows:
            self._set_top(self._cursor_index - rows + 1)

    def _post_cursor(self) -> None:
        if self._cursor_key != self._last_posted:
            self._last_posted = self._cursor_key
            self.post_message(self.CursorMoved(self, self._cursor_key))

    def action_cursor_up(self) -> None:
        self.move_cursor(self._cursor_index - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self._cursor_index + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self._cursor_index - self.visible_rows)

    def action_page_down(self) -> None:
        self.move_cursor(self._cursor_index + self.visible_rows)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self._rows) - 1)
        self._set_top(self._max_top())

    def action_scroll_left(self) -> None:
        self.scroll_to(x=self.scroll_x - 8, animate=False)

    def action_scroll_right(self) -> None:
        self.scroll_to(x=self.scroll_x + 8, animate=False)

    def key_enter(self) -> None:
        if self._cursor_key is not None:
            self.post_message(self.Activated(self, self._cursor_key))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = int(self.scroll_y) + offset.y - 1
        if index < len(self._rows):
            self.move_cursor(index, scroll=False)
            if event.chain == 2 and self._cursor_key is not None:
                self.post_message(self.Activated(self, self._cursor_key))

    # ---------------------------------------------------------------- layout

    def _column_widths(self) -> list[int]:
        widths = [c.width for c in self.columns]
        pad = 2 * self.cell_padding
        total = sum(widths) + pad * len(widths)
        room = self.scrollable_content_region.width
        flex = [i for i, c in enumerate(self.columns) if c.flex]
        if flex:
            last = flex[-1]
            # Short of room (a narrow terminal, or the vertical scrollbar's two cells), the flex
            # column gives up its minimum down to its label before the table scrolls sideways.
            widths[last] = max(widths[last] + room - total, flex_floor(self.columns[last]))
        return widths

    def _update_virtual_size(self) -> None:
        pad = 2 * self.cell_padding
        # a flex column counts at its floor: it shrinks to fit before a horizontal scrollbar shows
        width = sum((flex_floor(c) if c.flex else c.width) + pad for c in self.columns)
        # In a zone outage pods come and go every frame: no layout of the screen for that, and no
        # paint of the whole table either (28 lines at 0.3 ms each, most frames): the rows and their
        # count are changed under _keep_place, whose _repaint compares each screen line with what it
        # painted there and repaints those that differ.
        set_virtual_size(self, Size(width, len(self._rows) + 1), repaint=False)

    def on_resize(self, event: events.Resize) -> None:
        self._update_virtual_size()
        # A view shown again gets a Resize of the size it had: its lines stand (a second paint of the
        # whole table on every view switch otherwise).
        if event.size == self._lines_size:
            return
        self._lines_size = event.size
        self._header_cache = None
        self._invalidate_all()

    def on_mount(self) -> None:
        self._update_virtual_size()

    def on_show(self) -> None:
        # Its content may have changed while hidden, without a layout (`keeps_its_box`).
        if self.container_size:
            self._scroll_update(self.virtual_size)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # A restyle that leaves the table's own style as it was (its cursor's, which is drawn over
        # the cached lines as they are painted) keeps the lines: only a change of the table's own
        # style (a theme) reads and renders every row on screen again.
        self._header_cache = None
        style = self.rich_style
        if style == self._lines_style:
            return
        self._lines_style = style
        self._cache.clear()
        self._held.clear()

    def watch_has_focus(self, has_focus: bool) -> None:
        """Textual restyles a widget whose focus changed; this table is not restyled: no rule of
        its CSS reads :focus (the cursor's focused look is a component class, picked in
        _cursor_post_style), and the restyle of the two tables on every view switch cost about a
        fifth of its UI time. Widget._on_focus and _on_blur repaint the table."""

    # ---------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self._line_style or self.rich_style
        if y == 0:
            return self._header_strip().crop_extend(scroll_x, scroll_x + width,
                                                    self.get_component_rich_style("vtable--header"))
        index = scroll_y + y - 1
        if index >= len(self._rows):
            self._painted[y] = None
            return Strip.blank(width, base)
        strip = self._row_strip(index)
        key = self._rows[index][1]
        # A placeholder (the engine was busy) is painted as nothing a row can equal.
        self._painted[y] = (key, index == self._cursor_index, self._sigs[key]) if key in self._cache else ()
        if index == self._cursor_index:
            return strip.crop_extend(scroll_x, scroll_x + width, base + self._cursor_post_style())
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _header_strip(self) -> Strip:
        if self._header_cache is None:
            style = self.get_component_rich_style("vtable--header")
            cells = [Text(self.header_label(c), end="") for c in self.columns]
            self._header_cache = self._render_cells(cells, style, measure=False)
        return self._header_cache

    def header_label(self, column: Column) -> str:
        """The column's label, with k9s' arrow on the sort column."""
        if self._sort is not None and self._sort[0] == column.key:
            return column.label + ("↓" if self._sort[1] else "↑")
        return column.label

    def _row_strip(self, index: int) -> Strip:
        key = self._rows[index][1]
        is_cursor = index == self._cursor_index
        cached = self._cache.get(key)
        if cached is None:
            # Cells read while the engine was idle render whenever the paint comes; otherwise read them
            # now if the engine is idle, else show the line as last painted (the next frame updates it).
            cells = self._fresh.pop(key, None)
            if cells is None and self.source.readable():
                cells = self.source.cells(key)
            if cells is not None:
                sig = cell_signature(cells)
                cached = self._render_cells(cells, self._line_style or self.rich_style)
                self.render_count += 1
                if len(self._cache) > 4 * max(self.visible_rows, 16):
                    self._cache.clear()
                    self._sigs.clear()
                    self._fresh.clear()
                    self._natural.clear()
                    self._held.clear()
                self._cache[key] = cached
                self._sigs[key] = sig
                self._held.pop(key, None)  # painted afresh: an older line is no longer what shows
                self._natural[key] = tuple(c.cell_len if isinstance(c, Text) else cell_len(str(c)) for c in cells)
            elif key in self._held:
                cached = self._held[key]
            else:
                # The engine is busy in its thread: show the key until the next frame fills it in.
                style = self.get_component_rich_style("vtable--placeholder")
                return self._render_cells([Text(str(key), end=""), "…"], style, measure=False)
        if is_cursor:
            return Strip(Segment.apply_style(cached, post_style=self._cursor_post_style()), cached.cell_length)
        return cached

    def _cursor_post_style(self) -> Style:
        """The cursor's background (and boldness) over the cells' own colours."""
        cursor = self.get_component_rich_style("vtable--cursor-focused" if self.has_focus else "vtable--cursor")
        return Style(bgcolor=cursor.bgcolor, bold=cursor.bold)

    def _render_cells(self, cells: Sequence["str | Text"], base: Style, measure: bool = True) -> Strip:
        console = self.app.console
        columns = self.columns
        if measure:
            for column, cell in zip(columns, cells):
                if column.flex:
                    continue  # takes the room left over; longer text is cut with an ellipsis
                length = cell.cell_len if isinstance(cell, Text) else cell_len(cell)
                if length > column.width and column.width < column.max_width:
                    column.width = min(length, column.max_width)
                    self._widths_grew = True
            if self._widths_grew:
                self._widths_grew = False
                self._header_cache = None
                self._update_virtual_size()
                self.call_later(self._invalidate_all)
        widths = self._column_widths()
        pad = " " * self.cell_padding
        segments: list[Segment] = []
        for column, width, cell in zip(columns, widths, cells):
            segments.append(Segment(pad))
            if isinstance(cell, Text):
                text = cell
                if text.cell_len > width:
                    text = text.copy()
                    text.truncate(width, overflow="ellipsis")
                gap = width - text.cell_len
                if column.justify == "right" and gap > 0:
                    segments.append(Segment(" " * gap))
                segments.extend(text_segments(text, console))
                if column.justify != "right" and gap > 0:
                    segments.append(Segment(" " * gap))
            else:
                text = str(cell)
                length = cell_len(text)
                if length > width:
                    text = set_cell_size(text, max(0, width - 1)) + "…" if width > 0 else ""
                elif column.justify == "right":
                    text = " " * (width - length) + text
                else:
                    text = text + " " * (width - length)
                segments.append(Segment(text))
            segments.append(Segment(pad))
        # Columns missing from `cells` render blank.
        for column, width in list(zip(columns, widths))[len(cells):]:
            segments.append(Segment(" " * (width + 2 * self.cell_padding)))
        # Fewer, longer segments: Textual works per segment on every line it paints.
        segments = list(Segment.simplify(Segment.apply_style(segments, base)))
        return Strip(segments)


def cell_signature(cells: Sequence["str | Text"]) -> tuple:
    """What a row's rendering depends on: its cells' texts and styles (two rows with the same
    signature render to the same line)."""
    return tuple(cell if isinstance(cell, str) else (cell.plain, cell.style, tuple(cell.spans)) for cell in cells)


def text_segments(text: Text, console) -> list[Segment]:
    """A Text's segments with its own style. `Text.render` drops the style of a Text without spans
    (it yields the bare string), which lost every cell colour."""
    if text.spans or not text.style:
        return list(text.render(console))
    return [Segment(text.plain, console.get_style(text.style))]


_DIGITS = re.compile(r"(\d+)")


def natural_text_key(text: str) -> tuple:
    """A cell's text as a sort value: "a-2" before "a-10", "9" before "10"."""
    return tuple((1, int(part)) if i % 2 else (0, part) for i, part in enumerate(_DIGITS.split(text)) if part != "")
