"""The virtual table: rows by key in order, the cursor stays on its row, only visible lines render."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings, strategies as st
from textual.app import App, ComposeResult

from playground.tui.widgets.vtable import Column, Descending, VirtualTable


class Source:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.reads = 0
        self.idle = True

    def readable(self) -> bool:
        return self.idle

    def sort_key(self, key):
        return key

    def cells(self, key):
        self.reads += 1
        return [key, self.values.get(key, "")]

    def match_text(self, key):
        return f"{key} {self.values.get(key, '')}"


class TableApp(App):
    def __init__(self, follow: bool = False) -> None:
        super().__init__()
        self.source = Source()
        self.follow = follow
        self.moves: list = []

    def compose(self) -> ComposeResult:
        yield VirtualTable([Column("name", "NAME", 8, 20), Column("value", "VALUE", 10, 40, flex=True)],
                           self.source, follow_tail=self.follow, id="t")

    def on_virtual_table_cursor_moved(self, event: VirtualTable.CursorMoved) -> None:
        self.moves.append(event.key)


def keys(n: int, prefix: str = "row") -> list[str]:
    return [f"{prefix}-{i:05d}" for i in range(n)]


async def test_rows_sorted_and_cursor_stays_on_its_row_when_rows_come_above():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(["b", "d", "f"])
        table.move_cursor(1)
        assert table.cursor_key == "d"
        table.upsert(["a", "c"])
        await pilot.pause()
        assert table.keys() == ["a", "b", "c", "d", "f"]
        assert table.cursor_key == "d" and table.cursor_index == 3
        table.remove(["a", "b"])
        assert table.cursor_key == "d" and table.cursor_index == 1
        table.remove(["d"])  # the cursor's row goes: the cursor stays at its index
        assert table.cursor_key == "f"


async def test_selected_row_keeps_its_screen_line_when_rows_are_inserted_above():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(200))
        await pilot.pause()
        table.select_key("row-00100")
        await pilot.pause()
        line = table.cursor_index - int(table.scroll_y)
        table.upsert(keys(50, "aaa"))  # sorts before every "row-"
        await pilot.pause()
        assert table.cursor_key == "row-00100"
        assert table.cursor_index == 150
        assert table.cursor_index - int(table.scroll_y) == line


async def test_only_visible_lines_are_read_from_the_source():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(100_000))
        await pilot.pause()
        assert table.row_count == 100_000
        # 12 lines high: a header and 11 rows; the source was asked for about a screenful, not 100,000.
        assert 0 < app.source.reads <= 40
        before = app.source.reads
        table.upsert(["row-99999"])  # a change far below the screen costs no read
        await pilot.pause()
        table.invalidate()
        await pilot.pause()
        assert app.source.reads - before <= 40


async def test_engine_busy_shows_placeholders_without_reading():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        app.source.idle = False
        table.upsert(keys(5))
        await pilot.pause()
        assert app.source.reads == 0
        line = table.render_line(1).text
        assert line.lstrip().startswith("row-000") and "…" in line  # the key, cut to its column
        app.source.idle = True
        table.invalidate()
        await pilot.pause()
        assert app.source.reads > 0


async def test_filter_and_inverted_filter():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        app.source.values = {"a": "red", "b": "green", "c": "red"}
        table.upsert(["a", "b", "c"])
        table.set_filter("RED")
        assert table.keys() == ["a", "c"] and table.total_count == 3
        table.set_filter("!red")
        assert table.keys() == ["b"]
        # A row that changes is filtered again.
        app.source.values["b"] = "red"
        table.upsert(["b"])
        assert table.keys() == []
        table.set_filter("")
        assert table.keys() == ["a", "b", "c"]


async def test_bulk_changes_merge_in_order():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(1000)[::2])
        table.upsert(keys(1000)[1::2])
        assert table.keys() == keys(1000)
        table.remove(keys(1000)[:900])
        assert table.keys() == keys(1000)[900:]


async def test_follow_tail_unless_scrolled_up():
    app = TableApp(follow=True)
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(50))
        await pilot.pause()
        assert table.cursor_key == "row-00049"
        table.upsert(["row-00050", "row-00051"])
        await pilot.pause()
        assert table.cursor_key == "row-00051"
        assert table.scroll_y == table.max_scroll_y
        table.focus()
        await pilot.press("up", "up", "up")
        assert table.cursor_key == "row-00048"
        top = table.scroll_y
        table.upsert(["row-00052"])
        await pilot.pause()
        assert table.cursor_key == "row-00048" and table.scroll_y == top
        await pilot.press("end")  # back to the tail: following again
        table.upsert(["row-00053"])
        await pilot.pause()
        assert table.cursor_key == "row-00053"


async def test_keys_move_the_cursor_and_post_messages():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(100))
        table.focus()
        await pilot.pause()
        await pilot.press("down", "down")
        assert table.cursor_key == "row-00002"
        await pilot.press("pagedown")
        assert table.cursor_index == 2 + table.visible_rows
        await pilot.press("end")
        assert table.cursor_key == "row-00099"
        await pilot.press("home")
        assert table.cursor_key == "row-00000"
        await pilot.pause()
        assert app.moves[-1] == "row-00000"
        assert "row-00002" in app.moves


async def test_a_cell_styled_without_spans_keeps_its_colour():
    """Text("66s", style="bold red") has a style and no spans: it must render red, not plain."""
    from rich.text import Text

    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        app.source.values["a"] = "x"
        original = app.source.cells
        app.source.cells = lambda key: [Text(key, style="bold red", end=""), original(key)[1]]
        table.upsert(["a", "b"])
        table.move_cursor(1)
        await pilot.pause()
        segments = list(table._row_strip(0))
        styled = [s for s in segments if s.text.strip() == "a"]
        assert styled and styled[0].style.color is not None and styled[0].style.color.name == "red"
        assert styled[0].style.bold


async def test_a_column_narrows_again_when_the_long_value_is_gone_and_after_a_reload():
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        name = table.columns[0]
        table.upsert(["a", "b"])
        await pilot.pause()
        assert name.width == 8
        app.source.cells = lambda key, cells=app.source.cells: (
            [key * 18, ""] if key == "a" else cells(key))
        table.upsert(["a"])
        await pilot.pause()
        await pilot.pause()
        assert name.width == 18
        del app.source.cells  # back to the class's method: short names again
        table.upsert(["a"])
        await pilot.pause()
        await pilot.pause()
        assert name.width == 8
        app.source.cells = lambda key: [key * 18, ""]
        table.upsert(["a"])
        await pilot.pause()
        await pilot.pause()
        assert name.width == 18
        del app.source.cells
        table.replace_all(["c"])
        assert name.width == 8


async def test_short_of_room_the_flex_column_narrows_to_its_label_before_the_table_scrolls_sideways():
    # NAME (9: "row-00000") and VALUE (flex, at least 10) with a cell of padding each side need 23
    # cells; VALUE's floor is its label and a sort arrow (6); the vertical scrollbar takes 2.
    for width, floor_fits in ((25, True), (24, True), (21, True), (20, False)):
        app = TableApp()
        async with app.run_test(size=(width, 12)) as pilot:
            table = app.query_one(VirtualTable)
            table.upsert(keys(100))
            await pilot.pause()
            await pilot.pause()
            room = table.scrollable_content_region.width
            name, value = table._column_widths()
            assert table.show_vertical_scrollbar and room == width - 2 and name == 9
            assert value == max(room - name - 4, len("VALUE") + 1)
            assert table.show_horizontal_scrollbar is not floor_fits
            if floor_fits:  # the whole row shows: NAME, then VALUE as wide as the room left
                assert len(table._row_strip(0).text) == room


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 400)), unique_by=lambda e: e[1], max_size=300),
       st.data())
def test_rows_go_in_and_out_in_sorted_place(pairs, data):
    """A table's rows (SortedRows) take rows in and out as sorting and filtering would, kept in blocks
    of a few rows (splits and emptied blocks) or of many."""
    from playground.tui.widgets.sortedrows import SortedRows

    entries = sorted(pairs)
    split = data.draw(st.integers(0, len(entries)))
    order = data.draw(st.permutations(range(len(entries))))
    present = [entries[i] for i in sorted(order[:split])]
    added = [entries[i] for i in order[split:]]
    gone = data.draw(st.lists(st.sampled_from(present), max_size=len(present))) if present else []
    block = data.draw(st.sampled_from([1, 2, 3, 64]))
    grown = SortedRows(present, block)
    grown.insert(list(added))
    shrunk = SortedRows(present, block)
    shrunk.remove(list(gone))
    assert list(grown) == sorted(present + added)
    assert list(shrunk) == [entry for entry in present if entry not in gone]


class ValueSource(Source):
    """Rows with a value to sort by (ties likely); `bulk` gives the values as the pods' source does."""

    def __init__(self, bulk: bool, own_ties: bool = False) -> None:
        super().__init__()
        self.numbers: dict[str, object] = {}
        if bulk:
            self.sort_values = lambda column, keys: (
                ((key, self.sort_value(column, key)) for key in keys) if column == "value" else NotImplemented)
        if own_ties:  # rows whose own sort keys are equal (natural_key("a-01") == natural_key("a-1"))
            self.sort_key = lambda key: key[:1]
        else:
            self.sort_key_is_key = bulk  # the Pods view's source says so: one pass less

    def sort_value(self, column, key):
        return (0, self.numbers[key]) if column == "value" else NotImplemented


async def sorted_like_the_plain_order(values: dict[str, object], descending: bool, bulk: bool,
                                      changes: dict[str, object], own_ties: bool) -> None:
    app = TableApp()
    source = app.source = ValueSource(bulk, own_ties)
    async with app.run_test(size=(60, 12)):
        table = app.query_one(VirtualTable)
        table.source = source
        source.numbers.update(values)
        table.upsert(list(values))
        table.sort_by("value", descending)

        def plain(descending: bool) -> list[str]:
            # the rows' entries as the table compares them, sorted by Python's tuple comparison
            wrap = Descending if descending else (lambda v: v)
            return sorted(values, key=lambda k: (wrap((0, source.numbers[k])), source.sort_key(k), k))

        assert table.keys() == plain(descending)
        source.numbers.update(changes)  # rows that move afterwards go in by bisection
        table.upsert(list(changes))
        assert table.keys() == plain(descending)
        table.sort_by("value", not descending)  # sorted again from another order than the own one
        assert table.keys() == plain(not descending)
        table.sort_by("name", True)  # then from the keys' reverse order
        table.sort_by("value", descending)
        assert table.keys() == plain(descending)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text("abc", min_size=1, max_size=4), st.integers(0, 3), max_size=40),
       st.booleans(), st.booleans(), st.booleans(), st.data())
def test_a_sort_orders_rows_as_their_entries_compare(values, descending, bulk, own_ties, data):
    """The one-off sort (the source's bulk values, stable sorts of plain keys) orders the rows as
    sorting their entries ((value or Descending(value), own sort key), key) does."""
    changes = data.draw(st.dictionaries(st.sampled_from(sorted(values)), st.integers(0, 3))) if values else {}
    asyncio.run(sorted_like_the_plain_order(values, descending, bulk, changes, own_ties))
