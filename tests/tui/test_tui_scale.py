"""What keeps the UI cheap while the clock runs fast: the detail pane of the same object is redrawn
at most every DETAIL_PERIOD of wall time (a new selection, a pause or a step shows at once). The
runner's wall clock is moved by hand: the tests assert what is drawn, not how long it takes."""

from __future__ import annotations

from playground.tui.widgets.details import DETAIL_PERIOD

from test_tui_keys import rendered
from tui_helpers import SIZE, make_app


async def test_the_running_clock_redraws_the_same_nodes_detail_at_most_every_period():
    app = make_app()
    now = [100.0]
    async with app.run_test(size=SIZE) as pilot:
        app.runner.clock = lambda: now[0]
        await app.advance(5)
        view = app.nodes_view
        view.show_detail()
        shown = view.detail.body.content
        app.runner.set_paused(False)  # running (no frame timer in tests: frames are called by hand)
        app.sim.step()
        view.frame(True)
        assert view.detail.body.content is shown  # same node, same wall instant: not redrawn
        now[0] += DETAIL_PERIOD
        view.frame(True)
        assert view.detail.body.content is not shown
        shown = view.detail.body.content
        view.table.move_cursor(view.table.cursor_index + 1)  # another node: drawn at once
        await pilot.pause()
        assert view.detail.body.content is not shown
        assert str(view.table.cursor_key) in rendered(view.detail.body.content)


async def test_paused_every_frame_redraws_the_detail():
    app = make_app()
    async with app.run_test(size=SIZE):
        app.runner.clock = lambda: 100.0
        view = app.nodes_view
        view.show_detail()
        shown = view.detail.body.content
        await app.advance(1)  # a step while paused: the detail follows it
        assert view.detail.body.content is not shown
