"""Dialogs of the Deployment operations: scale, roll out (change the pod template or restart), edit
the strategy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Label, Select, Static

from .dialog import Dialog

if TYPE_CHECKING:
    from ...engine.objects import Deployment


class ScaleDialog(Dialog):
    def __init__(self, deployments: dict[str, int], current: str | None = None) -> None:
        super().__init__()
        self.deployments = deployments
        self.current = current if current in deployments else next(iter(deployments), None)

    def dialog_title(self) -> str:
        return "Scale a Deployment"

    def body(self) -> ComposeResult:
        yield Static(Text("kubectl scale deployment NAME --replicas=N"), classes="help")
        yield from self.deployment_field([(f"{name} (replicas {n})", name) for name, n in self.deployments.items()],
                                         self.current if self.current is not None else Select.BLANK)
        with Horizontal(classes="field"):
            yield Label("--replicas")
            yield Input(value=str(self.deployments.get(self.current or "", 0)), id="replicas")

    def on_mount(self) -> None:
        self.query_one("#replicas", Input).focus()

    @on(Select.Changed, "#deployment")
    def _deployment(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.query_one("#replicas", Input).value = str(self.deployments.get(event.value, 0))

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        name = self.chosen_deployment()
        if name is None:
            return
        text = self.query_one("#replicas", Input).value.strip()
        try:
            replicas = int(text)
        except ValueError:
            self.show_error(f"replicas is a whole number, got {text!r}")
            return
        if replicas < 0:
            self.show_error("replicas cannot be negative")
            return
        self.dismiss({"deployment": name, "replicas": replicas})


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
