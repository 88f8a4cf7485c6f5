"""The Deployments view (`:deploy`, as k9s names it): `kubectl get deploy` columns, the selected
Deployment's rollout as `kubectl rollout status` words it with the countdown to its progress
deadline, its ReplicaSets and the controller's ScalingReplicaSet events; keys and dialogs for the
rollout operations (engine/rollout.py); the dialogs are in screens/deployment_dialogs.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable, Iterable

from rich.console import Group
from rich.text import Text
from textual import on
from textual.binding import Binding

from ...engine.deployment import rollout_status
from ...engine.operations import Operation
from ...engine.rollout import strategy_text
from ...units import format_age, format_duration
from .. import format as fmt
from ..screens.deployment_dialogs import RolloutDialog, StrategyDialog
from .tableview import Source, TableView, sort_bindings
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ..app import PlaygroundApp
    from ..commands import PaletteCommand

DEPLOYMENT_BINDINGS = [
    Binding("o", "rollout", "Roll out", show=True, id="playground.deployment.rollout",
            tooltip="Change the pod template (cpu, memory, priority class) or restart (kubectl rollout restart)"),
    Binding("u", "deployment_op('rollout-undo')", "Undo", show=True, id="playground.deployment.rollout-undo",
            tooltip="Back to the previous revision (kubectl rollout undo)"),
    Binding("z", "pause_resume", "Pause/resume", show=True, id="playground.deployment.pause-resume",
            tooltip="kubectl rollout pause / resume"),
    Binding("e", "strategy", "Strategy", show=True, id="playground.deployment.set-strategy",
            tooltip="Edit spec.strategy: RollingUpdate maxSurge / maxUnavailable, or Recreate"),
]


class DeploymentSource(Source):
    sort_key_is_key = True

    def sort_key(self, key: Hashable):
        return key

    def cells(self, key: Hashable):
        sim = self.sim
        d = sim.store.deployments.get(str(key))
        if d is None:
            return [fmt.plain(key), Text("gone", style="dim")]
        message, done = rollout_status(d)
        style = "green" if done else "bold red" if message.startswith("error") else "yellow"
        return [
            fmt.plain(d.namespace),
            fmt.plain(d.name, "bold"),
            Text(f"{d.ready_replicas}/{d.replicas}", style="green" if d.ready_replicas >= d.replicas else "yellow",
                 end=""),
            str(d.updated_replicas),
            str(d.available_replicas),
            format_age(sim.clock.now - d.creation_time),
            str(d.revision),
            fmt.plain(strategy_text(d) + ("  PAUSED" if d.paused else "")),
            Text(message, style=style, end=""),
        ]

    def sort_value(self, column: str, key: Hashable):
        d = self.sim.store.deployments.get(str(key))
        if d is not None and column == "age":
            return -d.creation_time
        return NotImplemented

    def match_text(self, key: Hashable) -> str:
        return str(key)


def deployment_detail(sim, name: str) -> Group | Text:
    d = sim.store.deployments.get(name)
    if d is None:
        return Text("no Deployment in this scenario", style="dim")
    now = sim.clock.now
    message, done = rollout_status(d)
    lines: list[Text] = []
    head = Text()
    head.append(f"$ kubectl rollout status deployment/{d.name}\n", "dim")
    head.append(message, "green" if done else "bold red" if message.startswith("error") else "bold yellow")
    lines.append(head)
    due = sim.workloads.deployments.deadline_at(d.name)
    progressing = d.conditions.get("Progressing")
    if due is not None and progressing is not None:
        lines.append(Text(f"progress deadline: {d.progress_deadline_seconds}s after the last progress at "
                          f"{format_duration(progressing.last_update_time)}; checked in "
                          f"{format_duration(max(due - now, 0))}", style="yellow"))
    text = Text()
    text.append(f"Strategy: {strategy_text(d)}   minReadySeconds {d.min_ready_seconds}   "
                f"revisionHistoryLimit {d.revision_history_limit}   generation {d.generation} "
                f"(observed {d.observed_generation})\n", "")
    text.append(f"Replicas: {d.replicas} desired | {d.updated_replicas} updated | {d.status_replicas} total | "
                f"{d.available_replicas} available | {d.unavailable_replicas} unavailable\n")
    text.append("Conditions:\n", "bold")
    for cond in d.conditions.values():
        text.append(f"  {cond.type:<12} {cond.status:<8} {cond.reason:<26} ", "")
        text.append(f"{cond.message}  (updated {format_duration(cond.last_update_time)})\n", "dim")
    text.append("ReplicaSets (newest first):\n", "bold")
    for rs in sorted(sim.workloads.replicasets_of(d.name), key=lambda r: (r.creation_time, r.name), reverse=True):
        text.append(f"  {rs.name:<28} revision {rs.revision:<3} {rs.available_replicas}/{rs.replicas} available, "
                    f"{rs.ready_replicas} ready, {rs.status_replicas} pods\n")
    events = [e for e in sim.store.recorder.events
              if e.reason == "ScalingReplicaSet" and e.object == f"Deployment/{d.namespace}/{d.name}"][-8:]
    if events:
        text.append("Events:\n", "bold")
        for e in events:
            text.append(f"  {format_duration(e.time):>8}  {e.message}\n")
    lines.append(text)
    return Group(*lines)


class DeploymentsView(TableView):
    DETAIL_ID = "deployment-detail"
    TITLE = "Deployments"
    FILTER_HINT = "filter deployments by namespace/name"
    SORTS = (("P", "namespace", "NAMESPACE"), ("N", "name", "NAME"), ("A", "age", "AGE"))
    BINDINGS = DEPLOYMENT_BINDINGS + sort_bindings(SORTS)
    DEFAULT_CSS = """
    DeploymentsView > #deployments-table { height: auto; max-height: 40%; min-height: 4; }
    DeploymentsView > #deployment-detail { height: 1fr; min-height: 10; }
    """

    def columns(self) -> list[Column]:
        return [
            Column("namespace", "NAMESPACE", 9, 20),
            Column("name", "NAME", 6, 40),
            Column("ready", "READY", 5, 9, "right"),
            Column("updated", "UP-TO-DATE", 10, 10, "right"),
            Column("available", "AVAILABLE", 9, 9, "right"),
            Column("age", "AGE", 3, 8, "right", timed=True),
            Column("revision", "REVISION", 8, 8, "right"),
            Column("strategy", "STRATEGY", 8, 60),
            Column("rollout", "ROLLOUT STATUS", 14, 200, flex=True),
        ]

    def make_source(self) -> Source:
        return DeploymentSource(self)

    def row_keys(self) -> Iterable[str]:
        return self.sim.store.deployments

    def apply(self, changes) -> None:
        # a handful of Deployments: their counts follow pod events, so refresh every row
        self.table.upsert(list(self.sim.store.deployments))

    def frame(self, time_moved: bool) -> None:
        super().frame(time_moved)
        key = self.table.cursor_key
        self.detail.show(deployment_detail(self.sim, str(key)) if key is not None
                         else Text("no Deployment in this scenario", style="dim"))

    @on(VirtualTable.CursorMoved, "#deployments-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.frame(False)

    # ---------------------------------------------------------------- keys

    def selected(self) -> str | None:
        key = self.table.cursor_key
        return str(key) if key is not None else None

    def action_deployment_op(self, op: str) -> None:
        name = self.selected()
        if name is not None:
            apply_later(self.playground, Operation(op, deployment=name))

    def action_pause_resume(self) -> None:
        name = self.selected()
        d = self.sim.store.deployments.get(name or "")
        if d is not None:
            apply_later(self.playground, Operation("resume-rollout" if d.paused else "pause-rollout", deployment=name))

    def action_rollout(self) -> None:
        rollout_flow(self.playground, self.selected())

    def action_strategy(self) -> None:
        strategy_flow(self.playground, self.selected())


def apply_later(app: "PlaygroundApp", op: Operation) -> None:
    async def flow() -> None:
        await app.wait_idle()
        app.apply_operation(op)
    app.run_worker(flow(), group="dialogs")


def _deployment_names(app: "PlaygroundApp") -> list[str]:
    return sorted(app.sim.store.deployments)


def rollout_flow(app: "PlaygroundApp", name: str | None) -> None:
    async def flow() -> None:
        await app.wait_idle()
        if not app.sim.store.deployments:
            app.notify("This scenario has no Deployments.", severity="warning")
            return
        choice = await app.push_screen_wait(RolloutDialog(_deployment_names(app), name))
        if choice:
            await app.wait_idle()
            app.apply_operation(Operation("rollout", deployment=choice["deployment"], pod_spec=choice["spec"] or None))
    app.run_worker(flow(), group="dialogs")


def strategy_flow(app: "PlaygroundApp", name: str | None) -> None:
    async def flow() -> None:
        await app.wait_idle()
        if not app.sim.store.deployments:
            app.notify("This scenario has no Deployments.", severity="warning")
            return
        choice = await app.push_screen_wait(StrategyDialog(app.sim.store.deployments, name))
        if choice:
            await app.wait_idle()
            app.apply_operation(Operation("set-strategy", deployment=choice["deployment"], strategy=choice["strategy"]))
    app.run_worker(flow(), group="dialogs")


def palette_commands(app: "PlaygroundApp") -> list["PaletteCommand"]:
    from ...engine.operations import OPERATION_INFO
    from ..commands import PaletteCommand

    def selected() -> str | None:
        view = app.views.get("deployments")
        return view.selected() if isinstance(view, DeploymentsView) else None

    return [
        PaletteCommand("Roll out or restart a deployment…", OPERATION_INFO["rollout"].help,
                       lambda: rollout_flow(app, selected())),
        PaletteCommand("Edit strategy of a deployment…", OPERATION_INFO["set-strategy"].help,
                       lambda: strategy_flow(app, selected())),
    ]
