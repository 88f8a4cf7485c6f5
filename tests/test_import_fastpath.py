"""The fast paths of a large import against the plain ways: pydantic's validation of a pod, tomli-w's
TOML, and converting every pod spec afresh instead of once per distinct spec."""

from __future__ import annotations

import tomllib

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from playground.manifests import import_texts
from playground.manifests.fastpath import SIMPLE_KEYS, pods_toml, simple_pod
from playground.scenario.schema import PodSpec

text = st.text(alphabet=st.sampled_from("abz019-._/ AZ\"\\é\n"), max_size=12)
names = st.one_of(st.from_regex(r"[a-z0-9]([-a-z0-9.]{0,10}[a-z0-9])?", fullmatch=True), text)
entries = st.fixed_dictionaries({"name": names}, optional={
    "namespace": st.one_of(st.from_regex(r"[a-z][-a-z0-9]{0,8}", fullmatch=True), text),
    "nodeName": st.one_of(names, st.integers()),
    "owner": st.one_of(st.from_regex(r"(Deployment|DaemonSet|StatefulSet|Job)/[a-z][-a-z0-9.]{0,6}", fullmatch=True),
                       text),
    "mirror": st.one_of(st.booleans(), st.integers(0, 1)),
})


@settings(max_examples=300, deadline=None)
@given(entries)
def test_a_simple_pod_is_what_pydantic_makes_of_it(entry):
    try:
        reference = PodSpec.model_validate(entry)
    except ValidationError:
        reference = None
    fast = simple_pod(entry, {})
    if reference is None:
        assert fast is None  # pydantic then says what is wrong
    elif fast is not None:  # (the fast path may always decline)
        assert fast.model_dump() == reference.model_dump()
        assert fast.model_fields_set == reference.model_fields_set


values = st.recursive(st.one_of(st.booleans(), st.integers(-10**12, 10**12), text),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(text, inner, max_size=3)), max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(text, values, min_size=1, max_size=4), max_size=4))
def test_pods_toml_reads_back_as_tomli_w_writes_it(pods):
    mine = tomllib.loads(pods_toml(pods))
    reference = tomllib.loads(tomli_w.dumps({"pods": pods})) if pods else {}
    assert mine == reference


def _pod_yaml(i: int, cpu: str, toleration: bool, owner: bool) -> str:
    owner_ref = "  ownerReferences: [{kind: ReplicaSet, name: web-abc, controller: true}]\n" if owner else ""
    tol = "  tolerations: [{key: k, operator: Exists}]\n" if toleration else ""
    return (f"kind: Pod\nmetadata:\n  name: web-abc-{i}\n  labels: {{app: web, pod-template-hash: abc}}\n{owner_ref}"
            f"spec:\n  nodeName: n\n  containers: [{{name: c, resources: {{requests: {{cpu: {cpu}}}}}}}]\n{tol}"
            f"  volumes: [{{name: tok-{i}, projected: {{}}}}]\n")


HEAD = ("kind: Node\nmetadata: {name: n}\nstatus: {capacity: {cpu: '64', memory: 64Gi}}\n---\n"
        "kind: Deployment\napiVersion: apps/v1\nmetadata: {name: web}\nspec:\n  replicas: 3\n"
        "  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, resources: "
        "{requests: {cpu: 100m}}}]}\n")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["100m", "200m", "0.1"]), st.booleans(), st.booleans()),
                min_size=1, max_size=12))
def test_pods_converted_once_per_distinct_spec_equal_pods_converted_alone(pods):
    together = import_texts([("d.yaml", HEAD + "".join(f"---\n{_pod_yaml(i, *p)}" for i, p in enumerate(pods)))])
    alone = [import_texts([("d.yaml", HEAD + f"---\n{_pod_yaml(i, *p)}")]) for i, p in enumerate(pods)]
    # (in the scenario, pods that say only who they are go to [[ownedPods]] lists, after the others)
    assert {p.name: p.model_dump() for p in together.scenario.pod_specs()} == \
        {spec.name: spec.model_dump() for spec in (a.scenario.pod_specs()[0] for a in alone)}
    counts = sum((a.report.counts for a in alone), start=type(together.report.counts)())
    # the Deployment's template is counted once per import; the pods' counts add up
    assert {k: v for k, v in together.report.counts.items() if "Pod volume" in k} == \
        {k: v for k, v in counts.items() if "Pod volume" in k}
    assert all(SIMPLE_KEYS.issuperset(p) for p in together.pods if "requests" not in p and "tolerations" not in p)
