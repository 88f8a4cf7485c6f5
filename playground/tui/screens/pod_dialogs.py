"""Dialogs of the pod operations: delete a pod (kubectl delete pod), create a bare pod (kubectl run)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Label, Select, Static

from ...units import UnitError, parse_cpu, parse_memory
from .dialog import Dialog


class DeletePodDialog(Dialog):
    def __init__(self, pod_key: str, default_grace: int) -> None:
        super().__init__(classes="-danger")
        self.pod_key = pod_key
        self.default_grace = default_grace

    def dialog_title(self) -> str:
        return f"Delete pod {self.pod_key}"

    def body(self) -> ComposeResult:
        yield Static(Text(f"kubectl delete pod. Leave the grace period empty for the pod's own "
                          f"terminationGracePeriodSeconds ({self.default_grace}s); 0 deletes at once (--force)."),
                     classes="help")
        with Horizontal(classes="field"):
            yield Label("--grace-period (seconds)")
            yield Input(placeholder=str(self.default_grace), id="grace")

    def on_mount(self) -> None:
        self.query_one("#grace", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        text = self.query_one("#grace", Input).value.strip()
        if not text:
            self.dismiss({"grace": None})
            return
        try:
            grace = int(text)
        except ValueError:
            self.show_error(f"the grace period is a whole number of seconds, got {text!r}")
            return
        if grace < 0:
            self.show_error("the grace period cannot be negative")
            return
        self.dismiss({"grace": grace})


class CreatePodDialog(Dialog):
    def __init__(self, priority_classes: list[str], nodes: list[str]) -> None:
        super().__init__()
        self.priority_classes = priority_classes
        self.nodes = nodes

    def dialog_title(self) -> str:
        return "Create a pod"

    def body(self) -> ComposeResult:
        yield Static(Text("A bare pod (no controller). Leave nodeName empty to let the scheduler place it; "
                          "clear a request for none (a BestEffort pod, as kubectl run makes by default)."),
                     classes="help")
        # The requests start filled in: what the dialog shows is what the pod gets.
        for label, ident, placeholder, value in (("name", "name", "my-pod", ""),
                                                 ("namespace", "namespace", "default", ""),
                                                 ("requests.cpu", "cpu", "none", "500m"),
                                                 ("requests.memory", "memory", "none", "256Mi")):
            with Horizontal(classes="field"):
                yield Label(label)
                yield Input(value, placeholder=placeholder, id=ident)
        with Horizontal(classes="field"):
            yield Label("priorityClassName")
            yield Select([(name, name) for name in self.priority_classes], prompt="(global default)", id="priority")
        with Horizontal(classes="field"):
            yield Label("nodeName")
            yield Input(placeholder="(scheduler decides)", id="node")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        def value(ident: str) -> str:
            return self.query_one(f"#{ident}", Input).value.strip()
        name = value("name")
        if not name:
            self.show_error("the pod needs a name")
            return
        try:
            cpu = parse_cpu(value("cpu") or "0")
            memory = parse_memory(value("memory") or "0")
        except UnitError as exc:
            self.show_error(str(exc))
            return
        node = value("node")
        if node and node not in self.nodes:
            self.show_error(f'nodes "{node}" not found')
            return
        priority = self.query_one("#priority", Select).value
        self.dismiss({
            "name": name, "namespace": value("namespace") or "default", "cpu": cpu, "memory": memory,
            "priority_class_name": priority if isinstance(priority, str) else "", "node": node or None,
        })
