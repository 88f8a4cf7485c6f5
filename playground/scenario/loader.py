"""Reading and writing scenario files.

Errors name the file, the key path, the line where it can be found and what to do about it; unknown
keys get the closest known spelling. Saving writes a temporary file beside the target and renames it
over the target, so a crash never leaves half a scenario behind.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tomllib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, ValidationError

from ..gcpause import no_gc
from .saving import write_atomically
from .schema import ROLLOUT_OPERATIONS, Scenario
from .validation import MAX_FILE_BYTES, MAX_NESTING, nesting_depth, prefix_error, unknown_name_error

LocPart = str | int


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    message: str

    def format(self, file: str) -> str:
        where = f"{file}:{self.line}" if self.line else file
        key = f" {self.path}:" if self.path else ""
        return f"{where}:{key} {self.message}"


class ScenarioError(Exception):
    """A scenario that cannot be used; `problems` says every reason found."""

    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.file = file
        self.problems = problems
        super().__init__(self.format())

    def format(self) -> str:
        lines = [p.format(self.file) for p in self.problems]
        if len(lines) > 1:
            lines.insert(0, f"{self.file}: {len(lines)} problems")
        return "\n".join(lines)


# ---------------------------------------------------------------- line numbers

_HEADER = re.compile(r"^\[\[?\s*(.+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=""")


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(r"""\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)""", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def locate_keys(text: str) -> dict[tuple[LocPart, ...], int]:
    """Map key paths (with array indexes) to the line that defines them."""
    positions: dict[tuple[LocPart, ...], int] = {}
    arrays: dict[tuple[LocPart, ...], int] = {}
    current: tuple[LocPart, ...] = ()
    closing = ""  # the quotes that end the multi-line string being skipped
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if closing:
            if closing in line:
                closing = ""
            continue
        if not line or line.startswith("#"):
            continue
        header = _HEADER.match(line) if line.startswith("[") else None
        if header:
            parts = _split_key(header.group(1))
            path: tuple[LocPart, ...] = ()
            for i, part in enumerate(parts):
                path += (part,)
                if i < len(parts) - 1 and path in arrays:
                    path += (arrays[path],)
            if line.startswith("[["):
                index = arrays.get(path, -1) + 1
                arrays[path] = index
                positions.setdefault(path, lineno)
                path += (index,)
            current = path
            positions.setdefault(current, lineno)
            continue
        key = _KEY.match(line)
        if key:
            positions.setdefault(current + _split_key(key.group(1)), lineno)
            value = line[key.end():]
            for quotes in ("'''", '"""'):
                if value.lstrip().startswith(quotes) and value.count(quotes) == 1:
                    closing = quotes  # its lines are the string's, not keys
    return positions


def _line_for(loc: tuple[LocPart, ...], positions: dict[tuple[LocPart, ...], int]) -> int | None:
    for end in range(len(loc), 0, -1):
        line = positions.get(tuple(loc[:end]))
        if line is not None:
            return line
    return None


def format_loc(loc: tuple[LocPart, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + (part if re.match(r"^[A-Za-z0-9_-]+$", part) else f'"{part}"')
    return out


# ---------------------------------------------------------------- pydantic errors

def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        model = _model_of(arg)
        if model is not None:
            return model
    return None


def _keys_at(loc: tuple[LocPart, ...]) -> list[str]:
    """The keys allowed in the table at loc (aliases where a field has one)."""
    model: type[BaseModel] | None = Scenario
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        if field is None:
            return []
        model = _model_of(field.annotation)
    if model is None:
        return []
    return [f.alias or n for n, f in model.model_fields.items()]


def _problem(error: dict, positions: dict) -> Problem:
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
    kind = error["type"]
    message = error["msg"]
    line = _line_for(loc, positions)
    if kind == "extra_forbidden":
        known = _keys_at(loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
        if close:
            message = f'unknown key; did you mean "{close[0]}"?'
        elif known:
            message = f"unknown key; known keys here: {', '.join(known)}"
        else:
            message = "unknown key"
    elif kind == "missing":
        message = "missing required key"
        line = _line_for(loc[:-1], positions)
    elif message.startswith("Value error, "):
        message = message[len("Value error, "):]
    elif kind.endswith("_type") or kind.endswith("_parsing"):
        message = f"{message} (got {error.get('input')!r})"
    return Problem(format_loc(loc), line, message)


def problem_text(error: dict) -> str:
    """One pydantic error as "key.path: message", for errors outside a file (live operations)."""
    problem = _problem(error, {})
    field = str(error["loc"][-1]) if error["loc"] else ""
    if not problem.path or problem.message.startswith(field):
        return problem.message
    return f"{problem.path}: {problem.message}"


# ---------------------------------------------------------------- cross references

def _cross_check(scenario: Scenario) -> list[tuple[tuple[LocPart, ...], str]]:
    problems: list[tuple[tuple[LocPart, ...], str]] = []

    def duplicates(items: list, what: str, key=lambda x: x.name) -> None:
        seen: set = set()
        for i, item in enumerate(items):
            k = key(item)
            if k in seen:
                problems.append(((what, i, "name"), f"duplicate name {k if isinstance(k, str) else k[1]!r}"))
            seen.add(k)

    duplicates(scenario.priorityClasses, "priorityClasses")
    duplicates(scenario.deployments, "deployments", key=lambda d: (d.namespace, d.name))
    duplicates(scenario.daemonSets, "daemonSets", key=lambda d: (d.namespace, d.name))
    duplicates(scenario.statefulSets, "statefulSets", key=lambda d: (d.namespace, d.name))
    duplicates(scenario.pods, "pods", key=lambda p: (p.namespace, p.name))
    duplicates(scenario.podDisruptionBudgets, "podDisruptionBudgets", key=lambda p: (p.namespace, p.name))
    defaults = [i for i, pc in enumerate(scenario.priorityClasses) if pc.globalDefault]
    for i in defaults[1:]:
        problems.append((("priorityClasses", i, "globalDefault"), "only one PriorityClass may be the globalDefault"))

    problems += _kubelet_problems(scenario)

    duplicates(scenario.nodeShapes, "nodeShapes", key=lambda shape: shape.name)
    shapes = {shape.name for shape in scenario.nodeShapes}
    unknown: dict[str, int] = {}  # unknown shape -> the nodes naming it
    node_names: set[str] = set()
    for i, node in enumerate(scenario.nodes):
        if node.name in node_names:
            problems.append((("nodes", i, "name"), f"duplicate node name {node.name!r}"))
        node_names.add(node.name)
        if node.shape is not None and node.shape not in shapes:
            unknown[node.shape] = unknown.get(node.shape, 0) + 1
            if unknown[node.shape] <= MAX_OWNED_PROBLEMS:  # (a wrong shape's name on 5,000 nodes)
                problems.append((("nodes", i, "shape"), unknown_name_error("node shape", node.shape, shapes)))
    for shape, count in unknown.items():
        if count > MAX_OWNED_PROBLEMS:
            problems.append((("nodes",), f"... and {count - MAX_OWNED_PROBLEMS} more nodes of the unknown shape "
                                         f"{shape!r}"))
    for i, pool in enumerate(scenario.nodePools):
        error = prefix_error(pool.namePrefix, pool.count)
        if error:
            problems.append((("nodePools", i, "namePrefix"), error))
            continue
        for name in pool.names():
            if name in node_names:
                problems.append((("nodePools", i, "namePrefix"), f"node pool makes node {name!r}, which already exists"))
                break
            node_names.add(name)

    classes = {pc.name for pc in scenario.priorityClasses} | {"system-cluster-critical", "system-node-critical"}

    def check_class(loc: tuple[LocPart, ...], name: str) -> None:
        error = unknown_name_error("PriorityClass", name, classes) if name else None
        if error:
            problems.append((loc, error))

    for kind in ("deployments", "daemonSets", "statefulSets"):
        for i, workload in enumerate(getattr(scenario, kind)):
            check_class((kind, i, "template", "priorityClassName"), workload.template.priorityClassName)
    for i, pod in enumerate(scenario.pods):
        check_class(("pods", i, "priorityClassName"), pod.priorityClassName)

    unknown_node = NodeNames(node_names)

    def check_node(loc: tuple[LocPart, ...], name: str | None) -> None:
        error = unknown_node(name) if name else None
        if error:
            problems.append((loc, error))

    for i, pod in enumerate(scenario.pods):
        check_node(("pods", i, "nodeName"), pod.nodeName)
    _check_owners(scenario, problems)
    _check_owned_pods(scenario, unknown_node, problems)
    deployments = {d.name for d in scenario.deployments}
    pods = {(p.namespace, p.name) for p in scenario.pods}
    for i, entry in enumerate(scenario.timeline):
        check_node(("timeline", i, "node"), entry.node)
        if entry.do in ("scale", *ROLLOUT_OPERATIONS):
            error = unknown_name_error("deployment", entry.deployment, deployments)
            if error:
                problems.append((("timeline", i, "deployment"), error))
        if entry.do == "create-pod":
            if entry.spec is not None:
                check_class(("timeline", i, "spec", "priorityClassName"), entry.spec.priorityClassName)
            pods.add((entry.namespace, entry.pod))
    budgets = {f"{p.namespace}/{p.name}" for p in scenario.podDisruptionBudgets}
    budget_names = {p.name for p in scenario.podDisruptionBudgets}
    for i, exp in enumerate(scenario.expect):
        check_node(("expect", i, "node"), exp.node)
        check_node(("expect", i, "podNode"), exp.podNode)
        check_node(("expect", i, "nominatedNodeName"), exp.nominatedNodeName)
        check_node(("expect", i, "attachedTo"), exp.attachedTo)
        if exp.pods is not None:
            check_node(("expect", i, "pods", "node"), exp.pods.node)
            check_node(("expect", i, "pods", "notNode"), exp.pods.notNode)
        if exp.pdb:
            error = unknown_name_error("PodDisruptionBudget",
                                       exp.pdb if "/" in exp.pdb else f"{exp.namespace}/{exp.pdb}", budgets)
            if error:
                problems.append((("expect", i, "pdb"), error))
        if exp.drainBlockedBy:
            error = unknown_name_error("PodDisruptionBudget", exp.drainBlockedBy, budget_names)
            if error:
                problems.append((("expect", i, "drainBlockedBy"), error))
    return problems


def _workloads(scenario: Scenario) -> set[tuple[str, str, str]]:
    """(kind, namespace, name) of every workload an existing pod may name as its owner."""
    owners = {("Deployment", d.namespace, d.name) for d in scenario.deployments}
    owners |= {("DaemonSet", d.namespace, d.name) for d in scenario.daemonSets}
    owners |= {("StatefulSet", s.namespace, s.name) for s in scenario.statefulSets}
    return owners


def _check_owners(scenario: Scenario, problems: list) -> None:
    """An imported pod's owner must be a workload of the scenario, in the pod's namespace."""
    owners = _workloads(scenario)
    for i, pod in enumerate(scenario.pods):
        owner = getattr(pod, "owner", None)
        if owner:
            kind, _, name = owner.partition("/")
            if (kind, pod.namespace, name) not in owners:
                problems.append((("pods", i, "owner"), f"no {kind} named {name!r} in namespace {pod.namespace!r}"))


# per [[ownedPods]] list and per unknown node shape: a wrong dump could name 150,000 unknown nodes
MAX_OWNED_PROBLEMS = 5
MAX_SUGGESTIONS = 20  # unknown node names given the closest spelling: ~0.2 s each among 5,000 nodes


class NodeNames:
    """The unknown-node message of a name, "did you mean" included for the first MAX_SUGGESTIONS:
    a file naming thousands of wrong nodes is refused in a second, not in minutes."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.suggestions = MAX_SUGGESTIONS

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def __call__(self, name: str) -> str | None:
        if name in self.names:
            return None
        self.suggestions -= 1
        return unknown_name_error("node", name, self.names, suggest=self.suggestions >= 0)


def _check_owned_pods(scenario: Scenario, node_names: NodeNames, problems: list) -> None:
    """[[ownedPods]]: the owner exists in the list's namespace, every node exists, and no pod name is
    taken twice in a namespace (by another line or a [[pods]] entry). A pod's problem is located by
    its line index in the list (the last part of the key path)."""
    owners = _workloads(scenario)
    taken: dict[str, set[str]] = {}  # pod names by namespace
    for p in scenario.pods:
        taken.setdefault(p.namespace, set()).add(p.name)
    for i, group in enumerate(scenario.ownedPods):
        kind, _, name = group.owner.partition("/")
        if (kind, group.namespace, name) not in owners:
            problems.append((("ownedPods", i, "owner"), f"no {kind} named {name!r} in namespace {group.namespace!r}"))
        entries = group.entries()
        names = [entry[1] for entry in entries]
        in_namespace = taken.setdefault(group.namespace, set())
        if {entry[2] for entry in entries} <= node_names.names and in_namespace.isdisjoint(names) \
                and len(set(names)) == len(names):
            in_namespace.update(names)  # the whole list is right: no line needs a look of its own
            continue
        found = 0
        for index, pod, node in entries:
            for wrong, message in ((node not in node_names, "unknown node"), (pod in in_namespace, "duplicate pod name")):
                if wrong:
                    found += 1
                    if found <= MAX_OWNED_PROBLEMS:  # (the suggestions of a name compare it with every node's)
                        problems.append((("ownedPods", i, "pods", index), _owned_problem(message, pod, node, node_names)))
            in_namespace.add(pod)
        if found > MAX_OWNED_PROBLEMS:
            problems.append((("ownedPods", i, "pods"),
                             f"... and {found - MAX_OWNED_PROBLEMS} more pods of this list with problems"))


def _owned_problem(message: str, pod: str, node: str, node_names: NodeNames) -> str:
    if message == "unknown node":
        return f"pod {pod!r}: {node_names(node)}"
    return f"duplicate pod name {pod!r}"


def _owned_line(loc: tuple[LocPart, ...], positions: dict, lines: list[str]) -> tuple[tuple[LocPart, ...], int | None]:
    """An [[ownedPods]] pod's key path (the list's) and file line, from its line index in the list:
    counted from the line after `pods = '''` (TOML drops the newline right after the quotes), or
    from the key's own line when the list starts there."""
    path = loc[:3]
    line = _line_for(path, positions)
    if line is None:
        return path, None
    rest = lines[line - 1].split("=", 1)[-1].strip() if line <= len(lines) else ""
    first = line + 1 if rest in ("'''", '"""') else line
    return path, first + int(loc[3])


def _kubelet_problems(scenario: Scenario) -> list[tuple[tuple[LocPart, ...], str]]:
    """The kubelet's own validation of the settings each node ends up with (a node's [kubelet] table
    over the cluster-wide one): it refuses to start otherwise."""
    from ..units import format_duration

    problems: list[tuple[tuple[LocPart, ...], str]] = []
    cluster = scenario.kubelet
    for kind, items in (("nodeShapes", scenario.nodeShapes), ("nodes", scenario.nodes),
                        ("nodePools", scenario.nodePools)):
        for i, item in enumerate(items):
            own = item.kubelet

            def pick(name: str):
                value = getattr(own, name)
                return value if value is not None else getattr(cluster, name)

            total, critical = pick("shutdownGracePeriod") or 0, pick("shutdownGracePeriodCriticalPods") or 0
            by_priority = pick("shutdownGracePeriodByPodPriority")
            loc = (kind, i, "kubelet")
            if critical > total:
                problems.append((loc, f"shutdownGracePeriodCriticalPods ({format_duration(critical)}) must not exceed "
                                      f"shutdownGracePeriod ({format_duration(total)}) once the cluster-wide [kubelet] "
                                      "settings are applied; the kubelet would refuse this as a wrong configuration"))
            elif by_priority and (total or critical):
                problems.append((loc, "shutdownGracePeriodByPodPriority cannot be combined with shutdownGracePeriod or "
                                      "shutdownGracePeriodCriticalPods (one comes from the cluster-wide [kubelet] "
                                      "table)"))
    return problems


# ---------------------------------------------------------------- public API

def parse_scenario(text: str, file: str = "<scenario>") -> Scenario:
    with no_gc():  # (collections walked what it makes: 0.03-0.1 s of a production copy's 0.4 s read)
        return _parse_scenario(text, file)


def _parse_scenario(text: str, file: str) -> Scenario:
    text = text.removeprefix("\ufeff")  # a UTF-8 byte order mark, as some editors write
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise ScenarioError(file, [Problem("", int(match.group(1)) if match else None, f"invalid TOML: {exc}")]) from None
    except RecursionError:
        raise ScenarioError(file, [Problem("", None, f"arrays or tables nested too deeply (at most {MAX_NESTING} "
                                                     "levels)")]) from None
    if nesting_depth(data) > MAX_NESTING:
        raise ScenarioError(file, [Problem("", None, f"arrays or tables nested too deeply (at most {MAX_NESTING} "
                                                     "levels)")])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        positions = locate_keys(text)
        errors = exc.errors()
        lines = text.splitlines() if any(e["type"] == "owned_pod_line" for e in errors) else []
        problems = []
        for error in errors:
            problem = _problem(error, positions)
            if error["type"] == "owned_pod_line":
                _path, line = _owned_line(tuple(error["loc"]) + (error["ctx"]["line"],), positions, lines)
                problem = Problem(problem.path, line, problem.message)
            problems.append(problem)
        raise ScenarioError(file, problems) from None
    cross = _cross_check(scenario)
    if cross:
        positions = locate_keys(text)
        lines = text.splitlines() if any(loc[0] == "ownedPods" for loc, _msg in cross) else []
        raise ScenarioError(file, [_cross_problem(loc, msg, positions, lines) for loc, msg in cross])
    return scenario


def _cross_problem(loc: tuple[LocPart, ...], message: str, positions: dict, lines: list[str]) -> Problem:
    if len(loc) == 4 and loc[0] == "ownedPods":
        path, line = _owned_line(loc, positions, lines)
        return Problem(format_loc(path), line, message)
    return Problem(format_loc(loc), _line_for(loc, positions), message)


def read_scenario_text(path: str | os.PathLike) -> str:
    """The text of a scenario file: a regular file (a FIFO or a device is refused without blocking on
    it) of at most MAX_FILE_BYTES, in UTF-8."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ScenarioError(name, [Problem("", None, "no such file")]) from None
    except OSError as exc:
        raise ScenarioError(name, [Problem("", None, f"cannot read: {exc.strerror or exc}")]) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise ScenarioError(name, [Problem("", None, f"cannot read: {kind}; give a scenario .toml file")])
        if info.st_size > MAX_FILE_BYTES:
            raise ScenarioError(name, [Problem("", None, f"file too large ({info.st_size} bytes); a scenario may "
                                                         f"have at most {MAX_FILE_BYTES} bytes")])
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:
            raise ScenarioError(name, [Problem("", None, f"file too large; a scenario may have at most "
                                                         f"{MAX_FILE_BYTES} bytes")])
    except OSError as exc:
        raise ScenarioError(name, [Problem("", None, f"cannot read: {exc.strerror or exc}")]) from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(name, [Problem("", None, f"cannot read: not UTF-8 text ({exc.reason} at byte "
                                                     f"{exc.start})")]) from None


def load_scenario(path: str | os.PathLike) -> Scenario:
    return parse_scenario(read_scenario_text(path), str(path))


def dump_scenario(scenario: Scenario) -> str:
    data = scenario.to_toml_dict()
    owned = data.pop("ownedPods", [])
    nodes = data.pop("nodes", []) if any(node.shape is not None for node in scenario.nodes) else []
    return tomli_w.dumps(data) + shaped_nodes_toml(nodes) + owned_pods_toml(owned)


def shaped_nodes_toml(nodes: list[dict]) -> str:
    """[[nodes]] tables, one key per line, for a scenario whose nodes have shapes (most of them a
    name and a shape). After the rest: tomli-w would write thousands of short tables as one inline
    array at the top of the file."""
    from ..manifests.fastpath import tables_toml

    return tables_toml("nodes", nodes)


def owned_pods_toml(groups: list[dict]) -> str:
    """[[ownedPods]] tables, each list of pods as a multi-line literal string, one pod a line as read:
    tomllib reads one ~8 times faster than the escaped string tomli-w would write. Validation keeps
    anything that could end the string or need escaping out of it (names, spaces and tabs only)."""
    out = []
    for group in groups:
        out.append("\n[[ownedPods]]\n")
        for key, value in group.items():
            out.append(f"pods = '''\n{value}'''\n" if key == "pods" else tomli_w.dumps({key: value}))
    return "".join(out)


def save_scenario(scenario: Scenario, path: str | os.PathLike) -> None:
    """Write atomically (see saving.py): never what could not be read back, never half a file."""
    text = dump_scenario(scenario)
    parse_scenario(text, str(path))  # never write what we could not read back
    write_atomically(path, text)
