"""The time control (timecontrol.py) is the one place the clock is run, stepped and sped up: the keys
and the palette reach the same TimeControl, and so do the tests."""

from __future__ import annotations

from playground.tui.bindings import binding_groups, global_bindings
from playground.tui.timecontrol import BINDING_IDS, TimeControl, time_bindings

from tui_helpers import SIZE, make_app, settle


async def test_keys_and_palette_drive_the_same_time_control():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.timecontrol, TimeControl) and app.timecontrol.paused
        await pilot.press("full_stop")
        await settle(pilot)
        assert app.sim.clock.now == 1000
        step = next(c for c in app.palette_commands("") if c.title == "Step one tick")
        step.callback()
        await settle(pilot)
        assert app.sim.clock.now == 2000 and app.timecontrol.paused
        await pilot.press("plus")
        assert app.timecontrol.speed == 2
        faster = next(c for c in app.palette_commands("") if c.title == "Faster")
        faster.callback()
        assert app.timecontrol.speed == 5
        resume = next(c for c in app.palette_commands("") if c.title == "Pause / resume")
        resume.callback()
        assert not app.runner.paused and "▶ ×5" in app.header.content.plain


async def test_advance_to_reaches_the_instant_on_the_virtual_clock():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        result = await app.timecontrol.advance_to(4500)
        await pilot.pause()
        assert result.ticks == 5 and app.sim.clock.now == 5000
        assert "T+5s" in app.header.content.plain


def test_every_time_key_is_an_app_key_and_in_the_help_simulation_group():
    ids = [b.id for b in time_bindings()]
    assert ids == list(BINDING_IDS)
    app_ids = [b.id for b in global_bindings()]
    assert all(i in app_ids for i in ids)
    groups = dict(binding_groups())
    assert [b.id for b in groups["Simulation"]] == ids
