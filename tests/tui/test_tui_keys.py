"""Every key of the main screen, on the small scenario, started paused and stepped explicitly."""

from __future__ import annotations

from rich.text import Text

from playground.engine import Operation
from playground.tui.screens.dialogs import ConfirmDialog, ViewPrompt
from playground.tui.screens.help import HelpScreen

from tui_helpers import SIZE, make_app, settle


def plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def row(app, view: str, key: str) -> dict[str, str]:
    table = app.views[view].table
    return {c.key: plain(v) for c, v in zip(table.columns, table.source.cells(key))}


def rendered(renderable, width: int = 160) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def header(app) -> str:
    return app.header.content.plain


async def select(pilot, node: str) -> None:
    app = pilot.app
    if app.current_view != "nodes":
        await pilot.press("1")
    assert app.nodes_view.table.select_key(node)
    await pilot.pause()


async def press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


# ---------------------------------------------------------------- clock and speed


async def test_starts_paused_and_shows_the_clock_speed_and_zones():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.runner.paused
        text = header(app)
        assert "PAUSED" in text and "T+0s" in text and "2026-01-01 00:00:00Z" in text and "tui-small" in text
        await app.advance(5)
        await pilot.pause()
        zones = app.header.content.plain
        assert "zone-a Normal 2/2 ready" in zones and "zone-b Normal 2/2 ready" in zones
        assert "T+5s" in header(app) and "2026-01-01 00:00:05Z" in header(app)


async def test_space_pauses_and_resumes():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "space")
        assert not app.runner.paused and "▶ ×1" in header(app)
        await press(pilot, "space")
        assert app.runner.paused and "PAUSED" in header(app)


async def test_dot_steps_one_tick_and_pauses_first():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "full_stop")
        assert app.sim.clock.now == 1000
        await press(pilot, "full_stop", "full_stop")
        assert app.sim.clock.now == 3000
        assert "T+3s" in header(app)
        app.action_toggle_pause()
        await press(pilot, "full_stop")
        assert app.runner.paused
        assert app.sim.clock.now >= 4000


async def test_plus_and_minus_change_the_speed():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "plus")
        assert app.runner.speed == 2
        await press(pilot, "equals_sign", "plus")
        assert app.runner.speed == 10
        await press(pilot, "minus")
        assert app.runner.speed == 5
        app.action_toggle_pause()
        await pilot.pause()
        assert "×5" in header(app)
        for _ in range(12):
            await pilot.press("plus")
        assert app.runner.speed == 1000


# ---------------------------------------------------------------- views, filter, help


async def test_number_keys_switch_views():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for key, view in (("2", "pods"), ("3", "pending"), ("4", "leases"), ("5", "events"), ("6", "pdbs"),
                          ("1", "nodes")):
            await press(pilot, key)
            assert app.current_view == view
            assert app.query_one("#views").current == view
            assert app.focused is app.views[view].table
        tabs = app.tabs.content
        assert "1 Nodes 4" in tabs.plain and "3 Pending" in tabs.plain


async def test_colon_prompt_goes_to_a_view_and_q_quits():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "colon")
        assert isinstance(app.screen, ViewPrompt)
        await press(pilot, *"po", "enter")
        assert app.current_view == "pods"
        await press(pilot, "colon", *"pend", "enter")
        assert app.current_view == "pending"
        await press(pilot, "colon", *"nonsense", "enter")
        assert isinstance(app.screen, ViewPrompt)  # stays open, says so
        assert any("no view called" in m for _, _, m in app.messages)
        await press(pilot, "escape")
        assert not isinstance(app.screen, ViewPrompt)
        await press(pilot, "colon", "q", "enter")
    assert app.return_code == 0


