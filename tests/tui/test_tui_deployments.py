"""The Deployments view (:deploy): kubectl get deploy columns, the rollout status words with the
progress-deadline countdown, and the rollout keys and dialogs, on an app stepped explicitly."""

from __future__ import annotations

from pathlib import Path

from playground.tui.screens.deployment_dialogs import RolloutDialog, StrategyDialog
from playground.tui.widgets.deployments import deployment_detail

from test_tui_keys import press, rendered, row
from tui_helpers import SIZE, make_app, settle

STUCK = Path(__file__).resolve().parents[2] / "scenarios" / "rollout-stuck.toml"


async def test_deploy_prompt_shows_the_stuck_rollout_and_its_deadline():
    app = make_app(STUCK)
    async with app.run_test(size=SIZE) as pilot:
        app.sim.run_until(300)
        await press(pilot, "colon")
        await press(pilot, *"deploy", "enter")
        assert app.current_view == "deployments"
        view = app.views["deployments"]
        view.table.select_key("web")
        await settle(pilot)
        cells = row(app, "deployments", "web")
        assert (cells["ready"], cells["updated"], cells["available"], cells["revision"]) == ("3/3", "1", "3", "2")
        assert cells["rollout"] == 'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
        detail = rendered(deployment_detail(app.sim, "web"))
        assert "progress deadline: 600s after the last progress at 2m; checked in 7m1s" in detail
        app.sim.run_until(722)
        assert row(app, "deployments", "web")["rollout"] == 'error: deployment "web" exceeded its progress deadline'


async def test_strategy_key_unsticks_the_rollout():
    app = make_app(STUCK)
    async with app.run_test(size=SIZE) as pilot:
        app.sim.run_until(300)
        await press(pilot, "7")
        app.views["deployments"].table.select_key("web")
        await press(pilot, "e")
        assert isinstance(app.screen, StrategyDialog)
        await press(pilot, "0", "tab", "1", "enter")
        d = app.sim.store.deployments["web"]
        assert (d.max_surge, d.max_unavailable) == (0, 1)
        app.sim.run_until(320)
        assert row(app, "deployments", "web")["rollout"] == 'deployment "web" successfully rolled out'


async def test_rollout_key_restarts_and_undo_goes_back():
    app = make_app(STUCK)
    async with app.run_test(size=SIZE) as pilot:
        app.sim.run_until(30)
        await press(pilot, "7")
        app.views["deployments"].table.select_key("web")
        await press(pilot, "o")
        assert isinstance(app.screen, RolloutDialog)
        await press(pilot, "enter")
        d = app.sim.store.deployments["web"]
        assert "kubectl.kubernetes.io/restartedAt" in d.template.annotations and d.generation == 2
        app.sim.run_until(31)
        await press(pilot, "u")
        assert app.last_result.message == "deployment.apps/web rolled back"
        await press(pilot, "z")
        assert d.paused and app.last_result.message == "deployment.apps/web paused"
