"""What a frame repaints: only the table lines whose row, cursor or cells changed, and no layout of the
screen when rows come and go in a table whose box cannot change. The property test compares the
screen after incremental repaints with the screen repainted whole (the plain computation)."""

from __future__ import annotations

import asyncio
import io
import os

from hypothesis import HealthCheck, given, settings, strategies as st
from rich.console import Console
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from playground.engine import Operation
from playground.tui.widgets.vtable import Column, VirtualTable

from test_tui_keys import press, row
from test_tui_vtable import Source, keys
from tui_helpers import SIZE, make_app, settle

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "12"))


class BoxedApp(App):
    """A table capped by max-height over a filler, as the Nodes and Pods views lay theirs out."""

    CSS = """
    #t { height: auto; max-height: 8; }
    #filler { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.source = Source()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield VirtualTable([Column("name", "NAME", 8, 20), Column("value", "VALUE", 10, 40, flex=True)],
                               self.source, id="t")
            yield Static("below", id="filler")


def screen_text(app: App) -> list[str]:
    """What the screen shows now, lines as the compositor holds them (stale ones included)."""
    update = app.screen._compositor.render_update(full=True)
    console = Console(file=io.StringIO(), record=True, width=app.size.width, color_system=None)
    console.print(update)
    return console.export_text().splitlines()


async def test_a_frame_repaints_only_the_rows_whose_cells_changed():
    app = BoxedApp()
    async with app.run_test(size=(60, 16)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(30))
        await pilot.pause()
        rendered = table.render_count
        table.invalidate()  # time moved, nothing changed
        await pilot.pause()
        assert table.render_count == rendered
        app.source.values["row-00003"] = "new"
        table.invalidate()
        await pilot.pause()
        assert table.render_count == rendered + 1
        assert any("row-00003  new" in line for line in screen_text(app))
        table.move_cursor(1)  # the cursor leaves row 0 for row 1: two lines, from the cache
        await pilot.pause()
        assert table.render_count == rendered + 1


async def test_rows_coming_and_going_below_a_capped_table_ask_for_no_layout():
    app = BoxedApp()
    async with app.run_test(size=(60, 16)) as pilot:
        table = app.query_one(VirtualTable)
        table.upsert(keys(30))
        for _ in range(3):  # the table grows to its cap, then its scrollbar comes: two layouts
            await pilot.pause()
        layouts = table._layout_updates
        table.upsert(keys(5, "zzz"))
        table.remove(["row-00020", "row-00021"])
        await pilot.pause()
        assert table._layout_updates == layouts
        assert table.virtual_size.height == 34
        table.set_filter("row-0000")  # 10 rows: the table's box still capped at 8 lines
        await pilot.pause()
        table.set_filter("row-00001")  # 1 row: the table shrinks, which needs a layout
        await pilot.pause()
        assert table._layout_updates > layouts
        assert table.size.height == 2


async def test_rows_that_come_and_go_on_screen_show_at_once_without_a_paint_of_the_whole_table():
    """A table whose box cannot change repaints, when its row count changes, the lines that show
    something else (the rows after a removed or added one), not the whole table."""
    app = BoxedApp()
    async with app.run_test(size=(60, 16)) as pilot:
        table = app.query_one(VirtualTable)
        names = keys(60)
        table.upsert(names[::2])
        for _ in range(3):
            await pilot.pause()
        whole = []
        refresh = table.refresh
        table.refresh = lambda *regions, **kwargs: (whole.append(1) if not regions else None,
                                                    refresh(*regions, **kwargs))[1]
        for change in (lambda: table.remove([names[2]]), lambda: table.upsert([names[3], names[5]]),
                       lambda: table.remove([names[0], names[4]])):
            change()
            await pilot.pause()
            shown = screen_text(app)
            assert not whole
            table._invalidate_all()
            await pilot.pause()
            assert shown == screen_text(app)
            whole.clear()
        assert [line.split()[0] for line in screen_text(app)[1:4]] == [names[3], names[5], names[6]]


# ---------------------------------------------------------------- property: incremental == whole

ACTIONS = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 59), st.sampled_from(["", "x", "longer value", "y" * 30])),
    st.tuples(st.just("add"), st.integers(0, 59), st.just("")),
    st.tuples(st.just("remove"), st.integers(0, 59), st.just("")),
    st.tuples(st.just("cursor"), st.integers(-3, 3), st.just("")),
    st.tuples(st.just("page"), st.integers(-1, 1), st.just("")),
    st.tuples(st.just("tick"), st.just(0), st.just("")),
    st.tuples(st.just("busy"), st.just(0), st.just("")),
    st.tuples(st.just("hide"), st.just(0), st.just("")),  # hidden (another view shown), or shown again
)


async def incremental_matches_whole(actions) -> None:
    app = BoxedApp()
    async with app.run_test(size=(60, 16)) as pilot:
        table = app.query_one(VirtualTable)
        source = app.source
        names = keys(60)
        table.upsert(names[::2])
        await pilot.pause()
        for action, number, value in actions:
            key = names[number] if action in ("set", "add", "remove") else None
            if action == "set":
                source.values[key] = value
                if number % 3:
                    table.invalidate()  # time moved: every visible row is read again
                else:
                    table.upsert([key])  # the engine said this row changed
            elif action == "add":
                table.upsert([key])
            elif action == "remove":
                table.remove([key])
            elif action == "cursor":
                table.move_cursor(table.cursor_index + number)
            elif action == "page":
                table.move_cursor(table.cursor_index + number * table.visible_rows)
            elif action == "tick":
                table.invalidate()
            elif action == "busy":  # a paint while the engine runs shows placeholders
                source.idle = False
                table.refresh()
                await pilot.pause()
                source.idle = True
                table.invalidate()
            elif action == "hide":
                table.display = not table.display
            await pilot.pause()
        table.display = True
        await pilot.pause()
        shown = screen_text(app)
        table._invalidate_all()
        await pilot.pause()
        assert shown == screen_text(app)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(ACTIONS, min_size=1, max_size=12))
def test_incremental_repaints_show_what_a_whole_repaint_shows(actions):
    import asyncio

    asyncio.run(incremental_matches_whole(actions))


async def test_a_table_hidden_while_time_moved_reads_its_rows_when_shown_again():
    """The example hypothesis found: a row that changed with time alone while its table was hidden
    (another view shown) kept its old line once the table showed again."""
    await incremental_matches_whole([("hide", 0, ""), ("set", 2, "x")])


async def test_a_view_shown_again_after_steps_in_another_shows_the_current_ages():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await press(pilot, "2")
        table = app.views["pods"].table
        key = table.cursor_key
        name = key.split("/")[1]
        before = row(app, "pods", key)["age"]
        await press(pilot, "1")
        await app.advance(20)  # nothing happens to the pods: only their ages move
        await press(pilot, "2")
        now = row(app, "pods", key)["age"]
        assert (before, now) == ("5s", "25s")
        line = next(line for line in screen_text(app) if name in line)
        assert now in line.split() and before not in line.split()


async def test_every_view_shown_again_after_steps_in_another_shows_what_a_fresh_fill_shows():
    # Before the fix every view kept its ages (AGE, LEASE AGE, RENEW TIME, LAST SEEN, ...) as they
    # were when it was hidden, until something else repainted its rows.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        app.sim.apply(Operation("power-off", node="b-1"))
        for view in "234571":
            await press(pilot, view)
            await press(pilot, "1" if view != "1" else "2")
            await app.advance(37)
            await press(pilot, view)
            shown = screen_text(app)
            current = app.views[app.current_view]
            key = current.table.cursor_key
            current.load()
            current.table.select_key(key)
            current.table._invalidate_all()
            await settle(pilot)
            assert shown == screen_text(app), view


# ---------------------------------------------------------------- property: held times, never held state

class TimedSource(Source):
    """Rows of a name, a state the engine changes, and an age that time alone changes."""

    def __init__(self) -> None:
        super().__init__()
        self.ages: dict[str, str] = {}

    def cells(self, key):
        return [key, self.values.get(key, "-"), self.ages.get(key, "0s")]


class TimedApp(BoxedApp):
    def __init__(self) -> None:
        App.__init__(self)
        self.source = TimedSource()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield VirtualTable([Column("name", "NAME", 9, 9), Column("state", "STATE", 8, 8),
                                Column("age", "AGE", 5, 5, "right", timed=True)], self.source, id="t")
            yield Static("below", id="filler")


TIMED_ACTIONS = st.one_of(
    st.tuples(st.just("state"), st.integers(0, 29), st.sampled_from(["-", "Ready", "NotReady"])),
    st.tuples(st.just("age"), st.integers(0, 29), st.sampled_from(["1s", "2s", "9m59s"])),
    st.tuples(st.just("cursor"), st.integers(-3, 3), st.just("")),
)


async def held_lines_differ_only_in_times(actions) -> None:
    app = TimedApp()
    async with app.run_test(size=(40, 16)) as pilot:
        table = app.query_one(VirtualTable)
        source = app.source
        names = keys(30)
        table.upsert(names)
        await pilot.pause()
        table.hold_time = True  # the clock runs and the time-driven redraw is not due
        for action, number, value in actions:
            if action == "cursor":
                table.move_cursor(table.cursor_index + number)
            else:
                (source.values if action == "state" else source.ages)[names[number]] = value
                table.upsert([names[number]])  # the engine says the row changed
            await pilot.pause()
        shown = screen_text(app)
        table.hold_time = False  # the time-driven redraw is due: the view reads every visible row again
        table.invalidate()
        await pilot.pause()
        due = screen_text(app)
        table._invalidate_all()
        await pilot.pause()
        whole = screen_text(app)
        assert due == whole
        state_end = whole[0].index("STATE") + 8  # NAME and STATE: never held
        assert [line[:state_end] for line in shown] == [line[:state_end] for line in whole]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(TIMED_ACTIONS, min_size=1, max_size=12))
def test_held_lines_differ_from_a_whole_repaint_only_in_timed_columns(actions):
    import asyncio

    asyncio.run(held_lines_differ_only_in_times(actions))


async def test_a_frame_that_shows_times_shows_them_for_rows_changed_before_it_said_so():
    """A view hands the engine's changes to its table (upsert) before it decides whether this frame
    redraws times: a row changed while the previous frame held times is redrawn whole when this one
    does not hold them."""
    app = TimedApp()
    async with app.run_test(size=(40, 16)) as pilot:
        table = app.query_one(VirtualTable)
        names = keys(5)
        table.upsert(names)
        await pilot.pause()
        table.hold_time = True  # the previous frame held times
        app.source.ages[names[1]] = "7s"
        table.upsert([names[1]])  # this frame's changes, handed over first
        table.hold_time = False  # then the view says: times are due
        table.invalidate()
        await pilot.pause()
        assert screen_text(app)[2].split()[-1] == "7s"


async def test_lines_kept_for_rows_off_screen_are_let_go():
    """A changed row keeps its last painted line only while it may be on screen: scrolling through
    a table and letting time move keeps no lines of rows that left the screen."""
    app = TimedApp()
    async with app.run_test(size=(40, 16)) as pilot:
        table = app.query_one(VirtualTable)
        names = keys(300)
        table.upsert(names)
        await pilot.pause()
        for _ in range(30):
            table.action_page_down()
            await pilot.pause()
            table.invalidate()  # time moved: rows off screen are forgotten
            await pilot.pause()
        table.hold_time = True
        table.upsert(names)  # every row changed
        await pilot.pause()
        on_screen = {entry[1] for entry in table._rows[int(table.scroll_y):int(table.scroll_y) + table.visible_rows]}
        assert set(table._held) == on_screen


# ---------------------------------------------------------------- focus and theme

async def test_a_view_switch_renders_no_row_again_and_a_theme_change_renders_every_row():
    """Focus moves from table to table on every view switch and restyles the cursor only: the rows'
    lines stand. A theme changes the table's own style: every row is rendered again in it."""
    from tui_helpers import SIZE, make_app

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        await pilot.pause()
        table = app.nodes_view.table
        rendered = table.render_count
        assert rendered and table._cache
        for key in ("3", "1", "2", "1"):
            await pilot.press(key)
            await pilot.pause()
        assert app.current_view == "nodes" and table.has_focus
        assert table.render_count == rendered
        dark = table.rich_style.bgcolor
        app.theme = "textual-light"
        for _ in range(3):
            await pilot.pause()
        light = table.rich_style.bgcolor
        assert light != dark
        assert table.render_count > rendered
        cached = next(iter(table._cache.values()))
        assert cached._segments[0].style.bgcolor == light


