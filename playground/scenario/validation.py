"""The one set of rules every name, taint and count is checked against, whether it comes from a
scenario file (the schema and its cross-checks) or from a live operation (keys, dialogs, the palette,
the Python API: `Operations.apply`).

The rules and their messages are Kubernetes' own (k8s.io/apimachinery pkg/util/validation and
pkg/api/validate/content): DNS-1123 subdomains for object names, DNS-1123 labels for namespaces and
StatefulSet names, qualified names for label, taint and toleration keys, label values; and kubectl
taint's spec syntax and behaviour (k8s.io/kubectl pkg/cmd/taint, taint.go and utils.go). Every check
returns an error message, or None when the value is fine, so callers decide how to report it.
"""

from __future__ import annotations

import difflib
import re

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

# Limits of the playground (documented in README, "Limits").
MAX_REPLICAS = 100_000  # per Deployment, StatefulSet or `scale` operation
MAX_NODE_POOL = 100_000  # nodes per [[nodePools]] entry
MAX_TIME_MS = 7 * 24 * 3_600_000  # [scenario] duration, every `at`, and the clock of a session that saves
# A scenario file: what `playground import` writes for a production cluster (150,000 pods: 21 MiB,
# read and validated in ~13 s CPU and ~650 MiB of memory) with room to spare, and no more, since a
# hostile file costs memory in proportion (about 30 times its size while it is parsed).
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_NESTING = 32  # arrays and tables inside one another

