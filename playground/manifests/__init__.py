"""Kubernetes manifests <-> scenarios: `playground import` reads kubectl dumps, `playground export`
writes manifests and a kubectl timeline for a kwok or kind cluster."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..gcpause import no_gc
from .fastpath import SIMPLE_KEYS, pods_toml, simple_pod
from .importer import SOURCE, Report, import_dump, scenario_name
from .reader import Dump, ManifestError, read_files, read_texts

__all__ = ["DUMP_SUFFIXES", "ManifestError", "Imported", "import_files", "import_texts", "read_scenario_file",
           "save_path_for", "scenario_from_data", "scenario_text"]

MAX_PROBLEMS = 10
DUMP_SUFFIXES = (".yaml", ".yml", ".json")  # a kubectl dump; anything else is a scenario file


@dataclass
class Imported:
    scenario: object  # scenario.schema.Scenario
    report: Report
    pods: list[dict] | None = None  # the pods as imported (the scenario's pods, as plain data)


def read_scenario_file(file: Path) -> tuple[object, list[str]]:
    """The scenario of a file, as every command and the playground open one: a scenario file, or a
    kubectl dump (told by its suffix) imported as `playground import` does, with the lines of the
    import's report to show. A big one comes from its kept copy when its bytes and the code are
    unchanged (openstate.read_source)."""
    from ..engine.openstate import OpenStateCache
    from ..scenario import load_scenario

    def read() -> tuple[object, list[str]]:
        if file.suffix.lower() in DUMP_SUFFIXES:
            imported = import_files([str(file)])
            return imported.scenario, imported.report.lines()
        return load_scenario(file), []

    cache = OpenStateCache.default()
    return cache.read_source(file, read) if cache is not None else read()


def save_path_for(file: Path) -> Path:
    """Where a save of what `file` opened goes: beside a dump, as TOML (the dump stays as it was)."""
    return file.with_suffix(".toml") if file.suffix.lower() in DUMP_SUFFIXES else file


def import_files(paths: list[str], name: str | None = None) -> Imported:
    with no_gc():
        return _import(read_files(paths), name or scenario_name(paths))


def import_texts(texts: list[tuple[str, str]], name: str = "imported") -> Imported:
    with no_gc():
        return _import(read_texts(texts), name)


def _import(dump: Dump, name: str) -> Imported:
    data, report = import_dump(dump, name)
    pods = [{k: v for k, v in p.items() if k != SOURCE} for p in data.get("pods", [])]
    return Imported(scenario_from_data(data), report, pods)


def scenario_from_data(data: dict):
    """Validate an imported scenario; a problem names the dump object it came from."""
    from ..scenario.loader import _cross_check, format_loc
    from ..scenario.schema import Scenario

    sources: dict[tuple[str, int], object] = {}
    for section, entries in data.items():
        if isinstance(entries, list):
            for i, entry in enumerate(entries):
                if isinstance(entry, dict) and SOURCE in entry:
                    sources[(section, i)] = entry.pop(SOURCE)
    namespaces: dict[str, str | None] = {}
    if data.get("pods"):
        data["pods"] = [(simple_pod(p, namespaces) or p) if SIMPLE_KEYS.issuperset(p) else p for p in data["pods"]]
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ManifestError(_problems([(e["loc"], _message(e)) for e in exc.errors()], sources, format_loc)) \
            from None
    cross = _cross_check(scenario)
    if cross:
        raise ManifestError(_problems(cross, sources, format_loc))
    return scenario


def _message(error: dict) -> str:
    from ..scenario.loader import _problem

    return _problem(error, {}).message


def _problems(problems: list, sources: dict, format_loc) -> str:
    lines = []
    for loc, message in problems[:MAX_PROBLEMS]:
        loc = tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
        item = sources.get(tuple(loc[:2])) if len(loc) >= 2 else None
        if item is not None:
            rest = format_loc(tuple(loc[2:]))
            lines.append(f"{item.source}: {item.ref}: {rest + ': ' if rest else ''}{message}")
        else:
            lines.append(f"{format_loc(tuple(loc))}: {message}")
    if len(problems) > MAX_PROBLEMS:
        lines.append(f"... and {len(problems) - MAX_PROBLEMS} more problems")
    return "\n".join(lines)


def scenario_text(imported: Imported) -> str:
    """The scenario as TOML, the import report at the top as comments."""
    from ..scenario.loader import dump_scenario, owned_pods_toml, shaped_nodes_toml

    import tomli_w

    head = ["# Imported by `playground import`."]
    head += [f"# {line}" for line in imported.report.lines()]
    if imported.pods is None:
        return "\n".join(head) + "\n\n" + dump_scenario(imported.scenario)
    scenario = imported.scenario
    shaped = any(node.shape is not None for node in scenario.nodes)
    rest = scenario.model_dump(by_alias=True, exclude_unset=True, exclude_none=True,
                               exclude={"pods", "ownedPods", *(("nodes",) if shaped else ())})
    nodes = [n.model_dump(by_alias=True, exclude_unset=True, exclude_none=True) for n in scenario.nodes] if shaped \
        else []
    owned = [g.model_dump(exclude_unset=True) for g in scenario.ownedPods]
    return ("\n".join(head) + "\n\n" + tomli_w.dumps(rest) + shaped_nodes_toml(nodes) + pods_toml(imported.pods)
            + owned_pods_toml(owned))
