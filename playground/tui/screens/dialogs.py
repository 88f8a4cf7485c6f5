"""Modal dialogs. A dialog only gathers the user's choice and returns it with `dismiss`; the app
re-checks the target when the dialog closes (the simulation kept running) and applies the operation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from ...engine.operations import parse_taint_text
from ...units import UnitError, parse_cpu, parse_duration, parse_memory

DIALOG_CSS = """
Dialog {
    align: center middle;
    background: $background 60%;
}
Dialog > #box {
    width: 96;
    max-width: 95%;
    height: auto;
    max-height: 90%;
    border: thick $primary;
    background: $surface;
    padding: 1 2;
    overflow-y: auto;
}
Dialog.-danger > #box { border: thick $error; }
Dialog #title { text-style: bold; width: 100%; margin-bottom: 1; }
Dialog .help { color: $text-muted; margin-bottom: 1; }
Dialog .error { color: $error; text-style: bold; margin-top: 1; }
Dialog .error.-hidden { display: none; }
Dialog #buttons { height: auto; margin-top: 1; align-horizontal: right; }
Dialog #buttons Button { margin-left: 2; }
Dialog OptionList { height: auto; max-height: 16; margin-bottom: 1; }
Dialog Input { border: none; height: 1; padding: 0 1; background: $boost; margin-bottom: 1; }
Dialog Input:focus { border: none; background: $primary 30%; }
Dialog .field { height: auto; }
Dialog .field Label { width: 30; }
Dialog .field Input { width: 1fr; }
Dialog .field Select { width: 1fr; margin-bottom: 1; }
Dialog Checkbox { border: none; padding: 0; height: auto; background: $surface; }
Dialog .option-help { color: $text-muted; padding-left: 4; margin-bottom: 1; }
Dialog .field Input { margin-bottom: 0; }
Dialog Checkbox:focus { border: none; background: $primary 30%; }
"""


class Dialog(ModalScreen):
    """A centred box with a title; Escape cancels (returns None)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="playground.dialog.cancel")]

    TITLE_TEXT = ""

    def action_cancel(self) -> None:
        self.dismiss(None)

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static(Text(self.dialog_title(), end=""), id="title")
            yield from self.body()
            error = Static("", classes="error -hidden", id="error")
            yield error
            buttons = list(self.buttons())
            if buttons:
                with Horizontal(id="buttons"):
                    yield from buttons

    def dialog_title(self) -> str:
        return self.TITLE_TEXT

    def body(self) -> ComposeResult:
        yield from ()

    def buttons(self) -> Iterable[Button]:
        yield Button("OK", id="ok", variant="primary")
        yield Button("Cancel", id="cancel")

    def show_error(self, message: str) -> None:
        error = self.query_one("#error", Static)
        error.update(Text(message))
        error.remove_class("-hidden")

    def deployment_field(self, options: list[tuple[str, str]], value) -> ComposeResult:
        """The "Deployment" row of the dialogs that act on one (scale, rollout, strategy)."""
        with Horizontal(classes="field"):
            yield Label("Deployment")
            yield Select(options, value=value, allow_blank=False, id="deployment")

    def chosen_deployment(self) -> str | None:
        """The Deployment chosen in deployment_field, or None after saying one must be chosen."""
        name = self.query_one("#deployment", Select).value
        if not isinstance(name, str):
            self.show_error("choose a deployment")
            return None
        return name

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.submit()

    def submit(self) -> None:
        self.dismiss(True)


class ConfirmDialog(Dialog):
    """Yes/no, for what cannot be undone (power off). y or Enter confirms, n or Escape cancels."""

    BINDINGS = [
        Binding("y", "confirm", "Yes", id="playground.dialog.yes"),
        Binding("n", "cancel", "No", id="playground.dialog.no"),
    ]

    def __init__(self, title: str, message: str | Text, confirm_label: str = "Yes", danger: bool = True) -> None:
        super().__init__(classes="-danger" if danger else "")
        self._title = title
        self._message = message
        self._label = confirm_label

    def dialog_title(self) -> str:
        return self._title

    def body(self) -> ComposeResult:
        yield Static(self._message if isinstance(self._message, Text) else Text(self._message), classes="help")

    def buttons(self) -> Iterable[Button]:
        yield Button(f"{self._label} (y)", id="ok", variant="error")
        yield Button("Cancel (n)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    def action_confirm(self) -> None:
        self.dismiss(True)


class PickerDialog(Dialog):
    """Pick one item by name: type to narrow the list, arrows to move, Enter to choose."""

    LIMIT = 300

    def __init__(self, title: str, help_text: str, items: Callable[[str], list[tuple[str, str]]],
                 current: str | None = None) -> None:
        super().__init__()
        self._title = title
        self._help = help_text
        self._items = items  # query -> [(id, label)]
        self._current = current

    def dialog_title(self) -> str:
        return self._title

    def body(self) -> ComposeResult:
        if self._help:
            yield Static(Text(self._help), classes="help")
        yield Input(placeholder="type a name to narrow the list", id="query")
        yield OptionList(id="choices")

    def buttons(self) -> Iterable[Button]:
        return ()

    def on_mount(self) -> None:
        self._fill("")
        self.query_one("#query", Input).focus()

    def _fill(self, query: str) -> None:
        choices = self.query_one("#choices", OptionList)
        choices.clear_options()
        items = self._items(query)
        options = [Option(Text(label, end=""), id=ident) for ident, label in items[: self.LIMIT]]
        choices.add_options(options)
        highlight = 0
        if self._current is not None and not query:
            for i, (ident, _) in enumerate(items[: self.LIMIT]):
                if ident == self._current:
                    highlight = i
                    break
        if options:
            choices.highlighted = highlight

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        self._fill(event.value.strip())

    @on(Input.Submitted, "#query")
    def _submitted(self, event: Input.Submitted) -> None:
        self.submit()

    _MOVES = {"down": "cursor_down", "up": "cursor_up", "pagedown": "page_down", "pageup": "page_up"}

    def on_key(self, event) -> None:
        """Arrows move the list while the cursor stays in the query."""
        choices = self.query_one("#choices", OptionList)
        move = self._MOVES.get(event.key)
        if move is not None and self.focused is not choices:
            getattr(choices, f"action_{move}")()
            event.stop()
            event.prevent_default()

    @on(OptionList.OptionSelected, "#choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def submit(self) -> None:
        choices = self.query_one("#choices", OptionList)
        if choices.highlighted is None:
            self.show_error("nothing matches")
            return
        self.dismiss(choices.get_option_at_index(choices.highlighted).id)


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

    def __init__(self, title: str, help_text: str, options: Iterable[Any]) -> None:
        super().__init__()
        self._title = title
        self.help_text = help_text
        self.options = list(options)

    def dialog_title(self) -> str:
        return self._title

    def body(self) -> ComposeResult:
        yield Static(Text(self.help_text), classes="help")
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


class CreatePodDialog(Dialog):
    def __init__(self, priority_classes: list[str], nodes: list[str]) -> None:
        super().__init__()
        self.priority_classes = priority_classes
        self.nodes = nodes

    def dialog_title(self) -> str:
        return "Create a pod"

    def body(self) -> ComposeResult:
        yield Static(Text("A bare pod (no controller). Leave nodeName empty to let the scheduler place it."),
                      classes="help")
        for label, ident, placeholder in (("name", "name", "my-pod"), ("namespace", "namespace", "default"),
                                          ("requests.cpu", "cpu", "500m"), ("requests.memory", "memory", "256Mi")):
            with Horizontal(classes="field"):
                yield Label(label)
                yield Input(placeholder=placeholder, id=ident)
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


class LoadDialog(Dialog):
    """Open a scenario: the *.toml files found, or any path. The file is read here so that an error
    keeps the dialog open with the loader's message."""

    def __init__(self, files: list[Path], loader: Callable[[Path], Any], start: Path | None = None) -> None:
        super().__init__()
        self.files = files
        self.loader = loader
        self.start = start

    def dialog_title(self) -> str:
        return "Load a scenario"

    def body(self) -> ComposeResult:
        yield Static(Text("Pick a file or type a path, then Enter. The running simulation is replaced."),
                     classes="help")
        yield OptionList(*[Option(Text(str(p), end=""), id=str(p)) for p in self.files], id="files")
        yield Input(value=str(self.start) if self.start else "", placeholder="path/to/scenario.toml", id="path")

    def buttons(self) -> Iterable[Button]:
        yield Button("Load", id="ok", variant="primary")
        yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        files = self.query_one("#files", OptionList)
        if self.files:
            files.focus()
            resolved = [p.resolve() for p in self.files]
            if self.start is not None and self.start.resolve() in resolved:
                files.highlighted = resolved.index(self.start.resolve())
        else:
            self.query_one("#path", Input).focus()

    @on(OptionList.OptionHighlighted, "#files")
    def _highlight(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one("#path", Input).value = event.option.id or ""

    @on(OptionList.OptionSelected, "#files")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#path", Input).value = event.option.id or ""
        self.submit()

    @on(Input.Submitted, "#path")
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        text = self.query_one("#path", Input).value.strip()
        if not text:
            self.show_error("type the path of a scenario file")
            return
        path = Path(text).expanduser()
        try:
            scenario = self.loader(path)
        except Exception as exc:  # ScenarioError and friends: show, keep the dialog open
            message = exc.format() if hasattr(exc, "format") else str(exc)
            self.show_error(message)
            return
        self.dismiss((scenario, path))


class SaveDialog(Dialog):
    """Save the scenario plus this session's operations (as timeline entries), atomically."""

    def __init__(self, default: Path, saver: Callable[[Path], str]) -> None:
        super().__init__()
        self.default = default
        self.saver = saver

    def dialog_title(self) -> str:
        return "Save the scenario"

    def body(self) -> ComposeResult:
        yield Static(Text("Writes the scenario with every operation you applied so far as [[timeline]] entries "
                          "at their times, so loading it replays this session. The file is written to a "
                          "temporary name and renamed, never half-written."), classes="help")
        yield Input(value=str(self.default), id="path")

    def buttons(self) -> Iterable[Button]:
        yield Button("Save", id="ok", variant="primary")
        yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.submit()

    def submit(self) -> None:
        text = self.query_one("#path", Input).value.strip()
        if not text:
            self.show_error("type a path")
            return
        path = Path(text).expanduser()
        if path.is_dir():
            self.show_error(f"{path} is a folder; give a file name")
            return
        try:
            message = self.saver(path)
        except Exception as exc:  # OSError, ScenarioError: show, keep the dialog open
            message = exc.format() if hasattr(exc, "format") else f"{type(exc).__name__}: {exc}"
            self.show_error(message)
            return
        self.dismiss(message)


class ViewPrompt(ModalScreen):
    """k9s's `:` prompt: type a view (nodes, pods, pending, leases, events, …), Enter."""

    DEFAULT_CSS = """
    ViewPrompt { align: center top; background: $background 30%; }
    ViewPrompt > Input { width: 60; margin-top: 3; border: tall $accent; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="playground.prompt.cancel")]

    def __init__(self, aliases: dict[str, str]) -> None:
        super().__init__()
        self.aliases = aliases

    def compose(self) -> ComposeResult:
        from textual.suggester import SuggestFromList

        yield Input(placeholder=": nodes | pods | pending | leases | events | q",
                    suggester=SuggestFromList(sorted(set(self.aliases.values())) + ["quit"]), id="prompt")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip().lstrip(":").lower()
        if text in ("q", "q!", "quit"):
            self.dismiss("quit")
            return
        view = self.aliases.get(text)
        if view is None:
            matches = [v for a, v in self.aliases.items() if a.startswith(text)] if text else []
            view = matches[0] if matches else None
        if view is None:
            self.notify(f"no view called {text!r}", severity="warning")
            return
        self.dismiss(view)
