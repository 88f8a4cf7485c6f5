"""The save dialog's "Export for kwok": the session (the scenario plus the operations applied so far)
as manifests and timeline.sh in a folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "tui"))

from playground.manifests import import_files  # noqa: E402
from playground.tui.screens.dialogs import SaveDialog  # noqa: E402

from tui_helpers import SIZE, make_app, settle  # noqa: E402


async def test_the_save_dialog_exports_the_session_for_kwok(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.advance(3)
        app.nodes_view.table.select_key("b-1")
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SaveDialog)
        dialog.query_one("#path").value = str(tmp_path / "kwok.toml")
        await pilot.click("#export")
        await settle(pilot)
        assert not isinstance(app.screen, SaveDialog)
        assert "exported" in app.messages[-1][2] and "timeline.sh" in app.messages[-1][2]
    folder = tmp_path / "kwok"
    script = (folder / "timeline.sh").read_text()
    assert "at 3 'cordon b-1'" in script and "kubectl cordon b-1" in script
    back = import_files([str(p) for p in sorted(folder.glob("*.yaml"))]).scenario
    assert sorted(back.node_names()) == sorted(app.sim.scenario.node_names())
