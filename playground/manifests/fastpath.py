"""The two steps whose cost grows with every pod of a large import, done without pydantic and
tomli-w for the pods that say no more than who they are (name, namespace, node, owner, mirror):
most pods of a dump, whose spec is their workload's template. tests/test_import_fastpath.py
checks both against the plain way (pydantic validation, tomli-w) on random pods.
"""

from __future__ import annotations

import json
import re

from ..scenario.validation import DNS1123_SUBDOMAIN, label_error, subdomain_error

SIMPLE_KEYS = frozenset({"name", "namespace", "nodeName", "owner", "mirror"})
OWNED_KEYS = frozenset({"name", "namespace", "nodeName", "owner"})  # what an [[ownedPods]] line holds
OWNER = re.compile(r"(Deployment|DaemonSet|StatefulSet)/[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_PLAIN = re.compile(r"[A-Za-z0-9 ._/:=-]*")  # nothing to escape in a TOML basic string


def simple_pod(entry: dict, namespaces: dict[str, str | None]):
    """A PodSpec for an entry of only SIMPLE_KEYS whose values are valid; None when the entry
    needs pydantic (other keys, or a value pydantic would refuse: it then names the problem)."""
    from ..scenario.schema import PodSpec

    name = entry.get("name")
    if type(name) is not str or not (len(name) <= 253 and DNS1123_SUBDOMAIN.fullmatch(name)) \
            and subdomain_error(name, "pod name"):
        return None
    namespace = entry.get("namespace", "default")
    if type(namespace) is not str:
        return None
    if namespace not in namespaces:
        namespaces[namespace] = label_error(namespace)
    if namespaces[namespace]:
        return None
    node = entry.get("nodeName")
    if node is not None and type(node) is not str:
        return None
    owner = entry.get("owner")
    if owner is not None and (type(owner) is not str or not OWNER.fullmatch(owner)):
        return None
    mirror = entry.get("mirror", False)
    if type(mirror) is not bool:
        return None
    return _construct(PodSpec, entry)


_PROTOTYPES: dict[type, dict] = {}


def _construct(model: type, entry: dict):
    """model.model_construct(**entry) without copying every default again: the defaults of one
    constructed prototype are shared (a scenario's pods are never changed in place: the engine
    copies what it uses, a save dumps them)."""
    defaults = _PROTOTYPES.get(model)
    if defaults is None:
        defaults = _PROTOTYPES[model] = dict(model.model_construct(name="prototype").__dict__)
    obj = model.__new__(model)
    object.__setattr__(obj, "__dict__", {**defaults, **entry})
    object.__setattr__(obj, "__pydantic_fields_set__", set(entry))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def owned_pod_lists(pods: list[dict], extra_key: str) -> tuple[list[dict], list[dict]]:
    """Split imported pods: those that say no more than their name, namespace, node and owner (most
    pods of a dump) go to [[ownedPods]] lists, one per owner and namespace in the order of its first
    pod, pods in their order; the others stay [[pods]] entries. `extra_key` (the dump object an entry
    came from) may be there too. A value that validation would refuse keeps its pod a [[pods]] entry,
    where the error names the dump object."""
    rest: list[dict] = []
    lists: dict[tuple[str, str], list[str]] = {}
    namespaces: dict[str, str | None] = {}
    allowed = OWNED_KEYS | {extra_key}
    for pod in pods:
        name, node, owner = pod.get("name"), pod.get("nodeName"), pod.get("owner")
        namespace = pod.get("namespace", "default")
        if allowed.issuperset(pod) and type(node) is str and type(owner) is str and type(name) is str \
                and type(namespace) is str and _dns_name(name) and _dns_name(node) and OWNER.fullmatch(owner):
            if namespace not in namespaces:
                namespaces[namespace] = label_error(namespace)
            if namespaces[namespace] is None:
                lists.setdefault((owner, namespace), []).append(f"{name} {node}\n")
                continue
        rest.append(pod)
    owned = []
    for (owner, namespace), lines in lists.items():
        entry = {"owner": owner}
        if namespace != "default":
            entry["namespace"] = namespace
        entry["pods"] = "".join(lines)
        owned.append(entry)
    return rest, owned


def _dns_name(value: str) -> bool:
    return len(value) <= 253 and DNS1123_SUBDOMAIN.fullmatch(value) is not None


def toml_value(value) -> str:
    """A TOML value on one line (inline tables and arrays), as a pod entry's values need."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if _PLAIN.fullmatch(value):
            return f'"{value}"'
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML basic-string escapes
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def pods_toml(pods: list[dict]) -> str:
    """[[pods]] tables, one key per line."""
    return tables_toml("pods", pods)


def tables_toml(name: str, tables: list[dict]) -> str:
    """An array of tables as [[name]] tables, one key per line (inline tables and arrays within)."""
    out = []
    header = f"\n[[{name}]]\n"
    for table in tables:
        out.append(header)
        for key, value in table.items():
            out.append(f"{toml_key(key)} = {toml_value(value)}\n")
    return "".join(out)