async def test_slash_filters_the_view_and_escape_clears_it():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        table = app.nodes_view.table
        await press(pilot, "slash")
        assert app.focused is app.nodes_view.filter_input
        await pilot.press(*"b-")
        await press(pilot, "enter")
        assert table.keys() == ["b-1", "b-2"]
        assert app.focused is table
        assert "/b-" in app.nodes_view.title_bar.content.plain
        await press(pilot, "escape")
        assert table.keys() == ["a-1", "a-2", "b-1", "b-2"]
        # In the input, Escape clears too; "!" inverts.
        await press(pilot, "slash", "exclamation_mark", *"a-", "enter")
        assert table.keys() == ["b-1", "b-2"]
        await press(pilot, "slash", "escape")
        assert table.keys() == ["a-1", "a-2", "b-1", "b-2"]


async def test_question_mark_lists_every_key_with_its_binding_id():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = rendered(app.screen.query_one("#help-body").content, 200)
        for needle in ("playground.node.power-off", "playground.pause", "playground.step", "playground.faster",
                       "playground.node.drain", "playground.pod.delete-pod", "playground.save", "playground.load",
                       "Power off", "Out-of-service"):
            assert needle in text
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_q_quits():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "q")
    assert app.return_code == 0


# ---------------------------------------------------------------- node operations


async def test_c_and_u_cordon_and_uncordon_the_selected_node():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-2")
        await press(pilot, "c")
        assert app.sim.store.nodes["a-2"].unschedulable
        assert row(app, "nodes", "a-2")["status"] == "Ready,SchedulingDisabled"
        assert row(app, "nodes", "a-2")["taints"] == "unschedulable:NS"
        assert app.messages[-1][1] == "cordon a-2"
        await press(pilot, "u")
        assert not app.sim.store.nodes["a-2"].unschedulable
        assert row(app, "nodes", "a-2")["status"] == "Ready"


async def test_p_powers_off_after_confirmation_and_the_screen_shows_what_follows():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await select(pilot, "b-1")
        await press(pilot, "p")
        assert isinstance(app.screen, ConfirmDialog)
        await press(pilot, "n")  # cancelled: nothing happens
        assert app.sim.kubelets["b-1"].power == "on"
        await press(pilot, "p", "y")
        assert app.sim.kubelets["b-1"].power == "off"
        assert row(app, "nodes", "b-1")["machine"] == "PoweredOff"
        await app.advance(30)
        await pilot.pause()
        assert row(app, "nodes", "b-1")["lease"] == "35s"  # renewTime stays at 0s
        assert "Ready→Unknown in 20s" in rendered(app.nodes_view.detail.content)
        await app.advance(30)
        await pilot.pause()
        cells = row(app, "nodes", "b-1")
        assert cells["status"] == "NotReady" and "unreachable:NS" in cells["taints"]
        assert cells["lease"] == "65s"
        await app.advance(10)
        assert "unreachable:NS+NE" in row(app, "nodes", "b-1")["taints"]


async def test_o_powers_on_and_refusals_are_messages():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-1")
        await press(pilot, "o")  # already on: the cluster refuses, the app says so
        assert app.last_result is not None and not app.last_result.ok
        severity, title, message = app.messages[-1]
        assert severity == "warning" and title.startswith("Refused") and "already powered on" in message
        app.sim.apply(Operation("power-off", node="a-1"))
        await press(pilot, "o")
        assert app.sim.kubelets["a-1"].power == "on" and app.last_result.ok


async def test_s_shuts_the_node_down_gracefully():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await select(pilot, "a-1")
        await press(pilot, "s")
        assert app.sim.kubelets["a-1"].state_label() == "ShuttingDown"
        assert row(app, "nodes", "a-1")["machine"] == "ShuttingDown"
        await app.advance(2)
        app.nodes_view.show_detail()
        text = rendered(app.nodes_view.detail.content)
        assert "shutdown: priority-" in text and "◀ running" in text
        await app.advance(40)
        assert app.sim.kubelets["a-1"].power == "off"


