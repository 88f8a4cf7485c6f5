"""What keeps the UI cheap while the clock runs fast: the detail pane of the same object is redrawn
at most every DETAIL_PERIOD of wall time (a new selection, a pause or a step shows at once), and a
table's cells that change with time alone (ages) every TIME_PERIOD, while rows the engine changed are
redrawn on the frame that changed them. The runner's wall clock is moved by hand: the tests assert
what is drawn, not how long it takes."""

from __future__ import annotations

import asyncio
import os
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings, strategies as st
from rich.text import Text

from playground.engine import Operation
from playground.tui.runner import FrameResult, merge_changes
from playground.tui import app as app_module
from playground.tui.widgets import pods as pods_view
from playground.tui.widgets.details import DETAIL_PERIOD
from playground.tui.widgets.tableview import TIME_PERIOD

from test_tui_keys import rendered
from test_tui_repaint import screen_text
from test_tui_detailpane import count_layouts
from tui_helpers import SIZE, make_app, settle


async def test_the_running_clock_redraws_the_same_nodes_detail_at_most_every_period():
    app = make_app()
    now = [100.0]
    async with app.run_test(size=SIZE) as pilot:
        app.runner.clock = lambda: now[0]
        await app.advance(5)
        view = app.nodes_view
        view.show_detail()
        shown = view.detail.content
        app.runner.set_paused(False)  # running (no frame timer in tests: frames are called by hand)
        app.sim.step()
        view.frame(True)
        assert view.detail.content is shown  # same node, same wall instant: not redrawn
        now[0] += DETAIL_PERIOD
        view.frame(True)
        assert view.detail.content is not shown
        shown = view.detail.content
        view.table.move_cursor(view.table.cursor_index + 1)  # another node: drawn at once
        await pilot.pause()
        assert view.detail.content is not shown
        assert str(view.table.cursor_key) in rendered(view.detail.content)


async def test_paused_every_frame_redraws_the_detail():
    app = make_app()
    async with app.run_test(size=SIZE):
        app.runner.clock = lambda: 100.0
        view = app.nodes_view
        view.show_detail()
        shown = view.detail.content
        await app.advance(1)  # a step while paused: the detail follows it
        assert view.detail.content is not shown


def nodes_row(app, node: str) -> str:
    """The Nodes table's line for `node` as it was last painted."""
    return next(line for line in screen_text(app) if line.split()[:1] == [node])


async def running_frame(app, pilot, ticks: int = 1) -> None:
    """What a frame does while the clock runs: ticks, then the views from their ChangeSet."""
    changes = app.sim.store.take_changes()
    for _ in range(ticks):
        changes = merge_changes(changes, app.sim.step())
    app.update_views(FrameResult(ticks=ticks, changes=changes))
    await pilot.pause()


async def test_the_running_clock_redraws_ages_every_period_and_engine_changes_at_once():
    app = make_app()
    now = [100.0]
    async with app.run_test(size=SIZE) as pilot:
        app.runner.clock = lambda: now[0]
        await app.advance(5)
        await pilot.pause()
        assert nodes_row(app, "a-2").split()[-1] == "5s"  # AGE
        app.runner.set_paused(False)  # running (no frame timer in tests: frames are called by hand)
        await running_frame(app, pilot, 3)  # drawn at this wall instant (the step): ages wait
        assert nodes_row(app, "a-2").split()[-1] == "5s"
        app.sim.apply(Operation("power-off", node="a-2"))  # the engine changes a-2's row: drawn at once
        await running_frame(app, pilot)
        row = nodes_row(app, "a-2")
        assert "PoweredOff" in row and row.split()[-1] == "9s"
        assert nodes_row(app, "a-1").split()[-1] == "5s"  # a row only time changed still waits
        now[0] += TIME_PERIOD
        await running_frame(app, pilot)
        assert nodes_row(app, "a-1").split()[-1] == "10s"
        await running_frame(app, pilot)
        assert nodes_row(app, "a-1").split()[-1] == "10s"
        app.runner.set_paused(True)
        await app.advance(2)  # a step while paused: ages follow it at once
        await pilot.pause()
        assert nodes_row(app, "a-1").split()[-1] == "13s"


# ---------------------------------------------------------------- the Pods table catches up when shown


