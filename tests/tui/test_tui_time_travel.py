"""Time travel in the TUI: `,` `<` `>`, ctrl+g, enter on an event, the plot strip, forks; each key
goes through the app's TimeControl and lands on the state of a straight run."""

from __future__ import annotations

import json

from rich.text import Text

from playground.engine import Operation, Simulation
from playground.engine.report import snapshot
from playground.scenario import load_scenario
from playground.tui.screens.time_dialogs import BranchesDialog, GoToTimeDialog, parse_instant
from playground.tui.widgets.plot import PlotStrip, label, sparkline

from tui_helpers import SIZE, SMALL, make_app, settle


def header(app) -> str:
    return app.header.content.plain


def document(sim: Simulation) -> str:
    return json.dumps(snapshot(sim), indent=1)


def straight(until_ms: int, ops=()) -> Simulation:
    sim = Simulation(load_scenario(SMALL))
    for time, op in ops:
        sim.run_until_ms(time)
        sim.apply(op)
    sim.run_until_ms(until_ms)
    return sim


async def press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


def plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


async def test_comma_steps_back_one_tick_and_the_header_says_what_lies_ahead():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(12)
        await press(pilot, "comma")
        assert app.sim.clock.now == 11_000
        assert "T+11s" in header(app) and "recorded to 12s" in header(app)
        assert document(app.sim) == document(straight(11_000))
        await press(pilot, "comma", "comma")
        assert app.sim.clock.now == 9_000 and app.runner.paused


async def test_rewind_and_forward_a_minute_along_the_recorded_future():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(30)
        app.apply_operation(Operation("power-off", node="b-1"))
        await app.advance(60)
        await press(pilot, "less_than_sign")
        assert app.sim.clock.now == 30_000
        assert app.nodes_view.table.total_count == 4
        await press(pilot, "less_than_sign")
        assert app.sim.clock.now == 0
        await press(pilot, "greater_than_sign")
        assert app.sim.clock.now == 60_000  # the power-off at 30 s was applied again on the way
        assert document(app.sim) == document(straight(60_000, [(30_000, Operation("power-off", node="b-1"))]))
        await press(pilot, "greater_than_sign")
        assert app.sim.clock.now == 90_000 and "recorded to" not in header(app)
        await press(pilot, "greater_than_sign")
        assert app.sim.clock.now == 90_000  # never past the furthest instant reached


async def test_stepping_after_going_back_follows_the_recorded_future():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        app.apply_operation(Operation("cordon", node="a-1"))
        await app.advance(5)
        await press(pilot, "less_than_sign")
        assert not app.sim.store.nodes["a-1"].unschedulable
        for _ in range(6):
            await press(pilot, "full_stop")
        assert app.sim.store.nodes["a-1"].unschedulable and not app.sim.history.branches


async def test_enter_on_an_event_goes_to_its_instant_and_keeps_the_cursor_on_it():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(20)
        app.apply_operation(Operation("power-off", node="b-2"))
        await app.advance(100)
        await press(pilot, "5")
        view = app.events_view
        key, event = next((k, e) for k, e in view.events.items() if e.reason == "NodeNotReady")
        assert event.time > 20_000
        assert view.table.select_key(key)
        await press(pilot, "enter")
        assert app.sim.clock.now == event.time
        assert view.table.cursor_key == key
        assert max(e.time for e in view.events.values()) == event.time  # nothing after that instant
        assert document(app.sim) == document(straight(event.time, [(20_000, Operation("power-off", node="b-2"))]))


async def test_ctrl_g_goes_to_a_typed_time_and_explains_a_bad_one():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(100)
        await press(pilot, "ctrl+g")
        dialog = app.screen
        assert isinstance(dialog, GoToTimeDialog)
        field = dialog.query_one("#time")
        field.value = "1 minute"
        await press(pilot, "enter")
        assert "e.g. 3m20s" in str(dialog.query_one("#error").render())
        field.value = "45s"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.sim.clock.now == 45_000
        assert document(app.sim) == document(straight(45_000))