async def test_n_and_h_partition_and_heal():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "b-2")
        await press(pilot, "n")
        assert app.sim.kubelets["b-2"].network == "partitioned"
        assert row(app, "nodes", "b-2")["machine"] == "Partitioned"
        await press(pilot, "h")
        assert app.sim.kubelets["b-2"].network == "connected"


async def test_k_K_and_e_stop_start_and_restart_the_kubelet():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-2")
        await press(pilot, "k")
        assert not app.sim.kubelets["a-2"].running
        assert row(app, "nodes", "a-2")["machine"] == "KubeletStopped"
        await press(pilot, "K")
        assert app.sim.kubelets["a-2"].running
        await press(pilot, "e")
        assert app.last_result.operation.do == "restart-kubelet" and app.last_result.ok


async def test_t_adds_a_taint_and_T_removes_one_names_are_never_markup():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-1")
        await press(pilot, "t")
        await press(pilot, *"bad:Nope", "enter")
        assert "invalid taint effect" in str(app.screen.query_one("#error").content)
        app.screen.query_one("#taint").value = ""
        # "[b]" is no valid label value (Kubernetes' rule), so markup never reaches a taint
        await press(pilot, *"dedicated=[b]db:NoSchedule", "enter")
        assert "a valid label must be an empty string" in str(app.screen.query_one("#error").content)
        app.screen.query_one("#taint").value = ""
        await press(pilot, *"dedicated=db:NoSchedule", "enter")
        node = app.sim.store.nodes["a-1"]
        assert "dedicated=db:NoSchedule" in node.taint_strings()
        assert row(app, "nodes", "a-1")["taints"] == "dedicated=db:NS"
        await press(pilot, "T")
        await press(pilot, "enter")
        assert node.taints == []


async def test_O_toggles_the_out_of_service_taint():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "b-1")
        await press(pilot, "O")
        assert isinstance(app.screen, ConfirmDialog)
        await press(pilot, "y")
        assert "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute" in app.sim.store.nodes["b-1"].taint_strings()
        await press(pilot, "O")  # removing needs no confirmation
        assert app.sim.store.nodes["b-1"].taints == []


async def test_d_drains_with_options_blocked_by_the_budget_and_D_cancels():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await select(pilot, "a-1")
        await press(pilot, "d")
        dialog = app.screen
        assert dialog.query_one("#opt-ignore_daemonsets").value is False
        dialog.query_one("#opt-timeout").value = "soon"
        await press(pilot, "enter")  # the OK button has the focus
        assert "--timeout" in str(dialog.query_one("#error").content)
        dialog.query_one("#opt-timeout").value = "2m"
        await pilot.click("#ok")
        await settle(pilot)
        op = app.last_result.operation
        assert op.do == "drain" and op.timeout == 120_000
        await app.advance(3)
        await pilot.pause()
        status = app.sim.drain.status["a-1"]
        assert status.state == "Blocked"  # the web PDB (minAvailable 4) allows no disruption
        assert row(app, "nodes", "a-1")["drain"] == "Blocked"
        await press(pilot, "D")
        assert app.sim.drain.status["a-1"].phase == "Cancelled"


async def test_X_deletes_the_node_after_confirmation():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "b-2")
        await press(pilot, "X", "y")
        assert "b-2" not in app.sim.store.nodes
        # The machine keeps its row (the Node object is gone), so that its kubelet can bring it back.
        assert app.nodes_view.table.keys() == ["a-1", "a-2", "b-1", "b-2"]
        assert row(app, "nodes", "b-2")["status"] == "<deleted>"
        assert app.nodes_view.table.cursor_key == "b-2"


# ---------------------------------------------------------------- pods, workloads