async def test_pods_whose_conditions_alone_changed_keep_their_rows_and_show_their_new_ready():
    """A node going NotReady writes its pods' Ready condition and nothing else of them: the store
    says so (in `pods`, not in `pod_fields`), and the Pods view redraws their lines without taking
    their rows out and in again (their entries stay the same objects)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = app.views["pods"]
        app.action_view("pods")
        await app.advance(3)
        app.apply_operation(Operation("power-off", node="b-1"))
        on_b1 = {p.key for p in app.sim.store.pods.values() if p.node_name == "b-1"}
        assert on_b1

        def marked() -> bool:
            return any(app.sim.store.pods[k].condition_status("Ready") == "False" for k in on_b1)

        for _ in range(300):  # frames of one tick, by hand, until the one that marks b-1's pods
            changes = merge_changes(app.sim.store.take_changes(), app.sim.step())
            if marked():
                break
            app.update_views(FrameResult(ticks=1, changes=changes))
        assert marked()
        await pilot.pause()
        entries = {entry[1]: entry for entry in view.table._rows}
        assert on_b1 <= changes.pods and not on_b1 & changes.pod_fields
        app.update_views(FrameResult(ticks=1, changes=changes))
        await pilot.pause()
        assert all(entry is entries[entry[1]] for entry in view.table._rows if entry[1] in on_b1)
        names = {k.split("/")[1] for k in on_b1}
        lines = [line.split() for line in screen_text(app) if len(line.split()) > 2 and line.split()[1] in names]
        assert lines and all(fields[2] == "0/1" for fields in lines)  # READY


EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "6"))


async def catch_up_matches_a_fresh_table(plan, needle: str, sort: str | None, catch_up_at: int) -> None:
    """Run `plan` ((ticks, view shown meanwhile, web's replicas), …) through a power-off of b-1 with the Pods view
    filtered and sorted, the hidden table catching up once `catch_up_at` pods are noted; then show
    it: its rows (order and kept match texts) must equal the table filled from scratch from the same
    pods (the plain computation)."""
    app = make_app()
    app.at_the_keys = lambda: True  # the user at the keys: the hidden table catches up at `catch_up_at`
    with caught_up_at(catch_up_at):
        await run_through(app, plan, needle, sort, catch_up_at)


async def run_through(app, plan, needle: str, sort: str | None, catch_up_at: int) -> None:
    async with app.run_test(size=SIZE):
        view = app.views["pods"]
        app.action_view("pods")
        view.table.set_filter(needle)
        if sort is not None:
            view.table.sort_by(sort)
        await app.advance(3)
        app.apply_operation(Operation("power-off", node="b-1"))
        for ticks, shown, replicas in plan:
            app.action_view(shown)
            if replicas is not None:  # pods created, and deleted (removed once their grace period ends)
                app.apply_operation(Operation("scale", deployment="web", replicas=replicas))
            await app.advance(ticks)
            assert app.view_count("pods") == len(app.sim.store.pods)
            assert len(view._changed) + len(view._removed) < catch_up_at  # caught up, shown or not
        app.action_view("pods")
        rows = list(view.table._rows)
        view.table.replace_all(list(app.sim.store.pods))
        assert rows == view.table._rows
        assert view.table.keys() == [k for k in view.table.keys() if k in app.sim.store.pods]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(st.tuples(st.integers(1, 90), st.sampled_from(["nodes", "pods", "events", "pending"]),
                               st.sampled_from([None, 0, 1, 4, 6])), min_size=1, max_size=4),
       needle=st.sampled_from(["", "b-", "running", "!web", "terminating"]),
       sort=st.sampled_from([None, "node", "status", "age"]),
       catch_up_at=st.sampled_from([pods_view.CATCH_UP_AT, 1, 4]))
def test_the_pods_table_caught_up_equals_a_fresh_one(plan, needle, sort, catch_up_at):
    asyncio.run(catch_up_matches_a_fresh_table(plan, needle, sort, catch_up_at))


@contextmanager
def caught_up_at(count: int):
    saved = pods_view.CATCH_UP_AT
    pods_view.CATCH_UP_AT = count
    try:
        yield
    finally:
        pods_view.CATCH_UP_AT = saved


async def test_the_hidden_pods_table_catches_up_at_the_keys_once_enough_pods_are_noted(monkeypatch):
    """While another view is shown the Pods table only notes the pods that changed; while the user is
    at the keys it catches up once CATCH_UP_AT of them are noted, so the key that shows it has fewer
    than that to apply. A user who only watches keeps the frames even: the table waits to be shown."""
    monkeypatch.setattr(app_module, "INPUT_QUIET", 3600.0)  # a key pressed now counts for the whole test
    app = make_app()
    monkeypatch.setattr(pods_view, "CATCH_UP_AT", 4)
    async with app.run_test(size=SIZE) as pilot:
        view = app.views["pods"]
        app.action_view("pods")
        await app.advance(3)
        app.action_view("nodes")
        app.apply_operation(Operation("scale", deployment="web", replicas=2))
        await app.advance(1)  # two of web's pods terminating: fewer than 4 noted, the table waits
        noted = set(view._changed)
        assert 0 < len(noted) < 4
        before = set(app.sim.store.pods)
        app.apply_operation(Operation("scale", deployment="web", replicas=8))
        await app.advance(1)  # six new pods noted, but nobody at the keys: the table waits
        new = set(app.sim.store.pods) - before
        assert len(new) == 6 and new <= view._changed and not any(key in view.table for key in new)
        await pilot.press("down")  # the user at the keys
        assert app.at_the_keys()
        await app.advance(1)
        assert app.current_view == "nodes"
        assert not view._changed and not view._removed
        assert all(key in view.table for key in new)
        rows = list(view.table._rows)
        view.table.replace_all(list(app.sim.store.pods))
        assert rows == view.table._rows


async def test_the_footer_is_redrawn_only_when_the_keys_it_shows_change_and_lays_out_nothing():
    """A view switch makes the screen announce new bindings several times; the footer redraws its
    line only when what it shows differs, and then shows the new keys. It is one line of fixed size:
    a view switch lays out the screen for the view, not for the footer's keys."""
    from playground.tui.widgets.footer import KeyFooter

    def shown(footer):
        keys, _palette = footer._items
        return [k.key for item in keys for k in getattr(item, "keys", (item,))]

    def expected(footer):  # one key per action, the first bound (as Textual's Footer composes)
        first: dict[str, str] = {}
        for (_, binding, _, _) in footer.screen.active_bindings.values():
            if binding.show and binding.action != "app.command_palette":
                first.setdefault(binding.action, binding.key)
        return list(first.values())

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):
            await pilot.pause()
        footer = app.query_one(KeyFooter)
        start = footer.updates
        assert shown(footer) == expected(footer)
        changed = 0
        for key in "45641":  # leases, events and pdbs show the same keys; nodes and pods their own
            before = shown(footer)
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            assert shown(footer) == expected(footer), key
            changed += shown(footer) != before
        assert 0 < changed < 5
        assert footer.updates - start == changed
        layouts = count_layouts(app)
        counts = []
        for key in "21212":  # the footer's keys change with each switch
            before = layouts[0]
            await pilot.press(key)
            for _ in range(3):
                await pilot.pause()
            counts.append(layouts[0] - before)
        # One layout a switch, the view's (the first show of the Pods view lays out its detail pane
        # too); a footer of key widgets added one more for its new keys.
        assert counts[1:] == [1, 1, 1, 1]


# ---------------------------------------------------------------- the Events table catches up when shown


async def events_catch_up_matches_a_fresh_table(plan, limit: int) -> None:
    """Run `plan` ((ticks, view shown meanwhile), …) through a power-off of b-1 with an event log of
    `limit` events; the Events tab counts every row while hidden, and once shown the table equals
    one filled from scratch from the log (the plain computation), and so does what it shows (a
    small log turns over while hidden: the table is built again, EventsView.catch_up)."""
    app = make_app(event_limit=limit)
    async with app.run_test(size=SIZE) as pilot:
        view = app.views["events"]
        await app.advance(3)
        app.apply_operation(Operation("power-off", node="b-1"))
        for ticks, shown in plan:
            app.action_view(shown)
            await app.advance(ticks)
            counted = app.view_count("events")
            app.action_view("events")
            await settle(pilot)  # (a column fitted to new rows paints once more)
            assert view.table.total_count == counted
            rows = view.table.keys()
            screen = screen_text(app)
            view.load()
            view.table._invalidate_all()
            await settle(pilot)
            assert rows == view.table.keys()
            assert screen == screen_text(app)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(st.tuples(st.integers(1, 120), st.sampled_from(["nodes", "pods", "events"])), min_size=1,
                     max_size=4),
       limit=st.sampled_from([12, 40, 5000]))