def test_typed_instants():
    assert parse_instant("3m20s") == 200_000
    assert parse_instant("200") == 200_000
    assert parse_instant("1.5") == 1_500
    for bad in ("", "soon", "-5s"):
        try:
            parse_instant(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


async def test_a_new_operation_after_going_back_forks_and_the_old_future_can_be_saved(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(10)
        app.apply_operation(Operation("power-off", node="a-1"))
        await app.advance(50)
        await press(pilot, "less_than_sign")
        assert app.sim.clock.now == 0
        await app.advance(5)
        app.apply_operation(Operation("cordon", node="b-1"))
        await settle(pilot)
        assert any(title == "Forked" and "branch-1" in message for _s, title, message in app.messages)
        assert "recorded to" not in header(app)
        titles = [c.title for c in app.palette_commands("")]
        assert "Switch to branch-1" in titles and "Save branch-1…" in titles
        # what ctrl+s writes now replays what is seen: the cordon, not the power-off
        app.sim.save(tmp_path / "now.toml")
        saved = load_scenario(tmp_path / "now.toml")
        assert [(e.do, e.node) for e in saved.timeline] == [("cordon", "b-1")]
        app.sim.history.save_branch("branch-1", tmp_path / "old.toml")
        old = load_scenario(tmp_path / "old.toml")
        assert [(e.do, e.node) for e in old.timeline] == [("power-off", "a-1")]
        switch = next(c for c in app.palette_commands("") if c.title == "Switch to branch-1")
        switch.callback()
        await settle(pilot)
        assert app.sim.clock.now == 60_000
        assert document(app.sim) == document(straight(60_000, [(10_000, Operation("power-off", node="a-1"))]))


async def test_b_lists_the_branches_and_enter_switches_to_one():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "b")
        assert not isinstance(app.screen, BranchesDialog)
        assert any(title == "Branches" and "No branches yet" in message for _s, title, message in app.messages)
        await app.advance(10)
        app.apply_operation(Operation("power-off", node="a-1"))
        await app.advance(50)
        await press(pilot, "less_than_sign")
        await app.advance(5)
        app.apply_operation(Operation("cordon", node="b-1"))
        await settle(pilot)
        await press(pilot, "b")
        assert isinstance(app.screen, BranchesDialog)
        option = app.screen.query_one("#branches").get_option_at_index(0)
        assert option.prompt.plain == "branch-1  forked at 5s, recorded to 1m, 1 operation(s)"
        assert app.screen.highlighted() == "branch-1"
        await press(pilot, "enter")
        assert not isinstance(app.screen, BranchesDialog)
        assert app.sim.clock.now == 60_000
        assert document(app.sim) == document(straight(60_000, [(10_000, Operation("power-off", node="a-1"))]))
        assert list(app.sim.history.branches) == ["branch-2"]  # the cordon's future, kept in its place
        await press(pilot, "b", "s")
        assert type(app.screen).__name__ == "SaveDialog"
        assert "branch-2" in str(app.screen.query_one("Input").value)


async def test_ctrl_t_shows_the_plots_with_the_current_instant_marked_and_the_history_memory():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        strip = app.query_one(PlotStrip)
        assert not strip.display or not strip.has_class("-shown")
        await app.advance(10)
        app.apply_operation(Operation("power-off", node="b-1"))
        await app.advance(110)
        await press(pilot, "ctrl+t")
        assert strip.has_class("-shown") and strip.region.height == 6
        text = strip.content
        lines = text.plain.splitlines()
        assert lines[0].startswith("Plots") and "checkpoints" in lines[0] and "KiB" in lines[0]
        titles = [line[:22].strip() for line in lines[1:]]
        assert titles == ["Ready zone-a", "Ready zone-b", "Pending pods", "Running pods", "Evictions"]
        assert lines[2].rstrip().endswith(" 1")  # zone-b: b-1 is no longer Ready
        marked = [span for span in text.spans if "reverse" in str(span.style)]
        assert len(marked) == 5 and all(span.end - span.start == 1 for span in marked)
        last_column = max(span.start - text.plain.rfind("\n", 0, span.start) for span in marked)
        await press(pilot, "less_than_sign")
        text = strip.content
        marked = [span for span in text.spans if "reverse" in str(span.style)]
        column = max(span.start - text.plain.rfind("\n", 0, span.start) for span in marked)
        assert column < last_column  # the marker moved back; the recorded future stays drawn, dimmed
        assert "recorded to 2m" in text.plain.splitlines()[0]
        await press(pilot, "ctrl+t")
        assert not strip.has_class("-shown")


def test_a_long_zone_name_keeps_its_end():
    assert label("ready:eu-west/eu-west-a") == "Ready …west/eu-west-a"
    assert label("ready:") == "Ready (no zone)"


def test_sparkline_scales_to_the_peak():
    assert sparkline([0, 1, 2, 4, 0.1]) == " ▂▄█▁"
    assert sparkline([0, 0]) == "  "


async def test_a_keymap_can_move_the_time_travel_keys():
    app = make_app(keymap={"playground.step-back": "b", "playground.rewind": "B"})
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(70)
        await press(pilot, "b")
        assert app.sim.clock.now == 69_000
        await press(pilot, "B")
        assert app.sim.clock.now == 9_000


async def test_palette_and_keys_use_the_same_time_control():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(90)
        commands = {c.title: c for c in app.palette_commands("")}
        commands["Rewind one minute"].callback()
        await settle(pilot)
        assert app.sim.clock.now == 30_000
        commands["Step back one tick"].callback()
        await settle(pilot)
        assert app.sim.clock.now == 29_000
        commands["Forward one minute"].callback()
        await settle(pilot)
        assert app.sim.clock.now == 89_000