async def test_ctrl_d_deletes_the_selected_pod():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await press(pilot, "2")
        table = app.views["pods"].table
        web = next(k for k in table.keys() if "/web-" in k)
        table.select_key(web)
        await press(pilot, "ctrl+d")
        await press(pilot, "enter")
        assert app.sim.store.pods[web].deletion_timestamp is not None
        assert row(app, "pods", web)["status"] == "Terminating"
        await press(pilot, "3")
        assert app.views["pending"].table.keys() == ["default/huge"]
        await press(pilot, "ctrl+d", *"0", "enter")
        assert "default/huge" not in app.sim.store.pods
        assert app.views["pending"].table.keys() == []


async def test_a_creates_a_pod():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await press(pilot, "a")
        await pilot.press(*"extra")
        app.screen.query_one("#cpu").value = "100m"
        app.screen.query_one("#memory").value = "64Mi"
        await pilot.click("#ok")
        await settle(pilot)
        assert "default/extra" in app.sim.store.pods
        assert app.view_count("pods") == len(app.sim.store.pods)  # the tab counts it while hidden
        await press(pilot, "2")
        assert "default/extra" in app.views["pods"].table
        await app.advance(3)
        assert app.sim.store.pods["default/extra"].phase == "Running"


async def test_r_scales_a_deployment():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await press(pilot, "r")
        app.screen.query_one("#replicas").value = "6"
        await press(pilot, "enter")
        assert app.sim.store.deployments["web"].replicas == 6
        await app.advance(3)
        await press(pilot, "2")
        assert sum(1 for k in app.views["pods"].table.keys() if "/web-" in k) == 6


async def test_pending_view_shows_queue_and_the_schedulers_reason():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        await press(pilot, "3")
        cells = row(app, "pending", "default/huge")
        assert cells["queue"] in ("unschedulable", "active") or cells["queue"].startswith("backoff until")
        assert cells["reason"].startswith("0/4 nodes are available: 4 Insufficient cpu.")
        detail = rendered(app.views["pending"].detail.content)
        assert "kube-scheduler says" in detail and "0/4 nodes are available: 4 Insufficient cpu." in detail


async def test_operations_wait_while_the_engine_is_busy():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-1")
        app.runner._set_busy(True)  # a tick runs in the engine thread
        await press(pilot, "c")
        assert not app.sim.store.nodes["a-1"].unschedulable
        app.runner._set_busy(False)
        await settle(pilot)
        assert app.sim.store.nodes["a-1"].unschedulable


async def test_dialogs_look_again_when_they_close():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-2")
        await press(pilot, "t")
        await press(pilot, *"dedicated=db:NoSchedule")
        app.sim.apply(Operation("delete-node", node="a-2"))  # meanwhile, the Node object goes
        await press(pilot, "enter")
        assert app.messages[-1][2].startswith('nodes "a-2" not found: the Node object was deleted')
        assert app.last_result is None or app.last_result.operation.do != "taint"


async def test_keys_can_be_remapped_by_binding_id(tmp_path):
    app = make_app(keymap={"playground.node.power-off": "P"})
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await press(pilot, "p")
        assert not isinstance(app.screen, ConfirmDialog)
        await press(pilot, "P")
        assert isinstance(app.screen, ConfirmDialog)
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keymap]\n"playground.step" = "f5"\n')
    app = make_app(keymap_file=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "f5")
        assert app.sim.clock.now == 1000
    keymap.write_text("[keymap\n")
    app = make_app(keymap_file=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert any(sev == "error" and title == "Keymap not loaded" for sev, title, _ in app.messages)


async def test_banner_while_every_zone_is_fully_disrupted():
    from pathlib import Path

    from playground.tui.widgets.header import BANNER

    path = Path(__file__).resolve().parents[2] / "scenarios" / "all-nodes-down.toml"
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await app.advance_to(60_000)
        await pilot.pause()
        assert BANNER.strip() not in app.header.content.plain
        await app.advance_to(120_000)
        await pilot.pause()
        assert app.sim.nodelifecycle.all_zones_down
        text = app.header.content.plain
        assert BANNER.strip() in text and "FullDisruption" in text
