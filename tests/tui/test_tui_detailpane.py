"""The detail pane draws its content's lines itself: new content of another height repaints the pane
and moves its scroll range, without a layout of the screen (which a cursor move used to cost twice),
and what it shows is the content's lines at the pane's width, scrolled."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from playground.tui.widgets.details import DetailPane
from playground.tui.widgets.lines import Lines

from test_tui_repaint import screen_text


class PaneApp(App):
    """A pane under a fixed header, as the Nodes and Pods views lay theirs out."""

    CSS = """
    #above { height: 3; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("above", id="above")
            yield DetailPane(id="detail")


def numbered(count: int, prefix: str = "line") -> Lines:
    return Lines([Text(f"{prefix} {i:02d}") for i in range(count)])


def count_layouts(app: App) -> list[int]:
    screen = app.screen
    layouts = [0]
    refresh_layout = screen._refresh_layout

    def counted(*args, **kwargs):
        layouts[0] += 1
        return refresh_layout(*args, **kwargs)
    screen._refresh_layout = counted
    return layouts


async def test_new_content_of_another_height_lays_nothing_out():
    app = PaneApp()
    async with app.run_test(size=(40, 16)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(numbered(30), "a")  # longer than the pane: its scrollbar comes (a layout)
        await pilot.pause()
        await pilot.pause()
        layouts = count_layouts(app)
        for count, prefix in ((25, "b"), (40, "c"), (18, "d")):  # other objects, all longer than the pane
            pane.show(numbered(count, prefix), prefix)
            await pilot.pause()
            assert pane.virtual_size.height == count
            lines = screen_text(app)
            assert f"{prefix} 00" in lines[4] and f"{prefix} 10" in lines[14]
        assert layouts[0] == 0
        assert pane.content is not None and pane.show_vertical_scrollbar


async def test_the_pane_scrolls_through_its_lines_and_clamps_when_they_shrink():
    app = PaneApp()
    async with app.run_test(size=(40, 16)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(numbered(30), "a")
        await pilot.pause()
        await pilot.pause()
        pane.scroll_to(y=20, animate=False, immediate=True)
        await pilot.pause()
        assert pane.scroll_y == 18  # 30 lines in a 12-line pane (16 rows, 3 above, its border)
        assert "line 18" in screen_text(app)[4] and "line 29" in screen_text(app)[15]
        pane.show(numbered(14, "b"), "b")
        await pilot.pause()
        assert pane.scroll_y == 2
        assert "b 02" in screen_text(app)[4] and "b 13" in screen_text(app)[15]
        pane.show(numbered(3, "c"), "c")  # fits: the scrollbar goes
        await pilot.pause()
        await pilot.pause()
        assert pane.scroll_y == 0 and not pane.show_vertical_scrollbar
        assert "c 00" in screen_text(app)[4] and screen_text(app)[7].strip() == ""


async def test_long_lines_wrap_at_the_panes_width():
    app = PaneApp()
    async with app.run_test(size=(40, 16)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(Text("word " * 20), "a")  # a plain renderable, rendered whole at the pane's width
        await pilot.pause()
        await pilot.pause()
        width = pane.scrollable_content_region.width
        assert width == 38  # 40 columns less the padding
        assert pane.virtual_size.height == 3  # 100 characters at 38 a line
        assert all(len(line.rstrip()) <= 39 for line in screen_text(app)[4:7])
