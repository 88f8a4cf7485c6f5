"""Kubernetes manifests <-> scenarios: `playground import` reads kubectl dumps, `playground export`
writes manifests and a kubectl timeline for a kwok or kind cluster."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from .fastpath import SIMPLE_KEYS, pods_toml, simple_pod
from .importer import SOURCE, Report, import_dump, scenario_name
from .reader import Dump, ManifestError, no_gc, read_files, read_texts

__all__ = ["ManifestError", "Imported", "import_files", "import_texts", "scenario_from_data", "scenario_text"]

MAX_PROBLEMS = 10


@dataclass
class Imported:
    scenario: object  # scenario.schema.Scenario
    report: Report
    pods: list[dict] | None = None  # the pods as imported (the scenario's pods, as plain data)


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
    from ..scenario.loader import dump_scenario

    import tomli_w

    head = ["# Imported by `playground import`."]
    head += [f"# {line}" for line in imported.report.lines()]
    if imported.pods is None:
        return "\n".join(head) + "\n\n" + dump_scenario(imported.scenario)
    rest = imported.scenario.model_dump(by_alias=True, exclude_unset=True, exclude_none=True, exclude={"pods"})
    return "\n".join(head) + "\n\n" + tomli_w.dumps(rest) + pods_toml(imported.pods)
