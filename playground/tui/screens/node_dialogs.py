"""Dialogs of the node operations: taint, untaint, and the options of an operation (kubectl drain's
flags)."""

from __future__ import annotations

from typing import Any, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Checkbox, Input, Label, Static

from ...engine.operations import parse_taint_text
from ...units import UnitError, parse_duration
from .dialog import Dialog, PickerDialog


class TaintDialog(Dialog):
    """kubectl taint: "key=value:Effect"."""

    def __init__(self, node: str, existing: list[str]) -> None:
        super().__init__()
        self.node = node
        self.existing = existing

    def dialog_title(self) -> str:
        return f"Taint node {self.node}"

    def body(self) -> ComposeResult:
        yield Static(Text("Add a taint as kubectl taint writes it: key=value:Effect or key:Effect, with Effect one of "
                          "NoSchedule, PreferNoSchedule, NoExecute.\nExisting: "
                          + (", ".join(self.existing) or "none")), classes="help")
        yield Input(placeholder="dedicated=db:NoSchedule", id="taint")

    def on_mount(self) -> None:
        self.query_one("#taint", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        text = self.query_one("#taint", Input).value.strip()
        try:
            _key, _value, effect = parse_taint_text(text)
        except ValueError as exc:
            self.show_error(str(exc))
            return
        if effect is None:
            self.show_error("a taint to add needs an effect, e.g. dedicated=db:NoSchedule")
            return
        self.dismiss(text)


class UntaintDialog(PickerDialog):
    """Pick one of the node's taints to remove."""

    def __init__(self, node: str, taints: list[str]) -> None:
        def items(query: str) -> list[tuple[str, str]]:
            return [(t, t) for t in taints if query.lower() in t.lower()]
        super().__init__(f"Remove a taint from {node}", "kubectl taint node … key:Effect-", items)
        self.node = node


class OptionsDialog(Dialog):
    """An operation with options (kubectl drain's flags): one field per OperationOption the engine lists
    in OPERATION_INFO, so the dialog follows the engine. Returns {Operation field: value}."""

    def __init__(self, title: str, help_text: str, options: Iterable[Any], warning: str = "") -> None:
        super().__init__()
        self._title = title
        self.help_text = help_text
        self.options = list(options)
        self.warning = warning  # what the operation will refuse with the options as they start

    def dialog_title(self) -> str:
        return self._title

    def body(self) -> ComposeResult:
        yield Static(Text(self.help_text), classes="help")
        if self.warning:
            yield Static(Text(self.warning), classes="warning", id="warning")
        examples = {"int": "seconds", "duration": "e.g. 1m30s", "str": "e.g. app=web"}
        for option in self.options:
            if option.kind == "bool":
                yield Checkbox(Text(option.flag), value=False, id=f"opt-{option.field}")
            else:
                with Horizontal(classes="field"):
                    yield Label(option.flag)
                    yield Input(placeholder=examples.get(option.kind, ""), id=f"opt-{option.field}")
            yield Static(Text(option.help), classes="option-help")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        values: dict[str, Any] = {}
        for option in self.options:
            widget = self.query_one(f"#opt-{option.field}")
            if option.kind == "bool":
                values[option.field] = bool(widget.value)
                continue
            text = widget.value.strip()
            if not text:
                continue
            if option.kind == "int":
                try:
                    values[option.field] = int(text)
                except ValueError:
                    self.show_error(f"{option.flag} needs a whole number of seconds, got {text!r}")
                    return
            elif option.kind == "duration":
                try:
                    values[option.field] = parse_duration(text)
                except UnitError as exc:
                    self.show_error(f"{option.flag}: {exc}")
                    return
            else:
                values[option.field] = text
        self.dismiss(values)
