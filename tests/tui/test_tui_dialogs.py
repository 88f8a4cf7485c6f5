"""Dialogs: load, save, the command palette with node names, pickers."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from playground.scenario import load_scenario
from playground.tui.screens.dialogs import ConfirmDialog, LoadDialog, PickerDialog, SaveDialog

from tui_helpers import SIZE, make_app, settle

ROOT = Path(__file__).resolve().parents[2]


async def press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


async def test_ctrl_o_loads_a_scenario_and_reports_errors_in_the_dialog(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text('[scenario]\nname = "x"\n[[nodes]]\nname = "n"\ncapacity = { cpu = "lots", memory = "1Gi" }\n')
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+o")
        dialog = app.screen
        assert isinstance(dialog, LoadDialog)
        listed = [str(p) for p in dialog.files]
        assert any(p.endswith("default.toml") for p in listed) and any(p.endswith("small.toml") for p in listed)
        path_input = dialog.query_one("#path")
        path_input.value = str(broken)
        path_input.focus()
        await press(pilot, "enter")
        assert app.screen is dialog  # still open, with the loader's message
        error = str(dialog.query_one("#error").content)
        assert "broken.toml" in error and "cpu" in error
        path_input.value = str(ROOT / "scenarios" / "node-failure.toml")
        await press(pilot, "enter")
        assert not isinstance(app.screen, LoadDialog)
        assert app.sim.scenario.scenario.name == "node-failure"
        assert app.nodes_view.table.keys() == ["worker-1", "worker-2", "worker-3"]
        assert app.sim.clock.now == 0 and "node-failure" in app.header.content.plain
        await app.advance(65)  # the loaded timeline runs: worker-2 loses power at 1m
        assert app.sim.kubelets["worker-2"].power == "off"


async def test_ctrl_s_saves_the_session_so_that_it_replays(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        app.nodes_view.table.select_key("b-1")
        await press(pilot, "c")
        await app.advance(2)
        await press(pilot, "ctrl+s")
        dialog = app.screen
        assert isinstance(dialog, SaveDialog)
        assert str(dialog.query_one("#path").value).endswith("small-at-5s.toml")
        target = tmp_path / "session.toml"
        dialog.query_one("#path").value = str(target)
        await press(pilot, "enter")
        assert not isinstance(app.screen, SaveDialog)
        assert app.messages[-1][1] == "Saved" and "1 operation" in app.messages[-1][2]
    saved = load_scenario(target)
    assert [(e.at, e.do, e.node) for e in saved.timeline] == [(3000, "cordon", "b-1")]
    assert saved.scenario.name == "tui-small"
    assert not list(tmp_path.glob(".session.toml.*"))  # no temporary file left behind


async def test_save_errors_keep_the_dialog_open(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+s")
        dialog = app.screen
        dialog.query_one("#path").value = str(tmp_path / "no" / "such" / "folder" / "x.toml")
        await press(pilot, "enter")
        assert app.screen is dialog
        assert "No such file" in str(dialog.query_one("#error").content)
        await press(pilot, "escape")
        assert not isinstance(app.screen, SaveDialog)


async def palette(pilot, text: str) -> None:
    await press(pilot, "ctrl+p")
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*text)
    for _ in range(20):  # the palette searches in the background
        await pilot.pause(0.02)
    await press(pilot, "enter")


async def test_palette_runs_a_node_operation_on_a_node_named_in_the_query():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await palette(pilot, "power off b-2")
        assert isinstance(app.screen, ConfirmDialog)
        await press(pilot, "y")
        assert app.sim.kubelets["b-2"].power == "off"
        assert app.nodes_view.table.cursor_key == "a-1"  # the selection was not needed


async def test_palette_picks_the_node_by_name():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await palette(pilot, "cordon node")
        assert isinstance(app.screen, PickerDialog)
        await pilot.press(*"b-2")
        await press(pilot, "enter")
        assert app.sim.store.nodes["b-2"].unschedulable


async def test_palette_offers_every_engine_operation():
    from playground.engine.operations import OPERATION_INFO

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.palette_commands("")]
        for name, info in OPERATION_INFO.items():
            assert any(t.startswith(info.title) for t in titles), name
        for title in ("Pause / resume", "Step one tick", "Faster", "Slower", "Load a scenario…",
                      "Save the scenario…", "View: Pods", "Filter the current view", "Toggle out-of-service taint node…"):
            assert title in titles
        direct = [c.title for c in app.palette_commands("drain b-1")]
        assert "Drain b-1" in direct and "Power off b-1" in direct


async def test_palette_speed_and_views():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await palette(pilot, "speed ×100")
        assert app.runner.speed == 100
        await palette(pilot, "view: events")
        assert app.current_view == "events"


async def test_an_operation_without_a_dialog_gets_a_picker(monkeypatch):
    """A new OPERATION_INFO entry is in the palette at once, with a target picker."""
    from playground.engine import operations

    info = operations.OperationInfo("rename-node", "Rename node", "node", "A future operation.")
    monkeypatch.setitem(operations.OPERATION_INFO, "rename-node", info)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await palette(pilot, "rename node")
        assert isinstance(app.screen, PickerDialog)
        await pilot.press(*"a-2")
        await press(pilot, "enter")
        result = app.last_result
        assert result.operation.do == "rename-node" and result.operation.node == "a-2"
        assert not result.ok and "unknown operation" in result.message  # the engine answers; no crash


async def test_events_view_is_bounded_and_follows_the_tail():
    app = make_app(event_limit=40)
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "5")
        table = app.events_view.table
        await app.advance(5)
        await pilot.pause()
        assert table.row_count <= 40
        assert table.cursor_index == table.row_count - 1
        app.nodes_view.table.select_key("a-1")
        await press(pilot, "1", "c", "u", "5")
        newest = max(table.keys())
        assert table.cursor_key == newest
        assert table.source.cells(newest)[3].plain == "NodeSchedulable"
        # a second cordon repeats the first NodeNotSchedulable: that row's COUNT becomes 2
        await press(pilot, "1", "c", "5")
        assert max(table.keys()) == newest
        [counted] = [k for k in table.keys() if table.source.cells(k)[3].plain == "NodeNotSchedulable"]
        assert table.source.cells(counted)[5].plain == "2"
        assert len(app.events_view.events) <= 40


async def test_events_view_title_says_how_much_of_the_log_is_kept():
    """Once the bounded log dropped events, the title says how many it keeps of how many were
    recorded; before, it says nothing of it."""
    app = make_app(event_limit=12)
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "5")
        title = app.events_view.title_bar
        recorder = app.sim.store.recorder
        while recorder.total <= 12:
            assert "kept" not in title.content.plain
            await app.advance(1)
            await pilot.pause()
        app.nodes_view.table.select_key("a-1")
        await press(pilot, "1", "c", "u", "5")
        assert recorder.total > 12
        assert title.content.plain.startswith("Events  [12]")
        assert f"the newest 12 of {recorder.total:,} events are kept (playground sim lists all)" in title.content.plain


async def test_ctrl_o_opens_a_kubectl_dump_as_the_command_line_does():
    """A dump typed as the path is imported (its report's first line shown), opened at 0 s, and
    a save goes beside it as TOML."""
    dump = ROOT / "tests" / "data" / "dumps" / "eks-cluster.json"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+o")
        dialog = app.screen
        path_input = dialog.query_one("#path")
        path_input.value = str(dump)
        path_input.focus()
        await press(pilot, "enter")
        assert not isinstance(app.screen, LoadDialog)
        assert app.sim.scenario.scenario.name == "eks-cluster"
        assert sorted(app.nodes_view.table.keys()) == sorted(app.sim.scenario.node_names())
        assert app.scenario_path == dump.with_suffix(".toml")
        assert app.sim.opened and app.view_count("pods") == 11
        assert any("Imported 3 nodes, 11 pods" in message for _, _, message in app.messages)


async def test_the_load_dialog_reads_in_a_thread_and_says_so():
    """A big file takes seconds to read: the dialog reads it off the event loop, shows that it is
    reading, ignores Enter meanwhile, and closes with the scenario when the read is done."""
    import asyncio
    import threading

    release = threading.Event()
    calls = []

    def slow_loader(path):
        calls.append(path)
        release.wait(30)
        return load_scenario(path)

    app = make_app()
    path = ROOT / "scenarios" / "node-failure.toml"
    async with app.run_test(size=SIZE) as pilot:
        results = []
        app.push_screen(LoadDialog([], slow_loader, path), results.append)
        await pilot.pause()
        dialog = app.screen
        dialog.submit()
        dialog.submit()  # Enter again while reading: ignored
        await pilot.pause()
        assert app.screen is dialog and dialog.reading
        assert str(dialog.query_one("#reading").content) == f"Reading {path}…"
        release.set()
        for _ in range(3000):  # the read ends as soon as it is released
            if not dialog.reading:
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        assert len(calls) == 1 and app.screen is not dialog
        assert results[0][1] == path and results[0][0].scenario.name == "node-failure"


async def test_palette_powers_off_a_whole_zone_one_operation_a_node(tmp_path):
    """ctrl+p "Power off zone…": a zone picker (the selected node's first), a confirmation with the
    zone's nodes and pods, then one power-off a node at this instant, told in one message; a saved
    session replays them."""
    from playground.engine import Simulation
    from playground.scenario import load_scenario

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        app.nodes_view.table.select_key("b-1")
        await palette(pilot, "power off zone")
        assert isinstance(app.screen, PickerDialog)
        assert [label.split()[0] for _zone, label in app.zone_choices("")] == ["zone-a", "zone-b"]
        await press(pilot, "enter")  # the selected node's zone
        assert isinstance(app.screen, ConfirmDialog)
        await press(pilot, "y")
        assert [app.sim.kubelets[n].power for n in ("a-1", "a-2", "b-1", "b-2")] == ["on", "on", "off", "off"]
        entries = app.sim.session_entries()
        assert [(e["do"], e["node"]) for e in entries] == [("power-off", "b-1"), ("power-off", "b-2")]
        severity, title, message = app.messages[-1]
        assert title == "Power off zone-b" and message.startswith("2 operations: ")
        saved = app.sim.save(tmp_path / "zone.toml")
        now = app.sim.clock.now
        assert app.apply_operations([], "Power off zone-c") == []  # a zone emptied meanwhile
        assert app.messages[-1] == ("warning", "Power off zone-c", "nothing to do")
    replay = Simulation(load_scenario(saved))
    replay.run_until_ms(now)
    assert [replay.kubelets[n].power for n in ("a-1", "a-2", "b-1", "b-2")] == ["on", "on", "off", "off"]