def test_the_events_table_caught_up_equals_a_fresh_one(plan, limit):
    asyncio.run(events_catch_up_matches_a_fresh_table(plan, limit))


async def test_rows_a_frame_changed_show_their_cells_while_the_next_frame_runs_the_engine():
    """At x1000 the next frame starts the engine thread as soon as this one's widgets are updated;
    the table reads its changed rows before that, so the paint that follows (with the engine busy)
    shows them, not placeholders or their old lines."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await pilot.pause()
        app.runner.set_paused(False)
        app.sim.apply(Operation("power-off", node="a-2"))
        changes = merge_changes(app.sim.store.take_changes(), app.sim.step())
        app.update_views(FrameResult(ticks=1, changes=changes))
        app.runner.busy = True  # the next frame's ticks run in the engine thread
        try:
            await pilot.pause()
            row = nodes_row(app, "a-2")
        finally:
            app.runner.busy = False
        assert "PoweredOff" in row and "…" not in row


async def test_a_click_on_a_footer_key_presses_it_and_hovering_shows_its_tooltip():
    from playground.tui.widgets.footer import KeyFooter

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await pilot.pause()
        footer = app.query_one(KeyFooter)
        start, _end, key = next(span for span in footer._spans if span[2].key == "question_mark")
        await pilot.hover(KeyFooter, offset=(start + 1, 0))
        assert footer.tooltip == "List every key and its binding id"
        await pilot.click(KeyFooter, offset=(start + 1, 0))
        await pilot.pause()
        assert app.screen.query("#help-body")  # the help screen `?` opens


async def test_a_table_shown_again_at_its_size_keeps_its_lines_and_a_new_size_draws_them_again():
    """Showing a view sends its table a Resize even when its size did not change: the lines drawn
    for that size stand (every view switch drew the whole table twice); another size draws them."""
    from textual import events

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        table = app.views["pods"].table
        await pilot.press("2")
        for _ in range(3):
            await pilot.pause()
        drawn = table.render_count
        rows = min(len(app.sim.store.pods), table.visible_rows)
        assert rows and drawn >= rows
        table.post_message(events.Resize(table.size, table.virtual_size))
        for _ in range(3):
            await pilot.pause()
        assert table.render_count == drawn
        await pilot.resize_terminal(SIZE[0] - 30, SIZE[1])
        for _ in range(3):
            await pilot.pause()
        assert table.render_count >= drawn + rows


async def test_the_header_tabs_and_view_title_are_drawn_again_only_when_their_text_changes():
    """Paused, every frame computes the header, the tabs and the view's title again: the same text is
    not drawn again; a step (the clock) or a view switch (the tabs, the new view's title) is."""
    from playground.tui.widgets.header import ClusterHeader, ViewTabs

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        bars = {"header": app.query_one(ClusterHeader), "tabs": app.query_one(ViewTabs),
                "nodes title": app.views["nodes"].title_bar, "pods title": app.views["pods"].title_bar}
        calls = dict.fromkeys(bars, 0)

        def counting(name, widget):
            refresh = widget.refresh

            def counted(*args, **kwargs):
                calls[name] += 1
                return refresh(*args, **kwargs)
            widget.refresh = counted
        for name, widget in bars.items():
            counting(name, widget)
        for _ in range(5):
            app.refresh_chrome()
            app.views["nodes"].frame(False)
        assert set(calls.values()) == {0}
        await app.advance(1)
        assert calls["header"] == 1 and "T+1s" in screen_text(app)[0].replace(" ", "")
        await pilot.press("2")
        await pilot.pause()
        assert calls["tabs"] >= 1
        assert any(" 2 Pods" in line for line in screen_text(app)[:4])
        app.views["pods"].table.set_filter("web")
        app.views["pods"].update_title()
        await pilot.pause()
        assert calls["pods title"] >= 1 and any("/web" in line for line in screen_text(app))


async def test_a_new_clock_draws_the_headers_first_line_only():
    """The header's clock moves every frame, its zones' line seldom: a step draws the clock's line
    again and keeps the zones' line as drawn; a change of the number of lines lays the header out."""
    from playground.tui.widgets import textbar
    from playground.tui.widgets.header import ClusterHeader

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        header = app.query_one(ClusterHeader)
        drawn: list[str] = []
        segments = textbar.text_segments

        def counted(line, console):
            drawn.append(line.plain)
            return segments(line, console)
        textbar.text_segments = counted
        try:
            await app.advance(1)
            await pilot.pause()
            assert len(drawn) == 1 and "T+1s" in drawn[0].replace(" ", "")
            assert "Zones" in screen_text(app)[1]
            drawn.clear()
            header.show(Text("one line", end=""))
            await pilot.pause()
            assert drawn == ["one line"] and header.size.height == 1
        finally:
            textbar.text_segments = segments
