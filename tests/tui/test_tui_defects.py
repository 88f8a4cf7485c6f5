"""The TUI defects of issue 12, each pinned by a test that failed before its fix."""

from __future__ import annotations

from rich.text import Text

from playground.engine import Operation
from playground.tui.screens.dialog import ConfirmDialog
from playground.tui.screens.node_dialogs import OptionsDialog
from playground.tui.screens.view_prompt import ViewPrompt

from test_tui_keys import header, press, rendered, row, select
from tui_helpers import HERE, SIZE, make_app, settle

DAEMONSET = HERE / "scenarios" / "daemonset.toml"


def cell_segments(table, key: str, column: str):
    """The styled segments of one cell as the table draws it."""
    index = [c.key for c in table.columns].index(column)
    cells = table.source.cells(key)
    wanted = cells[index].plain if isinstance(cells[index], Text) else str(cells[index])
    strip = table._row_strip(table.index_of(key))
    return [s for s in strip if s.text.strip() == wanted]


async def test_lease_age_is_drawn_red_past_node_monitor_grace_period():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(5)
        app.sim.apply(Operation("power-off", node="b-1"))
        await app.advance(65)
        await pilot.pause()
        table = app.nodes_view.table
        lease = cell_segments(table, "b-1", "lease")
        assert lease and lease[0].style.color.name == "red" and lease[0].style.bold
        machine = cell_segments(table, "b-1", "machine")
        assert machine and machine[0].style.color.name == "red"  # PoweredOff
        status = cell_segments(table, "a-1", "status")
        assert status and status[0].style.color.name == "green"


async def test_taints_column_narrows_after_the_taint_goes_and_after_loading_another_scenario():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        table = app.nodes_view.table
        taints = next(c for c in table.columns if c.key == "taints")
        narrow = taints.width
        await select(pilot, "a-1")
        await press(pilot, "O", "y")
        await press(pilot, "t")
        await pilot.press(*"a-very-long-taint-key-for-testing=value:NoSchedule")
        await press(pilot, "enter")
        await pilot.pause()
        wide = taints.width
        assert wide > narrow
        await press(pilot, "O")  # removes the out-of-service taint
        await press(pilot, "T")
        await press(pilot, "enter")
        await settle(pilot)
        await pilot.pause()
        assert app.sim.store.nodes["a-1"].taints == []
        assert taints.width == narrow
        # DRAIN and AGE stay on screen at 160 columns.
        head = "".join(s.text for s in table._header_strip())[:SIZE[0]]
        assert "DRAIN" in head and "AGE" in head
        await press(pilot, "O", "y")
        await press(pilot, "t")
        await pilot.press(*"a-very-long-taint-key-for-testing=value:NoSchedule")
        await press(pilot, "enter")
        await pilot.pause()
        assert taints.width == wide
        app.load(app.sim.scenario, app.scenario_path)
        await pilot.pause()
        assert taints.width == narrow


async def test_at_80x24_the_conditions_keep_their_status_and_the_header_does_not_wrap():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.advance(2)
        await pilot.pause()
        detail = app.nodes_view.detail
        text = rendered(detail.content, width=detail.scrollable_content_region.width or 76)
        conditions = text[text.index("Conditions"):]
        assert "STATUS" in conditions.splitlines()[1]
        assert any(line.split()[:2] == ["Ready", "True"] for line in conditions.splitlines())
        assert app.header.size.height == 2  # scenario and clock on one line, zones on the next
        # The footer leaves out the keys that do not fit whole, instead of cutting one mid-word.
        for _ in range(5):
            await pilot.pause()
        from playground.tui.widgets.footer import KeyFooter
        footer = app.query_one(KeyFooter)
        keys, palette = footer.items()
        line = footer.render().plain
        assert line.rstrip().endswith("▏^p Palette") and len(line) == footer.size.width
        assert 0 < len(footer.shown) < len(keys)
        shown_keys = [item for item in keys if getattr(item, "key", None) in footer.shown]
        assert all(f"{item.display} {item.description}" in line for item in shown_keys)
        assert not any(f" {item.description}" in line for item in keys[len(shown_keys):])
        await press(pilot, "question_mark")
        body = app.screen.query_one("#help-body")
        help_text = rendered(body.content, width=body.size.width)
        assert "Pause or resume the" in help_text  # the help column is not dropped
        assert "playground.pause" in help_text


