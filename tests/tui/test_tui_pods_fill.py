"""A state loaded while the Pods view is hidden (the open, each step of time travel) fills its table
when the view is next shown, or once no key has come for a second (PodsView.FILL_WHEN_SHOWN_FROM,
lowered here so that a small cluster takes that path): until then the table holds no row and its tab
counts every pod; once filled, its rows, their order and the cursor are those a table filled at once
shows."""

from __future__ import annotations

import asyncio
import time

from playground.engine import Operation
from playground.tui.widgets.pods import PodsView

from tui_helpers import SIZE, make_app, settle


async def press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


def seen(app) -> tuple:
    table = app.views["pods"].table
    return table.keys(), table.cursor_key, app.views["pods"].live_count(), app.views["pods"].detail._key


async def walk(app, pilot) -> list[tuple]:
    """The open, the Pods view, a pod selected, the Nodes view and a node powered off, time run on,
    steps back and a minute back, each time the Pods view shown again."""
    seen_each = []
    await settle(pilot)
    await press(pilot, "2")
    seen_each.append(seen(app))
    await press(pilot, "down", "down", "down")
    seen_each.append(seen(app))
    await press(pilot, "1")
    app.runner.apply(Operation("power-off", node=app.selected_node()))
    await app.advance(120)
    await press(pilot, "2")
    seen_each.append(seen(app))
    await press(pilot, "1", "comma", "comma", "less_than_sign")
    await press(pilot, "2")
    seen_each.append(seen(app))
    await press(pilot, "1")
    await app.advance(30)
    await press(pilot, "2")
    seen_each.append(seen(app))
    return seen_each


async def test_a_hidden_pods_table_is_filled_when_shown_as_a_table_filled_at_once(monkeypatch):
    reference = make_app()
    async with reference.run_test(size=SIZE) as pilot:
        expected = await walk(reference, pilot)
    monkeypatch.setattr(PodsView, "FILL_WHEN_SHOWN_FROM", 1)
    monkeypatch.setattr(PodsView, "FILL_CHECK_SECONDS", 3600)  # (only showing the view fills it here)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pods = app.views["pods"]
        assert pods.table.row_count == 0 and pods.live_count() == len(app.sim.store.pods) > 0
        assert f"2 Pods {len(app.sim.store.pods)} " in app.tabs.content.plain
        assert await walk(app, pilot) == expected
        await press(pilot, "1", "comma")
        assert pods.table.row_count == 0  # time travel's redraw left it for the next showing


async def test_a_hidden_pods_table_is_filled_once_the_keys_are_quiet(monkeypatch):
    reference = make_app()
    async with reference.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        expected = seen(reference)
    monkeypatch.setattr(PodsView, "FILL_WHEN_SHOWN_FROM", 1)
    monkeypatch.setattr(PodsView, "FILL_CHECK_SECONDS", 0.02)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pods = app.views["pods"]
        app._input_at = float("inf")  # a key just now, and always: the fill waits
        await settle(pilot)
        await asyncio.sleep(0.2)
        await pilot.pause()
        assert pods.table.row_count == 0
        app._input_at = float("-inf")  # no key for long: the next check fills it
        deadline = time.monotonic() + 10
        while pods.table.row_count == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert pods.table.row_count == len(app.sim.store.pods)  # filled while the Nodes view is shown
        await press(pilot, "2")
        assert seen(app) == expected
