"""Snapshots of the main views (pytest-textual-snapshot). Update with `pytest --snapshot-update`
after a deliberate change, and look at the SVGs in tests/tui/__snapshots__/ before committing them."""

from __future__ import annotations

from playground.engine import Operation

from tui_helpers import SIZE, make_app


def outage_app(view: str = "nodes"):
    """b-1 powered off at 5 s; at 70 s it is NotReady, tainted, its pods counting down."""
    return make_app(view=view)


async def _outage(pilot, view: str, select: str | None = None, keys: tuple[str, ...] = ()) -> None:
    app = pilot.app
    await app.advance(5)
    app.sim.apply(Operation("power-off", node="b-1"))
    await app.advance(65)
    app.action_view(view)
    if select is not None:
        app.views[view].table.select_key(select)
    await pilot.pause()
    app.views[view].frame(True)
    for key in keys:
        await pilot.press(key)
    await pilot.pause()
    app.clear_notifications()
    await pilot.pause()


def test_nodes_view_during_an_outage(snap_compare):
    async def before(pilot):
        await _outage(pilot, "nodes", "b-1")
    assert snap_compare(outage_app(), terminal_size=SIZE, run_before=before)


def test_pods_view(snap_compare):
    async def before(pilot):
        await _outage(pilot, "pods")
    assert snap_compare(outage_app(), terminal_size=SIZE, run_before=before)


def test_pending_view(snap_compare):
    async def before(pilot):
        await _outage(pilot, "pending", "default/huge")
    assert snap_compare(outage_app(), terminal_size=SIZE, run_before=before)


def test_leases_view(snap_compare):
    async def before(pilot):
        await _outage(pilot, "leases", "b-1")
    assert snap_compare(outage_app(), terminal_size=SIZE, run_before=before)


def test_events_view(snap_compare):
    async def before(pilot):
        await _outage(pilot, "events")
    assert snap_compare(outage_app(), terminal_size=SIZE, run_before=before)


def test_pdb_view_with_a_blocked_drain(snap_compare):
    async def before(pilot):
        app = pilot.app
        await app.advance(5)
        app.sim.apply(Operation("drain", node="a-1"))
        await app.advance(3)
        app.action_view("pdbs")
        await pilot.pause()
        app.views["pdbs"].frame(True)
        app.clear_notifications()
        await pilot.pause()
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_power_off_confirmation(snap_compare):
    async def before(pilot):
        await pilot.app.advance(5)
        pilot.app.nodes_view.table.select_key("a-2")
        await pilot.press("p")
        await pilot.pause()
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_drain_dialog(snap_compare):
    async def before(pilot):
        await pilot.app.advance(5)
        await pilot.press("d")
        await pilot.pause()
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_help_screen(snap_compare):
    async def before(pilot):
        await pilot.app.timecontrol.opened()
        await pilot.press("question_mark")
        await pilot.pause()
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)
