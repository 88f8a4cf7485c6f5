"""Scenario files from the TUI: the load dialog's list of files, and saving the scenario with this
session's operations as timeline entries. `ScenarioFiles` is a mixin of the app."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work

from ..manifests import read_scenario_file, save_path_for
from ..scenario import Scenario
from ..units import format_duration
from .screens.file_dialogs import LoadDialog, SaveDialog

if TYPE_CHECKING:
    from ..engine import Simulation

PROJECT_SCENARIOS = Path(__file__).resolve().parent.parent.parent / "scenarios"


class ScenarioFiles:
    sim: "Simulation"
    scenario_path: Path | None
    saved_operations: int

    if TYPE_CHECKING:  # provided by the app
        def notify(self, *args: Any, **kwargs: Any) -> None: ...
        async def wait_idle(self) -> None: ...
        def load(self, scenario: Scenario, path: Path | None = None) -> None: ...
        async def push_screen_wait(self, screen: Any) -> Any: ...

    def scenario_files(self) -> list[Path]:
        folders = [PROJECT_SCENARIOS, Path.cwd() / "scenarios"]
        if self.scenario_path is not None:
            folders.insert(0, self.scenario_path.resolve().parent)
        seen: dict[Path, Path] = {}
        for folder in folders:
            if folder.is_dir():
                for path in sorted(folder.glob("*.toml")):
                    seen.setdefault(path.resolve(), _relative(path))
        return list(seen.values())

    @work(group="dialogs")
    async def action_load(self) -> None:
        """A scenario file, or a kubectl dump typed as a path (imported as `playground import`
        does, its report's first line shown; a save goes beside it as TOML)."""
        choice = await self.push_screen_wait(LoadDialog(self.scenario_files(), read_scenario_file, self.scenario_path))
        if choice is None:
            return
        (scenario, report), path = choice
        self.load(scenario, save_path_for(path))
        if report:
            self.notify(Text(report[0]), title=f"Imported {path.name}")

    def default_save_path(self) -> Path:
        stem = self.scenario_path.stem if self.scenario_path is not None else self.sim.scenario.scenario.name
        folder = self.scenario_path.parent if self.scenario_path is not None else Path.cwd()
        at = format_duration(self.sim.clock.now // 1000 * 1000)
        return _relative(folder / f"{stem}-at-{at}.toml")

    def save_to(self, path: Path) -> str:
        existed = path.exists()
        self.sim.save(path)
        operations = len(self.sim.session_entries())
        self.saved_operations = operations
        return (f"{'overwrote' if existed else 'wrote'} {path} with {operations} operation(s) of this session "
                "as timeline entries")

    def export_to(self, folder: Path) -> str:
        from ..manifests.exporter import export

        written = export(self.sim.replay_scenario(), folder)
        return (f"exported {len(written)} files to {folder}: kubectl apply -f {folder}, then run "
                f"{folder / 'timeline.sh'} (README, \"Export\")")

    @work(group="dialogs")
    async def action_save(self) -> None:
        await self.wait_idle()
        message = await self.push_screen_wait(SaveDialog(self.default_save_path(), self.save_to, self.export_to))
        if message:
            self.notify(Text(message), title="Saved")


def _relative(path: Path) -> Path:
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path
