"""Dialogs of scenario files: load one, save the scenario with this session's operations."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from .dialog import Dialog


class LoadDialog(Dialog):
    """Open a scenario: the *.toml files found, or any path. The file is read here so that an error
    keeps the dialog open with the loader's message; in a thread, with a line saying so, because
    an imported production cluster takes seconds to read (a 150,000-pod dump: ~10 s the first time)
    and the screen must not freeze meanwhile."""

    def __init__(self, files: list[Path], loader: Callable[[Path], Any], start: Path | None = None) -> None:
        super().__init__()
        self.files = files
        self.loader = loader
        self.start = start
        self.reading = False  # a file is being read: Enter again does nothing

    def dialog_title(self) -> str:
        return "Load a scenario"

    def body(self) -> ComposeResult:
        yield Static(Text("Pick a file or type a path, then Enter. The running simulation is replaced."),
                     classes="help")
        yield OptionList(*[Option(Text(str(p), end=""), id=str(p)) for p in self.files], id="files")
        yield Input(value=str(self.start) if self.start else "",
                    placeholder="path/to/scenario.toml, or a kubectl dump (.yaml, .json)", id="path")
        yield Static("", classes="help", id="reading")

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
        if self.reading:
            return
        path = Path(text).expanduser()
        self.reading = True
        self.query_one("#reading", Static).update(Text(f"Reading {path}…"))
        self.run_worker(self._read(path), group="load", name="read")

    async def _read(self, path: Path) -> None:
        try:
            scenario = await asyncio.to_thread(self.loader, path)
        except Exception as exc:  # ScenarioError and friends: show, keep the dialog open
            message = exc.format() if hasattr(exc, "format") else str(exc)
            self.show_error(message)
            return
        finally:
            self.reading = False
            self.query_one("#reading", Static).update("")
        self.dismiss((scenario, path))


class SaveDialog(Dialog):
    """Save the scenario plus this session's operations (as timeline entries), atomically."""

    def __init__(self, default: Path, saver: Callable[[Path], str],
                 exporter: Callable[[Path], str] | None = None) -> None:
        super().__init__()
        self.default = default
        self.saver = saver
        self.exporter = exporter  # "Export": Kubernetes manifests and timeline.sh into a folder

    def dialog_title(self) -> str:
        return "Save the scenario"

    def body(self) -> ComposeResult:
        yield Static(Text("Writes the scenario with every operation you applied so far as [[timeline]] entries "
                          "at their times, so loading it replays this session. The file is written to a "
                          "temporary name and renamed, never half-written."), classes="help")
        yield Input(value=str(self.default), id="path")

    def buttons(self) -> Iterable[Button]:
        yield Button("Save", id="ok", variant="primary")
        if self.exporter is not None:
            yield Button("Export for kwok", id="export")
        yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(Button.Pressed, "#export")
    def export(self) -> None:
        """The path as a folder: the scenario (with this session) as manifests and timeline.sh."""
        text = self.query_one("#path", Input).value.strip()
        if not text or self.exporter is None:
            self.show_error("type a folder to export into")
            return
        path = Path(text).expanduser()
        if path.suffix == ".toml":
            path = path.with_suffix("")  # the folder beside the file that Save would write
        try:
            message = self.exporter(path)
        except Exception as exc:  # OSError: show, keep the dialog open
            self.show_error(f"{type(exc).__name__}: {exc}")
            return
        self.dismiss(message)

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
