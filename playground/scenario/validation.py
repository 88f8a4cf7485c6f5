"""The one set of rules every name, taint and count is checked against, whether it comes from a
scenario file (the schema and its cross-checks) or from a live operation (keys, dialogs, the palette,
the Python API: `Operations.apply`).

The rules are Kubernetes' own (k8s.io/apimachinery/pkg/util/validation): DNS-1123 subdomains for
object names, DNS-1123 labels for namespaces, qualified names for label and taint keys, label values;
and kubectl taint's spec syntax (k8s.io/kubectl/pkg/cmd/taint, pkg/util/taints). Every check returns
an error message, or None when the value is fine, so callers decide how to report it.
"""

from __future__ import annotations

import difflib
import re

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

# Limits of the playground (documented in README, "Limits").
MAX_REPLICAS = 100_000  # per Deployment, StatefulSet or `scale` operation
MAX_NODE_POOL = 100_000  # nodes per [[nodePools]] entry
MAX_TIME_MS = 7 * 24 * 3_600_000  # [scenario] duration, every `at`, and the clock of a session that saves
MAX_FILE_BYTES = 8 * 1024 * 1024  # a scenario file
MAX_NESTING = 32  # arrays and tables inside one another

_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


def subdomain_error(value: object, what: str = "name") -> str | None:
    """IsDNS1123Subdomain: object names (nodes, pods, deployments, PDBs, priority classes)."""
    if not isinstance(value, str):
        return f"{what} must be a string, got {value!r}"
    if not value:
        return f"{what} must not be empty"
    if len(value) > 253:
        return f"{what} {value[:40]!r}... must be no more than 253 characters"
    if not _SUBDOMAIN.match(value):
        return (f"{value!r} is not a valid {what}: a lowercase RFC 1123 subdomain must consist of lower case "
                "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                "(e.g. 'example.com')")
    return None


def label_error(value: object, what: str = "namespace") -> str | None:
    """IsDNS1123Label: namespaces."""
    if not isinstance(value, str):
        return f"{what} must be a string, got {value!r}"
    if not value:
        return f"{what} must not be empty"
    if len(value) > 63:
        return f"{what} {value[:40]!r}... must be no more than 63 characters"
    if not _LABEL.match(value):
        return (f"{value!r} is not a valid {what}: a lowercase RFC 1123 label must consist of lower case alphanumeric "
                "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name')")
    return None


def prefix_error(prefix: object, count: int) -> str | None:
    """A node pool's namePrefix: every generated name (prefix + 1 .. count) must be a valid node name."""
    if not isinstance(prefix, str):
        return f"namePrefix must be a string, got {prefix!r}"
    if not prefix:
        return "namePrefix must not be empty; e.g. \"pool-\""
    last = f"{prefix}{max(count, 1)}"
    if len(last) > 253:
        return f"namePrefix is too long: the generated name {last[:40]!r}... would exceed 253 characters"
    if not _SUBDOMAIN.match(f"{prefix}1"):
        return (f"namePrefix {prefix!r} does not make valid node names: use lower case letters, digits, '-' and "
                "'.', starting with a letter or digit (e.g. \"pool-\")")
    return None


def qualified_name_error(key: object, what: str = "key") -> str | None:
    """IsQualifiedName: label keys and taint keys, `[prefix/]name`."""
    if not isinstance(key, str):
        return f"{what} must be a string, got {key!r}"
    prefix, slash, name = key.rpartition("/")
    if slash and not prefix:
        return f"{what} {key!r}: prefix part must be non-empty"
    if slash and subdomain_error(prefix):
        return f"{what} {key!r}: prefix part must be a lowercase RFC 1123 subdomain (e.g. 'example.com')"
    if not name:
        return f"{what} {key!r}: name part must be non-empty"
    if len(name) > 63:
        return f"{what} {key[:40]!r}...: name part must be no more than 63 characters"
    if "/" in prefix or not _QUALIFIED_NAME.match(name):
        return (f"{what} {key!r}: name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                "start and end with an alphanumeric character (e.g. 'MyName', 'my.name', or '123-abc'), with an "
                "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
    return None


def label_value_error(value: object, what: str = "value") -> str | None:
    """IsValidLabelValue: empty, or at most 63 characters of the qualified-name alphabet."""
    if not isinstance(value, str):
        return f"{what} must be a string, got {value!r}"
    if len(value) > 63:
        return f"{what} {value[:40]!r}... must be no more than 63 characters"
    if value and not _QUALIFIED_NAME.match(value):
        return (f"{what} {value!r}: a valid label value must be empty or consist of alphanumeric characters, '-', "
                "'_' or '.', and must start and end with an alphanumeric character")
    return None


def labels_error(labels: object, what: str = "labels") -> str | None:
    if not isinstance(labels, dict):
        return f"{what} must be a table of key = \"value\""
    for key, value in labels.items():
        error = qualified_name_error(key, "label key") or label_value_error(value, f"label {key!r} value")
        if error:
            return error
    return None


def unknown_name_error(kind: str, name: object, known: "set[str] | dict") -> str | None:
    """A reference to an object the scenario does not define, with the closest spelling."""
    if name in known:
        return None
    close = difflib.get_close_matches(str(name), sorted(known), n=1)
    if close:
        hint = f'; did you mean "{close[0]}"?'
    elif kind == "PriorityClass":
        hint = "; define it under [[priorityClasses]]"
    else:
        hint = ""
    return f"unknown {kind} {name!r}{hint}"


def parse_taint_spec(text: str) -> tuple[str, str, str | None, bool]:
    """kubectl taint's spec: "key=value:Effect", "key:Effect" or "key", with a trailing "-" meaning
    remove. Returns (key, value, effect or None, remove); raises ValueError with kubectl's wording."""
    if not isinstance(text, str):
        raise ValueError(f"a taint must be a string such as \"dedicated=db:NoSchedule\", got {text!r}")
    spec = text.strip()
    remove = spec.endswith("-")
    if remove:
        spec = spec[:-1]
    parts = spec.split(":")
    effect: str | None = None
    value = ""
    if len(parts) == 1:
        key = parts[0]
        if "=" in key and not remove:
            raise ValueError(f"invalid taint spec: {text!r}: a taint to add needs an effect, e.g. "
                             "\"dedicated=db:NoSchedule\"")
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            raise ValueError(f"invalid taint effect: {effect!r}, unsupported taint effect; use one of "
                             f"{', '.join(EFFECTS)}")
        kv = parts[0].split("=")
        if len(kv) > 2:
            raise ValueError(f"invalid taint spec: {text!r}")
        key = kv[0]
        value = kv[1] if len(kv) == 2 else ""
    else:
        raise ValueError(f"invalid taint spec: {text!r}; write \"key=value:Effect\", \"key:Effect\" or, to remove, "
                         "\"key:Effect-\" / \"key-\"")
    error = qualified_name_error(key, "taint key") or label_value_error(value, "taint value")
    if error:
        raise ValueError(f"invalid taint spec: {text!r}, {error}")
    if not remove and effect is None:
        raise ValueError(f"invalid taint spec: {text!r}: a taint to add needs an effect, e.g. "
                         "\"dedicated=db:NoSchedule\"")
    return key, value, effect, remove


def removal_spec(text: str) -> str:
    """The spec of an `untaint`: "key:Effect" and "key" remove, as "key:Effect-" and "key-" do."""
    text = text.strip()
    return text if text.endswith("-") else f"{text}-"


def taint_string(key: str, value: str, effect: str) -> str:
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def taint_text(value: object) -> str:
    """A taint as written in a file, a string "key=value:Effect" or Kubernetes' object shape
    { key, value, effect }, normalised to the string; raises ValueError."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"key", "value", "effect", "timeAdded"})
        if unknown:
            raise ValueError(f"unknown taint field(s) {', '.join(map(repr, unknown))}; a taint has key, value and "
                             "effect")
        key, val, effect = value.get("key"), value.get("value", ""), value.get("effect")
        if not isinstance(key, str) or not isinstance(val, str) or not isinstance(effect, str):
            raise ValueError("a taint { key, value, effect } needs string key and effect (value optional), e.g. "
                             "{ key = \"dedicated\", value = \"db\", effect = \"NoSchedule\" }")
        if effect not in EFFECTS:
            raise ValueError(f"invalid taint effect: {effect!r}, unsupported taint effect; use one of "
                             f"{', '.join(EFFECTS)}")
        error = qualified_name_error(key, "taint key") or label_value_error(val, "taint value")
        if error:
            raise ValueError(error)
        return taint_string(key, val, effect)
    if not isinstance(value, str):
        raise ValueError(f"a taint is \"key=value:Effect\" or {{ key, value, effect }}, got {value!r}")
    key, val, effect, remove = parse_taint_spec(value)
    if remove:
        raise ValueError(f"{value!r} removes a taint (kubectl's trailing '-'); here write the taint itself")
    assert effect is not None
    return taint_string(key, val, effect)


def replicas_error(value: object, what: str = "replicas") -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{what} must be a whole number, got {value!r}"
    if value < 0:
        return f"{what} must be greater than or equal to 0, got {value}"
    if value > MAX_REPLICAS:
        return f"{what} must be at most {MAX_REPLICAS} (the playground's limit), got {value}"
    return None


def grace_period_error(value: object, what: str = "gracePeriodSeconds") -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{what} must be a whole number of seconds, got {value!r}"
    if value < 0:
        return f"{what} must be greater than or equal to 0, got {value}"
    return None


def nesting_depth(data: object, limit: int = MAX_NESTING) -> int:
    """The depth of nested tables and arrays, counted without recursion (stops past `limit`)."""
    deepest = 0
    stack = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest
