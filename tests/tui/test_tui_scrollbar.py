"""Scrollbars that draw again only when what they show changes (widgets/scrollbar.py): the lines they
return are always what Textual's own ScrollBar draws for the same state."""

from __future__ import annotations

import asyncio
import os

from hypothesis import given, settings, strategies as st
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.widget import Widget

from playground.tui.widgets.scrollbar import SteadyScrollBar, _thumb
from playground.tui.widgets.vtable import VirtualTable

from test_tui_vtable import TableApp, keys

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "12"))


def fresh(bar: ScrollBar) -> list:
    """What Textual's ScrollBar draws for the bar's state now, nothing kept from before."""
    bar.refresh()  # (drops the styles cache's lines)
    return Widget.render_lines(bar, bar.size.region)


def bar_segments(size, virtual, window, position, vertical=True):
    return list(ScrollBarRender.render_bar(size=size, virtual_size=virtual, window_size=window, position=position,
                                           vertical=vertical).segments)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 60), st.integers(1, 200_000), st.integers(0, 60), st.floats(0, 1),
       st.integers(-40, 40), st.floats(-0.01, 0.01), st.booleans())
def test_a_bar_whose_thumb_is_in_the_same_place_draws_the_same(size, virtual, window, at, more, moved, vertical):
    """Two bars of one size whose thumbs `_thumb` places alike draw the same segments: a table whose
    row count moves by a few rows, or whose window moves a little, keeps its bar."""
    def params(virtual, at):
        virtual = max(1, virtual)
        top = max(0, virtual - window)
        return virtual, window, min(top, max(0.0, at * top))

    first = params(virtual, at)
    second = params(virtual + more, at + moved)
    try:
        places = _thumb(size, *first), _thumb(size, *second)
    except ZeroDivisionError:  # (render_bar cannot draw those either)
        return
    if places[0] == places[1]:
        assert bar_segments(size, *first, vertical) == bar_segments(size, *second, vertical)


async def scrolled_table_matches_textual(actions: list[tuple[str, int]]) -> None:
    app = TableApp()
    async with app.run_test(size=(60, 14)) as pilot:
        table = app.query_one(VirtualTable)
        rows = keys(200)
        table.upsert(rows)
        await pilot.pause()
        bar = table.vertical_scrollbar
        assert isinstance(bar, SteadyScrollBar)
        for what, amount in actions:
            if what == "add":
                new = keys(amount, prefix=f"add{len(rows)}")
                rows += new
                table.upsert(new)
            elif what == "remove" and len(rows) > amount:
                gone, rows = rows[:amount], rows[amount:]
                table.remove(gone)
            elif what == "cursor":
                table.move_cursor(min(amount * 7, len(rows) - 1))
            await pilot.pause()
            if not table.show_vertical_scrollbar:
                continue  # all rows fit: the bar is hidden, and Textual leaves its sizes as they were
            assert (bar.window_virtual_size, bar.position) == (table.virtual_size.height, table.scroll_y)
            shown = bar.render_lines(bar.size.region)  # kept or drawn
            assert shown == fresh(bar)
            assert bar.render_lines(bar.size.region) == shown


ACTIONS = st.tuples(st.sampled_from(["add", "remove", "cursor"]), st.integers(1, 60))


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(ACTIONS, min_size=1, max_size=10))
def test_a_tables_scrollbar_shows_what_textuals_would_draw(actions):
    asyncio.run(scrolled_table_matches_textual(actions))


async def test_the_bar_draws_again_when_its_thumb_moves_or_its_colours_change(monkeypatch):
    app = TableApp()
    async with app.run_test(size=(60, 14)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(5000))
        await pilot.pause()
        bar = table.vertical_scrollbar
        draws = []
        plain = ScrollBar.render_lines

        def counted(self, crop):
            draws.append(crop)
            return plain(self, crop)

        monkeypatch.setattr(ScrollBar, "render_lines", counted, raising=False)
        first = bar.render_lines(bar.size.region)
        table.upsert(keys(3, prefix="more"))  # 5,003 rows: the thumb stays where it was
        await pilot.pause()
        assert bar.render_lines(bar.size.region) == first and not draws
        table.move_cursor(4000)  # the thumb moves
        await pilot.pause()
        moved = bar.render_lines(bar.size.region)
        assert len(draws) == 1 and moved != first
        app.theme = "textual-light"  # same place, other colours
        await pilot.pause()
        light = bar.render_lines(bar.size.region)
        assert len(draws) == 2 and light != moved and light == fresh(bar)


async def test_the_thumb_follows_the_rows_the_keys_scroll_to():
    """The table scrolls under the cursor without Textual's scroll watchers (it repaints line by
    line); the scrollbar's position follows all the same, so the thumb shows where the view is."""
    app = TableApp()
    async with app.run_test(size=(60, 14)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(500))
        await pilot.pause()
        table.focus()
        bar = table.vertical_scrollbar
        at_top = bar.render_lines(bar.size.region)
        for key in ("end", "pageup", "home", "pagedown", "down"):
            await pilot.press(key)
            await pilot.pause()
            assert bar.position == table.scroll_y
            assert bar.render_lines(bar.size.region) == fresh(bar)
            if key == "end":
                assert table.scroll_y > 400 and bar.render_lines(bar.size.region) != at_top