# The formats and messages of k8s.io/apimachinery (pkg/util/validation/validation.go and
# pkg/api/validate/content: IsDNS1123Label, IsDNS1123Subdomain, IsLabelKey, IsLabelValue). Lengths are
# counted in bytes, as Go's len() does, and a pattern must match the whole value (Go's "^...$" has no
# trailing-newline exception, so Python's fullmatch, not match).
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_DNS1123_LABEL = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN = re.compile(_DNS1123_SUBDOMAIN_FMT)
DNS1123_SUBDOMAIN = _DNS1123_SUBDOMAIN  # for fast paths that test many names
_LABEL_KEY = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE = re.compile(_LABEL_VALUE_FMT)
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                      "start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                          "'.', and must start and end with an alphanumeric character")
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    """Kubernetes' RegexError text, spacing included."""
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def _size(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def dns1123_subdomain_errors(value: str) -> list[str]:
    """IsDNS1123Subdomain: every message Kubernetes gives, none when the value is valid."""
    errors = [_max_len_error(253)] if _size(value) > 253 else []
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        errors.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def dns1123_label_errors(value: str) -> list[str]:
    """IsDNS1123Label."""
    errors = [_max_len_error(63)] if _size(value) > 63 else []
    if not _DNS1123_LABEL.fullmatch(value):
        if _DNS1123_SUBDOMAIN.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(_regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def label_key_errors(value: str) -> list[str]:
    """IsLabelKey (IsQualifiedName): `[prefix/]name`, for label, taint and toleration keys."""
    parts = value.split("/")
    if len(parts) > 2:
        return ["a valid label key " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    errors = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend(f"prefix part {error}" for error in dns1123_subdomain_errors(prefix))
    if not name:
        errors.append("name part must be non-empty")
    elif _size(name) > 63:
        errors.append(f"name part {_max_len_error(63)}")
    if not _LABEL_KEY.fullmatch(name):
        errors.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errors


def label_value_errors(value: str) -> list[str]:
    """IsLabelValue: empty, or at most 63 bytes of the label-key alphabet."""
    errors = [_max_len_error(63)] if _size(value) > 63 else []
    if not _LABEL_VALUE.fullmatch(value):
        errors.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def _shown(value: str) -> str:
    return f"{value[:40]!r}..." if len(value) > 40 else repr(value)


def _name_error(value: object, what: str, errors_of) -> str | None:
    if not isinstance(value, str):
        return f"{what} must be a string, got {value!r}"
    if not value:
        return f"{what} must not be empty"
    errors = errors_of(value)
    return f"{_shown(value)} is not a valid {what}: {'; '.join(errors)}" if errors else None


def subdomain_error(value: object, what: str = "name") -> str | None:
    """Object names that are DNS-1123 subdomains: nodes, pods, Deployments, DaemonSets, PDBs, priority
    classes (ValidateNodeName, ValidatePodName, ValidateDeploymentName, ... = NameIsDNSSubdomain)."""
    return _name_error(value, what, dns1123_subdomain_errors)


def label_error(value: object, what: str = "namespace") -> str | None:
    """DNS-1123 labels: namespaces (ValidateNamespaceName) and StatefulSet names
    (ValidateStatefulSetName = NameIsDNSLabel: a StatefulSet's name becomes its pods' hostnames)."""
    return _name_error(value, what, dns1123_label_errors)


def prefix_error(prefix: object, count: int) -> str | None:
    """A node pool's namePrefix: every generated name (prefix + 1 .. count) must be a valid node name."""
    if not isinstance(prefix, str):
        return f"namePrefix must be a string, got {prefix!r}"
    if not prefix:
        return "namePrefix must not be empty; e.g. \"pool-\""
    last = f"{prefix}{max(count, 1)}"
    if _size(last) > 253:
        return (f"namePrefix is too long: the generated name {_shown(last)} would exceed 253 bytes "
                f"({_max_len_error(253)})")
    errors = dns1123_subdomain_errors(f"{prefix}1")
    if errors:
        return (f"namePrefix {prefix!r} does not make valid node names ({prefix + '1'!r}): {'; '.join(errors)}; "
                "e.g. \"pool-\"")
    return None


def qualified_name_error(key: object, what: str = "key") -> str | None:
    """IsQualifiedName: label keys, taint keys and toleration keys, `[prefix/]name`."""
    if not isinstance(key, str):
        return f"{what} must be a string, got {key!r}"
    errors = label_key_errors(key)
    return f"{what} {_shown(key)}: {'; '.join(errors)}" if errors else None


def label_value_error(value: object, what: str = "value") -> str | None:
    """IsValidLabelValue: label values, taint values, toleration values (operator Equal)."""
    if not isinstance(value, str):
        return f"{what} must be a string, got {value!r}"
    errors = label_value_errors(value)
    return f"{what} {_shown(value)}: {'; '.join(errors)}" if errors else None


_VALID_LABELS: set[tuple[str, str]] = set()  # pairs found valid: 5,000 nodes repeat a few dozen


def labels_error(labels: object, what: str = "labels") -> str | None:
    if not isinstance(labels, dict):
        return f"{what} must be a table of key = \"value\""
    for key, value in labels.items():
        if type(value) is str and (key, value) in _VALID_LABELS:  # (a list value is not hashable)
            continue
        error = qualified_name_error(key, "label key") or label_value_error(value, f"label {key!r} value")
        if error:
            return error
        if len(_VALID_LABELS) >= 65536:
            _VALID_LABELS.clear()
        _VALID_LABELS.add((key, value))
    return None


def unknown_name_error(kind: str, name: object, known: "set[str] | dict", suggest: bool = True) -> str | None:
    """A reference to an object the scenario does not define, with the closest spelling (unless not
    `suggest`: with 5,000 nodes, finding it takes ~0.2 s)."""
    if name in known:
        return None
    close = difflib.get_close_matches(str(name), sorted(known), n=1) if suggest else None
    if close:
        hint = f'; did you mean "{close[0]}"?'
    elif kind == "PriorityClass":
        hint = "; define it under [[priorityClasses]]"
    elif kind == "node shape":
        hint = "; define it under [[nodeShapes]]"
    else:
        hint = ""
    return f"unknown {kind} {name!r}{hint}"


_SPEC_HINT = ('write "key=value:Effect" or "key:Effect" to add, "key:Effect-" or "key-" to remove')


def parse_taint_spec(text: str) -> tuple[str, str, str | None, bool]:
    """kubectl taint's spec (k8s.io/kubectl pkg/cmd/taint/utils.go, parseTaints): "key=value:Effect" or
    "key:Effect" adds; a trailing "-" removes ("key:Effect-" or "key-"; a value given there is ignored).
    Returns (key, value, effect or None, remove); raises ValueError with kubectl's message, then a hint."""
    if not isinstance(text, str):
        raise ValueError(f"a taint must be a string such as \"dedicated=db:NoSchedule\", got {text!r}")
    spec = text.strip()  # kubectl gets shell words; the playground forgives surrounding blanks
    remove = spec.endswith("-")
    key, value, effect = _parse_taint(spec[:-1] if remove else spec)
    if not remove and effect is None:
        raise ValueError(f"invalid taint spec: {spec}; a taint to add needs an effect, e.g. "
                         "\"dedicated=db:NoSchedule\"")
    return key, value, effect, remove


def _parse_taint(spec: str) -> tuple[str, str, str | None]:
    """kubectl's parseTaint: "key=value:effect", "key:effect" or "key"; the value is checked before the key."""
    parts = spec.split(":")
    value, effect = "", None
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            raise ValueError(f"invalid taint effect: {effect}, unsupported taint effect; use one of "
                             f"{', '.join(EFFECTS)}")
        key_value = parts[0].split("=")
        if len(key_value) > 2:
            raise ValueError(f"invalid taint spec: {spec}; {_SPEC_HINT}")
        key = key_value[0]
        if len(key_value) == 2:
            value = key_value[1]
            errors = label_value_errors(value)
            if errors:
                raise ValueError(f"invalid taint spec: {spec}, {'; '.join(errors)}")
    else:
        raise ValueError(f"invalid taint spec: {spec}; {_SPEC_HINT}")
    errors = label_key_errors(key)
    if errors:
        hint = f"; {_SPEC_HINT}" if len(parts) == 1 and "=" in key else ""  # "k=v": the effect is missing
        raise ValueError(f"invalid taint spec: {spec}, {'; '.join(errors)}{hint}")
    return key, value, effect


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
        # a Node's spec.taints as the API server validates them (pkg/apis/core/validation, validateNodeTaints:
        # key, then value, then effect)
        error = qualified_name_error(key, "taint key") or label_value_error(val, "taint value")
        if error:
            raise ValueError(error)
        if effect not in EFFECTS:
            raise ValueError(f"effect: Unsupported value: \"{effect}\": supported values: "
                             + ", ".join(f'"{e}"' for e in EFFECTS))
        return taint_string(key, val, effect)
    if not isinstance(value, str):
        raise ValueError(f"a taint is \"key=value:Effect\" or {{ key, value, effect }}, got {value!r}")
    key, val, effect, remove = parse_taint_spec(value)
    if remove:
        raise ValueError(f"{value!r} removes a taint (kubectl's trailing '-'); here write the taint itself")
    assert effect is not None
    return taint_string(key, val, effect)


def unique_taints_error(taints: list[str]) -> str | None:
    """A Node's taints must differ by key and effect (pkg/apis/core/validation, validateNodeTaints)."""
    seen: set[tuple[str, str | None]] = set()
    for text in taints:
        key, _value, effect, _remove = parse_taint_spec(text)
        if (key, effect) in seen:
            return f"taint {text!r}: Duplicate value: taints must be unique by key and effect pair"
        seen.add((key, effect))
    return None


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
