"""The name, label and taint rules against Kubernetes' own: k8s.io/apimachinery (IsDNS1123Subdomain,
IsDNS1123Label, IsLabelKey, IsLabelValue, RegexError, MaxLenError in pkg/util/validation and
pkg/api/validate/content) and kubectl taint (k8s.io/kubectl pkg/cmd/taint: parseTaints, parseTaint,
validateTaintEffect). The expected texts are Kubernetes' messages, spacing included."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.engine.operations import Operation
from playground.engine.simulation import Simulation
from playground.scenario import load_scenario
from playground.scenario.validation import (dns1123_label_errors, dns1123_subdomain_errors, label_error,
                                            label_key_errors, label_value_errors, parse_taint_spec,
                                            qualified_name_error, subdomain_error)

ROOT = Path(__file__).resolve().parent.parent

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
KEY_NAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
         "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


# ---------------------------------------------------------------- apimachinery


def test_subdomain_lengths_and_pattern():
    assert dns1123_subdomain_errors("a" * 253) == []
    assert dns1123_subdomain_errors("a" * 254) == ["must be no more than 253 bytes"]
    assert dns1123_subdomain_errors("-" + "a" * 253) == ["must be no more than 253 bytes", SUBDOMAIN]
    assert dns1123_subdomain_errors("Bad_Name") == [SUBDOMAIN]
    assert dns1123_subdomain_errors("web.example.com") == []


def test_a_trailing_newline_is_not_part_of_a_valid_name():
    # Go's "^...$" ends at the end of the text; Python's re.match with "$" would accept "n-1\n"
    assert dns1123_subdomain_errors("n-1\n") == [SUBDOMAIN]
    assert dns1123_label_errors("ns\n") == [LABEL]
    assert label_value_errors("v\n") == [VALUE]


def test_label_rejects_dots_with_its_own_message_and_counts_bytes():
    assert dns1123_label_errors("a.b") == ["must not contain dots"]
    assert dns1123_label_errors("a" * 63) == []
    assert dns1123_label_errors("a" * 64) == ["must be no more than 63 bytes"]
    assert dns1123_label_errors("Bad NS") == [LABEL]
    # 32 two-byte characters are 64 bytes: too long as well as outside the alphabet
    assert label_value_errors("é" * 32) == ["must be no more than 63 bytes", VALUE]


def test_label_keys_as_IsLabelKey_reports_them():
    assert label_key_errors("example.com/MyName") == []
    assert label_key_errors("/x") == ["prefix part must be non-empty"]
    assert label_key_errors("x/") == ["name part must be non-empty", KEY_NAME]
    assert label_key_errors("Example.com/x") == [f"prefix part {SUBDOMAIN}"]
    assert label_key_errors("k" * 64) == ["name part must be no more than 63 bytes"]
    assert label_key_errors("a/b/c") == [
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
        "(e.g. 'example.com/MyName')"]


def test_label_values_may_be_empty():
    assert label_value_errors("") == []
    assert label_value_errors("v" * 63) == []
    assert label_value_errors("v" * 64) == ["must be no more than 63 bytes"]
    assert label_value_errors("[b]") == [VALUE]


def test_messages_name_the_value_and_quote_kubernetes():
    assert subdomain_error("N-2") == f"'N-2' is not a valid name: {SUBDOMAIN}"
    assert label_error("a.b") == "'a.b' is not a valid namespace: must not contain dots"
    assert label_error("db.primary", "StatefulSet name") == ("'db.primary' is not a valid StatefulSet name: must not "
                                                             "contain dots")
    assert qualified_name_error("bad key", "label key") == f"label key 'bad key': {KEY_NAME}"


# ---------------------------------------------------------------- kubectl taint: parsing


@pytest.mark.parametrize("spec, parsed", [
    ("dedicated=db:NoSchedule", ("dedicated", "db", "NoSchedule", False)),
    ("dedicated:NoExecute", ("dedicated", "", "NoExecute", False)),
    ("dedicated=:PreferNoSchedule", ("dedicated", "", "PreferNoSchedule", False)),
    ("dedicated:NoSchedule-", ("dedicated", "", "NoSchedule", True)),
    ("dedicated-", ("dedicated", "", None, True)),
    # kubectl keeps only key and effect of a taint to remove
    ("dedicated=db:NoSchedule-", ("dedicated", "db", "NoSchedule", True)),
    ("example.com/gpu=a100:NoSchedule", ("example.com/gpu", "a100", "NoSchedule", False)),
])
def test_taint_specs_kubectl_accepts(spec, parsed):
    assert parse_taint_spec(spec) == parsed


@pytest.mark.parametrize("spec, message", [
    # a taint to add needs an effect: kubectl's "invalid taint spec: <spec>"
    ("dedicated", "invalid taint spec: dedicated; a taint to add needs an effect, e.g. \"dedicated=db:NoSchedule\""),
    # "k=v" without effect: kubectl reads the whole of it as a key
    ("k=v", f"invalid taint spec: k=v, {KEY_NAME}; write \"key=value:Effect\" or \"key:Effect\" to add, "
            "\"key:Effect-\" or \"key-\" to remove"),
    ("k=v:Never", "invalid taint effect: Never, unsupported taint effect; use one of NoSchedule, PreferNoSchedule, "
                  "NoExecute"),
    ("k:", "invalid taint effect: , unsupported taint effect; use one of NoSchedule, PreferNoSchedule, NoExecute"),
    ("a=b=c:NoSchedule", "invalid taint spec: a=b=c:NoSchedule; write \"key=value:Effect\" or \"key:Effect\" to add, "
                         "\"key:Effect-\" or \"key-\" to remove"),
    (":NoSchedule", f"invalid taint spec: :NoSchedule, name part must be non-empty; {KEY_NAME}"),
    # the value is checked before the key, as parseTaint does
    ("bad key=[b]:NoSchedule", f"invalid taint spec: bad key=[b]:NoSchedule, {VALUE}"),
    ("k=" + "v" * 64 + ":NoSchedule", f"invalid taint spec: k={'v' * 64}:NoSchedule, must be no more than 63 bytes"),
    # a removal is parsed without its "-"
    ("bad key:NoSchedule-", f"invalid taint spec: bad key:NoSchedule, {KEY_NAME}"),
])
def test_taint_specs_kubectl_refuses_with_its_message(spec, message):
    with pytest.raises(ValueError) as refused:
        parse_taint_spec(spec)
    assert str(refused.value) == message


# ---------------------------------------------------------------- kubectl taint: what it prints


def _sim() -> Simulation:
    return Simulation(load_scenario(ROOT / "tests" / "tui" / "scenarios" / "small.toml"))


def test_kubectl_taint_outputs():
    sim = _sim()
    taints = lambda: sim.store.nodes["a-1"].taint_strings()  # noqa: E731
    assert sim.apply(Operation("taint", node="a-1", taint="k=v:NoSchedule")).message == "node/a-1 tainted"
    # the same taint again is refused too: checkIfTaintsAlreadyExists compares key and effect only
    same = sim.apply(Operation("taint", node="a-1", taint="k=v:NoSchedule"))
    assert not same.ok and same.message == ("node a-1 already has k taint(s) with same effect(s) and --overwrite is "
                                            "false")
    # with --overwrite kubectl prints "modified", whether the taint was there or not, changed or not
    assert sim.apply(Operation("taint", node="a-1", taint="k=w:NoSchedule", overwrite=True)).message == \
        "node/a-1 modified"
    assert sim.apply(Operation("taint", node="a-1", taint="k=w:NoSchedule", overwrite=True)).message == \
        "node/a-1 modified"
    assert sim.apply(Operation("taint", node="a-1", taint="new:NoExecute", overwrite=True)).message == \
        "node/a-1 modified"
    assert "k=w:NoSchedule" in taints() and "new:NoExecute" in taints()
    assert sim.apply(Operation("taint", node="a-1", taint="k:NoSchedule-")).message == "node/a-1 untainted"
    assert sim.apply(Operation("untaint", node="a-1", taint="new")).message == "node/a-1 untainted"
    assert "k=w:NoSchedule" not in taints() and "new:NoExecute" not in taints()


def test_removing_a_missing_taint_names_key_and_effect():
    sim = _sim()
    missing = sim.apply(Operation("taint", node="a-1", taint="k:NoExecute-"))
    assert not missing.ok and missing.message == 'taint "k:NoExecute" not found'
    assert sim.apply(Operation("taint", node="a-1", taint="k:NoSchedule")).ok
    other_effect = sim.apply(Operation("untaint", node="a-1", taint="k:NoExecute"))
    assert not other_effect.ok and other_effect.message == 'taint "k:NoExecute" not found'
    assert "k:NoSchedule" in sim.store.nodes["a-1"].taint_strings()