def _cursor_look(table: VirtualTable) -> tuple:
    """(background, bold) of the cursor's line as the table paints it."""
    line = table.cursor_index - int(table.scroll_y) + 1
    segment = next(s for s in table.render_line(line)._segments if s.text.strip())
    return segment.style.bgcolor, bool(segment.style.bold)


async def test_a_view_switch_restyles_no_table_and_repaints_no_whole_screen():
    """Focus moves from table to table on every view switch. No rule of a table's CSS reads :focus,
    so neither table is restyled for it, and the screen is not repainted whole for it (Textual does
    both by default); the switcher's own lines, blank under the views, are not drawn again either.
    The cursor still shows where focus is: its focused look in the table that has focus, its
    blurred look once focus moves to the filter."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        await pilot.pause()
        screen = app.screen
        refreshes: list[tuple] = []
        restyled: list[object] = []
        screen_refresh, update_nodes = screen.refresh, app.stylesheet.update_nodes

        def spy_refresh(*regions, **options):
            refreshes.append(regions)
            return screen_refresh(*regions, **options)

        def spy_update_nodes(nodes, animate=False):
            nodes = list(nodes)
            restyled.extend(nodes)
            return update_nodes(nodes, animate)

        screen.refresh = spy_refresh
        app.stylesheet.update_nodes = spy_update_nodes
        switcher = app.query_one("#views")
        switcher_lines = []
        render_line = switcher.render_line
        switcher.render_line = lambda y: switcher_lines.append(y) or render_line(y)
        nodes, pods = app.nodes_view.table, app.views["pods"].table
        for key in ("2", "1", "2"):
            await pilot.press(key)
            await pilot.pause()
        assert app.focused is pods and not nodes.has_focus
        assert not [node for node in restyled if isinstance(node, VirtualTable)]
        assert () not in refreshes  # (a whole-screen repaint has no regions)
        assert switcher_lines == []
        focused_look = _cursor_look(pods)
        style = pods.get_component_rich_style("vtable--cursor-focused")
        assert focused_look == (style.bgcolor, True)

        app.views["pods"].open_filter()
        await pilot.pause()
        assert app.focused is not pods and not pods.has_focus
        blurred_look = _cursor_look(pods)
        assert blurred_look == (pods.get_component_rich_style("vtable--cursor").bgcolor, False)
        assert blurred_look != focused_look
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is pods and _cursor_look(pods) == focused_look


async def _paints_until(paints: list, rounds: int = 200) -> None:
    for _ in range(rounds):
        if paints:
            return
        await asyncio.sleep(0.001)


async def test_the_answer_to_a_key_is_painted_without_waiting_for_the_update_tick(monkeypatch):
    """Textual paints a dirty screen on its update timer's next tick (60 a second); the answer to a
    key or a click is painted as soon as the widgets have it. With the timer stopped, the key's
    answer is still painted; once it is, a later change (the engine's next frame) waits for the
    timer again."""
    from textual import events

    import playground.tui.app as app_module

    monkeypatch.setattr(app_module, "ANSWER_WINDOW", 60.0)  # a slow machine's key is answered too
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        await pilot.pause()
        screen = app.screen
        screen._update_timer.resume = lambda: None  # the timer never paints again
        paints: list[str] = []
        refresh = screen._compositor_refresh

        def spy() -> None:
            paints.append(app.current_view)
            refresh()
        screen._compositor_refresh = spy

        app.post_message(events.Key("2", "2"))
        await _paints_until(paints)
        assert paints and paints[-1] == "pods"
        assert not screen._dirty_widgets and not screen._layout_required

        paints.clear()
        app.views["pods"].table.refresh()  # the shown table, as a frame's update does
        await _paints_until(paints, rounds=30)
        assert paints == []
        assert screen._dirty_widgets  # left for the update timer
