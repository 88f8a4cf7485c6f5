"""Reading what `kubectl get ... -o yaml|json` prints: one object, a `List` (or `PodList`, ...),
multi-document YAML, several files, stdin. Items without `kind` / `apiVersion` (as many real dumps
are) get a kind from their shape; older API versions are read as their apps/v1, policy/v1 and
scheduling.k8s.io/v1 successors, whose fields they share for what the playground keeps.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import yaml

from .yamlload import load_all


try:  # msgspec decodes a large JSON dump in about 60% of the json module's time, to the same objects
    from msgspec import DecodeError as _DecodeError
    from msgspec.json import decode as _decode_json
except ImportError:  # pragma: no cover - msgspec is a dependency; json is the fallback
    _decode_json = None


class ManifestError(Exception):
    """A dump that cannot be read: names the file, the object and the field."""


KINDS = ("Node", "Pod", "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "PodDisruptionBudget",
         "PriorityClass")

# apiVersions kubectl may print for each kind (older clusters, older dumps)
API_VERSIONS = {
    "Node": ("v1",),
    "Pod": ("v1",),
    "Deployment": ("apps/v1", "apps/v1beta2", "apps/v1beta1", "extensions/v1beta1"),
    "ReplicaSet": ("apps/v1", "apps/v1beta2", "extensions/v1beta1"),
    "DaemonSet": ("apps/v1", "apps/v1beta2", "extensions/v1beta1"),
    "StatefulSet": ("apps/v1", "apps/v1beta2", "apps/v1beta1"),
    "PodDisruptionBudget": ("policy/v1", "policy/v1beta1"),
    "PriorityClass": ("scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha1"),
}


@dataclass(slots=True)
class Item:
    kind: str
    obj: dict
    origin: str  # the file (and document) the object came from, for messages
    name: str = ""
    namespace: str = "default"
    index: int | None = None  # its place in the `items` of a List

    @property
    def source(self) -> str:
        return self.origin if self.index is None else f"{self.origin} items[{self.index}]"

    @property
    def metadata(self) -> dict:
        return self.obj.get("metadata") or {}

    @property
    def ref(self) -> str:
        if self.kind in ("Node", "PriorityClass"):
            return f"{self.kind} {self.name}"
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass
class Dump:
    items: list[Item] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # kind -> count of objects not imported
    files: list[str] = field(default_factory=list)


def infer_kind(obj: dict) -> str | None:
    """The kind of an object that does not say it, from fields only that kind has."""
    spec = obj.get("spec")
    status = obj.get("status")
    if "value" in obj and "spec" not in obj:
        return "PriorityClass"
    if not isinstance(spec, dict):
        spec = {}
    if not isinstance(status, dict):
        status = {}
    if "containers" in spec:
        return "Pod"
    if "nodeInfo" in status or "podCIDR" in spec or "providerID" in spec or "capacity" in status \
            or "taints" in spec or "unschedulable" in spec:
        return "Node"
    if "minAvailable" in spec or "maxUnavailable" in spec and "template" not in spec \
            or "disruptionsAllowed" in status:
        return "PodDisruptionBudget"
    if "template" in spec:
        if "volumeClaimTemplates" in spec or "serviceName" in spec or "podManagementPolicy" in spec:
            return "StatefulSet"
        if "strategy" in spec or "progressDeadlineSeconds" in spec or "paused" in spec:
            return "Deployment"
        if "updateStrategy" in spec or "numberScheduled" in status or "desiredNumberScheduled" in status:
            return "DaemonSet"
        if "replicas" in spec or "fullyLabeledReplicas" in status:
            owners = (obj.get("metadata") or {}).get("ownerReferences") or []
            if any(o.get("kind") == "Deployment" for o in owners if isinstance(o, dict)):
                return "ReplicaSet"
            return "Deployment"
        return "DaemonSet"
    return None


def _documents(text: str | bytes, source: str) -> list:
    if isinstance(text, bytes):  # a JSON file, read as bytes for msgspec
        try:
            doc = _decode_json(text)
            return doc if isinstance(doc, list) else [doc]
        except _DecodeError:
            try:
                text = text.decode("utf-8")  # json says where and what is wrong, below
            except UnicodeDecodeError:
                raise ManifestError(f"{source}: not a text file (UTF-8 expected)") from None
    head = text[:64]
    stripped = head.lstrip()[:1]  # the first character that is not white space (no copy of the text)
    if stripped.startswith(("{", "[")):
        if _decode_json is not None:
            try:
                doc = _decode_json(text)
                return doc if isinstance(doc, list) else [doc]
            except _DecodeError:
                pass  # json says where and what is wrong, below
        try:
            doc = json.loads(text)
            return doc if isinstance(doc, list) else [doc]
        except json.JSONDecodeError as exc:
            if stripped.startswith("["):
                raise ManifestError(f"{source}:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno})") from None
            # a JSON-looking start may still be YAML flow style; let YAML say what is wrong
    try:
        return [d for d in load_all(text) if d is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        what = exc.problem or exc.context or "not valid YAML"
        raise ManifestError(f"{source}{line}: not valid YAML or JSON: {what}") from None
    except yaml.YAMLError as exc:
        raise ManifestError(f"{source}: not valid YAML or JSON: {exc}") from None


def _flatten(doc, source: str, out: list[tuple[dict, str, int | None]]) -> None:
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            _flatten(item, f"{source}[{i}]", out)
        return
    if not isinstance(doc, dict):
        raise ManifestError(f"{source}: expected a Kubernetes object (a mapping), got {type(doc).__name__}")
    kind = doc.get("kind")
    if "items" in doc and (kind is None or (isinstance(kind, str) and kind.endswith("List"))):
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise ManifestError(f"{source}: items: expected a list of objects")
        for i, item in enumerate(items):
            if type(item) is dict and "items" not in item:
                out.append((item, source, i))
            else:
                _flatten(item, f"{source} items[{i}]", out)
        return
    out.append((doc, source, None))


def _where(origin: str, index: int | None) -> str:
    return origin if index is None else f"{origin} items[{index}]"


def read_texts(texts: Iterable[tuple[str, str | bytes]]) -> Dump:
    """(source name, text) pairs -> the objects they hold, with a kind each."""
    dump = Dump()
    for source, text in texts:
        dump.files.append(source)
        raw: list[tuple[dict, str, int | None]] = []
        for i, doc in enumerate(_documents(text, source)):
            _flatten(doc, source if i == 0 else f"{source} (document {i + 1})", raw)
        for obj, origin, index in raw:
            kind = obj.get("kind") or infer_kind(obj)
            if kind is None:
                raise ManifestError(f"{_where(origin, index)}: an object without `kind` whose shape is not one the playground "
                                    f"knows ({', '.join(KINDS)}); add `kind:` to it")
            if not isinstance(kind, str):
                raise ManifestError(f"{_where(origin, index)}: kind: expected a string, got {kind!r}")
            if kind not in KINDS:
                dump.skipped[kind] = dump.skipped.get(kind, 0) + 1
                continue
            api = obj.get("apiVersion")
            if api is not None and api not in API_VERSIONS[kind]:
                raise ManifestError(f"{_where(origin, index)}: {kind} with apiVersion {api!r} is not one the playground reads "
                                    f"(it reads {', '.join(API_VERSIONS[kind])})")
            metadata = obj.get("metadata")
            if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str) or not metadata["name"]:
                raise ManifestError(f"{_where(origin, index)}: {kind} without metadata.name; every object needs a name")
            namespace = metadata.get("namespace") or "default"
            if not isinstance(namespace, str):
                raise ManifestError(f"{_where(origin, index)}: {kind} {metadata['name']}: metadata.namespace: expected a string")
            dump.items.append(Item(kind, obj, origin, metadata["name"], namespace, index))
    return dump


def read_files(paths: list[str]) -> Dump:
    """Files by name; `-` is stdin."""
    for path in paths:  # a mistyped name is said at once, not after the big file before it was read
        if path != "-":
            _check_readable(path)
    return read_texts(_file_texts(paths))


def _check_readable(path: str) -> None:
    """A name that is no file, or a folder, said in the words a user can act on."""
    if Path(path).is_dir():
        raise ManifestError(f"{path}: is a folder; give the files in it (e.g. {path}/*.yaml)")
    if not Path(path).exists():
        raise ManifestError(f"{path}: no such file")


def _file_texts(paths: list[str]) -> Iterator[tuple[str, str | bytes]]:
    """(name, text) of each file, read when the one before has been read: a file's bytes go before
    its objects are built (a 376 MiB `-o yaml` dump held its bytes and its text at once)."""
    for path in paths:
        if path == "-":
            yield "<stdin>", sys.stdin.read()
            continue
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            _check_readable(path)  # (gone or made a folder since read_files looked)
            raise ManifestError(f"{path}: cannot be read: {exc.strerror}") from None
        head = data[:64].lstrip()[:1]
        if head in (b"{", b"[") and _decode_json is not None:
            yield path, data  # JSON: msgspec decodes (and checks the UTF-8 of) the bytes
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ManifestError(f"{path}: not a text file (UTF-8 expected)") from None
        del data
        yield path, text
