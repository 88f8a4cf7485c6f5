"""The Deployments view (`:deploy`, as k9s names it): `kubectl get deploy` columns, the selected
Deployment's rollout as `kubectl rollout status` words it with the countdown to its progress
deadline, its ReplicaSets and the controller's ScalingReplicaSet events; keys and dialogs for the
rollout operations (engine/rollout.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable, Iterable

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, Select, Static

from ...engine.deployment import rollout_status
from ...engine.operations import Operation
from ...engine.rollout import strategy_text
from ...units import format_age, format_duration
from .. import format as fmt
from ..screens.dialogs import Dialog
from .details import DetailPane
from .views import VIEW_CLASSES, VIEW_TITLES, Source, TableView
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ...engine.objects import Deployment
    from ..app import PaletteCommand, PlaygroundApp

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
    BINDINGS = DEPLOYMENT_BINDINGS
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
            Column("age", "AGE", 3, 8, "right"),
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
    from ..app import PaletteCommand

    def selected() -> str | None:
        view = app.views.get("deployments")
        return view.selected() if isinstance(view, DeploymentsView) else None

    return [
        PaletteCommand("Roll out or restart a deployment…", OPERATION_INFO["rollout"].help,
                       lambda: rollout_flow(app, selected())),
        PaletteCommand("Edit strategy of a deployment…", OPERATION_INFO["set-strategy"].help,
                       lambda: strategy_flow(app, selected())),
    ]


class RolloutDialog(Dialog):
    """kubectl set resources / kubectl patch of the pod template; nothing changed = rollout restart."""

    def __init__(self, deployments: list[str], current: str | None) -> None:
        super().__init__()
        self.deployments = deployments
        self.current = current if current in deployments else deployments[0]

    def dialog_title(self) -> str:
        return "Roll out a Deployment"

    def body(self) -> ComposeResult:
        yield Static(Text("Change the pod template (empty fields stay as they are); change nothing for "
                          "kubectl rollout restart."), classes="help")
        yield from self.deployment_field([(n, n) for n in self.deployments], self.current)
        for key, label in (("cpu", "requests.cpu"), ("memory", "requests.memory"),
                           ("priorityClassName", "priorityClassName")):
            with Horizontal(classes="field"):
                yield Label(label)
                yield Input(placeholder="unchanged", id=key)

    def on_mount(self) -> None:
        self.query_one("#cpu", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        name = self.chosen_deployment()
        if name is None:
            return
        spec: dict = {}
        requests = {k: self.query_one(f"#{k}", Input).value.strip() for k in ("cpu", "memory")}
        requests = {k: v for k, v in requests.items() if v}
        if requests:
            spec["requests"] = requests
        pcn = self.query_one("#priorityClassName", Input).value.strip()
        if pcn:
            spec["priorityClassName"] = pcn
        self.dismiss({"deployment": name, "spec": spec})


class StrategyDialog(Dialog):
    def __init__(self, deployments: dict[str, "Deployment"], current: str | None) -> None:
        super().__init__()
        self.deployments = deployments
        self.current = current if current in deployments else next(iter(sorted(deployments)))

    def dialog_title(self) -> str:
        return "Edit spec.strategy"

    def body(self) -> ComposeResult:
        d = self.deployments[self.current]
        yield Static(Text("maxSurge rounds up, maxUnavailable rounds down; both 0 is refused."), classes="help")
        yield from self.deployment_field([(n, n) for n in sorted(self.deployments)], self.current)
        with Horizontal(classes="field"):
            yield Label("type")
            yield Select([("RollingUpdate", "RollingUpdate"), ("Recreate", "Recreate")], value=d.strategy,
                         allow_blank=False, id="type")
        for key, value in (("maxSurge", d.max_surge), ("maxUnavailable", d.max_unavailable)):
            with Horizontal(classes="field"):
                yield Label(key)
                yield Input(placeholder=f"{value} (a count or a percentage; empty: unchanged)", id=key)

    def on_mount(self) -> None:
        self.query_one("#maxSurge", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        name = self.query_one("#deployment", Select).value
        kind = self.query_one("#type", Select).value
        if not isinstance(name, str) or not isinstance(kind, str):
            self.show_error("choose a deployment and a type")
            return
        strategy: dict = {"type": kind}
        if kind == "RollingUpdate":
            rolling = {}
            d = self.deployments[name]
            current = {"maxSurge": d.max_surge, "maxUnavailable": d.max_unavailable}
            for key in ("maxSurge", "maxUnavailable"):
                text = self.query_one(f"#{key}", Input).value.strip()
                rolling[key] = int(text) if text.isdigit() else text or current[key]
                if d.strategy != "RollingUpdate" and not text:
                    rolling[key] = "25%"
            strategy["rollingUpdate"] = rolling
        self.dismiss({"deployment": name, "strategy": strategy})


VIEW_CLASSES["deployments"] = DeploymentsView
VIEW_TITLES["deployments"] = "Deployments"