async def test_a_deleted_node_comes_back_from_the_tui():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "b-2")
        await press(pilot, "X", "y")
        assert "b-2" not in app.sim.store.nodes
        assert [k for k, _ in app.node_choices("b-2")] == ["b-2"]  # still in the node picker
        assert "registers the Node again" in rendered(app.nodes_view.detail.content)
        await press(pilot, "e")  # restart the kubelet: it registers the node again
        await app.advance(2)
        await pilot.pause()
        assert "b-2" in app.sim.store.nodes
        assert row(app, "nodes", "b-2")["status"] == "Ready"


async def test_create_pod_gets_the_requests_the_dialog_shows():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await press(pilot, "a")
        await pilot.press(*"shown")
        assert app.screen.query_one("#cpu").value == "500m"
        assert app.screen.query_one("#memory").value == "256Mi"
        await press(pilot, "enter")
        pod = app.sim.store.pods["default/shown"]
        assert pod.cpu == 500 and pod.memory == 256 << 20
        await press(pilot, "a")
        await pilot.press(*"besteffort")
        app.screen.query_one("#cpu").value = ""
        app.screen.query_one("#memory").value = ""
        await press(pilot, "enter")
        pod = app.sim.store.pods["default/besteffort"]
        assert pod.cpu == 0 and pod.memory == 0


async def test_q_asks_before_losing_unsaved_operations(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-1")
        await press(pilot, "c")  # cordon: one operation of this session
        await press(pilot, "q")
        assert isinstance(app.screen, ConfirmDialog)
        assert "1 operation(s) of this session are not saved" in rendered(app.screen.query_one(".help").content)
        await press(pilot, "n")
        assert app.is_running and not isinstance(app.screen, ConfirmDialog)
        app.save_to(tmp_path / "saved.toml")
        await press(pilot, "q")
        assert not isinstance(app.screen, ConfirmDialog)
    assert app.return_code == 0


async def test_q_without_operations_quits_at_once():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "q")
        assert not isinstance(app.screen, ConfirmDialog)


async def test_drain_dialog_says_what_kubectl_drain_would_refuse():
    app = make_app(DAEMONSET)
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        await select(pilot, "n-1")
        await press(pilot, "d")
        assert isinstance(app.screen, OptionsDialog)
        warning = app.screen.query_one("#warning").content.plain
        assert "DaemonSet-managed (monitoring/node-exporter-" in warning and "--ignore-daemonsets" in warning
        app.screen.query_one("#opt-ignore_daemonsets").value = True
        await press(pilot, "enter")
        assert app.last_result is not None and app.last_result.ok


async def test_a_node_without_a_zone_is_not_shown_as_an_empty_string():
    app = make_app(DAEMONSET)
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        await pilot.pause()
        assert '""' not in app.header.content.plain and "<none> Normal 2/2 ready" in app.header.content.plain
        assert row(app, "nodes", "n-1")["zone"] == "<none>"


async def test_newest_node_events_come_first_near_the_top_of_the_detail():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-1")
        await press(pilot, "c")
        await pilot.pause()
        text = rendered(app.nodes_view.detail.content)
        events = text.index("Recent events")
        assert events < text.index("Conditions")
        assert text[events:].splitlines()[2].split()[2] == "NodeNotSchedulable"  # the newest, first


async def test_view_prompt_and_help_name_every_view_including_pdbs():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "colon")
        assert isinstance(app.screen, ViewPrompt)
        placeholder = app.screen.query_one("#prompt").placeholder
        assert all(view in placeholder for view in app.views)
        await press(pilot, *"pdbs", "enter")
        assert app.current_view == "pdbs"
    tooltip = next(b.tooltip for b in app.BINDINGS if getattr(b, "id", "") == "playground.view-prompt")
    assert ":pdbs" in tooltip


async def test_a_refused_operation_is_a_notification_not_a_cluster_event():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await select(pilot, "a-1")
        await press(pilot, "D")  # cancel a drain that is not running: refused
        assert app.last_result is not None and not app.last_result.ok
        assert app.messages[-1][0] == "warning"
        await press(pilot, "5")
        reasons = [row(app, "events", k)["reason"] for k in app.events_view.table.keys()]
        assert "OperationRefused" not in reasons and reasons
        assert "OperationRefused" not in rendered(app.nodes_view.detail.content)


async def test_cpu_shows_millicores_as_kubectl_does():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(2)
        await pilot.pause()
        assert row(app, "nodes", "a-1")["cpu"] == "500m/2"
        pod = next(k for k in app.sim.store.pods if "web-" in k)
        assert row(app, "pods", pod)["cpu"] == "500m"
        assert "T+2s" in header(app)
