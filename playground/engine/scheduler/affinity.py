"""spec.affinity (node, pod and pod anti-affinity) and spec.topologySpreadConstraints between the
scenario format and the engine's objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..objects import (LabelSelector, LabelSelectorRequirement, NodeSelectorRequirement, NodeSelectorTerm, PodAffinityTerm,
                       PreferredSchedulingTerm, TopologySpreadConstraint, WeightedPodAffinityTerm)

if TYPE_CHECKING:
    from ...scenario.schema import AffinitySpec, NodeSelectorTermSpec


def _term(spec: "NodeSelectorTermSpec") -> NodeSelectorTerm:
    return NodeSelectorTerm(
        tuple(NodeSelectorRequirement(r.key, r.operator, tuple(v.strip() for v in r.values)) for r in spec.matchExpressions),
        tuple(NodeSelectorRequirement(r.key, r.operator, tuple(r.values)) for r in spec.matchFields),
    )


def node_affinity_from_spec(
    affinity: "AffinitySpec | None",
) -> tuple[tuple[NodeSelectorTerm, ...] | None, tuple[PreferredSchedulingTerm, ...]]:
    """(required terms or None, preferred terms) of a pod template's affinity."""
    if affinity is None or affinity.nodeAffinity is None:
        return None, ()
    node = affinity.nodeAffinity
    required = None
    if node.requiredDuringSchedulingIgnoredDuringExecution is not None:
        required = tuple(_term(t) for t in node.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
    preferred = tuple(PreferredSchedulingTerm(p.weight, _term(p.preference))
                      for p in node.preferredDuringSchedulingIgnoredDuringExecution)
    return required, preferred


def _term_dict(term: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, reqs in (("matchExpressions", term.match_expressions), ("matchFields", term.match_fields)):
        if reqs:
            out[name] = [{"key": r.key, "operator": r.operator, **({"values": list(r.values)} if r.values else {})}
                         for r in reqs]
    return out


def node_affinity_to_spec(required: tuple[NodeSelectorTerm, ...] | None,
                          preferred: tuple[PreferredSchedulingTerm, ...]) -> dict[str, Any] | None:
    """The scenario-file form of a template's node affinity (None when it has none)."""
    node: dict[str, Any] = {}
    if required is not None:
        node["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [_term_dict(t) for t in required]}
    if preferred:
        node["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": p.weight, "preference": _term_dict(p.preference)} for p in preferred]
    return {"nodeAffinity": node} if node else None


# ---------------------------------------------------------------- pod affinity and topology spread

def _selector(spec) -> LabelSelector | None:
    if spec is None:
        return None
    return LabelSelector(tuple(sorted(spec.matchLabels.items())),
                         tuple(LabelSelectorRequirement(r.key, r.operator, tuple(r.values)) for r in spec.matchExpressions))


def _affinity_term(spec) -> PodAffinityTerm:
    return PodAffinityTerm(_selector(spec.labelSelector), spec.topologyKey, tuple(spec.namespaces))


def pod_affinity_from_spec(affinity: "AffinitySpec | None") -> dict[str, tuple]:
    """The PodTemplate fields of spec.affinity.podAffinity / podAntiAffinity."""
    out: dict[str, tuple] = {}
    if affinity is None:
        return out
    for name, spec in (("pod_affinity", affinity.podAffinity), ("pod_anti_affinity", affinity.podAntiAffinity)):
        if spec is None:
            continue
        out[f"required_{name}"] = tuple(_affinity_term(t) for t in spec.requiredDuringSchedulingIgnoredDuringExecution)
        out[f"preferred_{name}"] = tuple(WeightedPodAffinityTerm(t.weight, _affinity_term(t.podAffinityTerm))
                                         for t in spec.preferredDuringSchedulingIgnoredDuringExecution)
    return out


def spread_from_spec(specs) -> tuple[TopologySpreadConstraint, ...]:
    return tuple(TopologySpreadConstraint(
        c.maxSkew, c.topologyKey, c.whenUnsatisfiable, _selector(c.labelSelector),
        c.minDomains if c.minDomains is not None else 1, c.nodeAffinityPolicy or "Honor", c.nodeTaintsPolicy or "Ignore",
        tuple(c.matchLabelKeys)) for c in specs)


def _selector_dict(selector: LabelSelector) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if selector.match_labels:
        out["matchLabels"] = dict(selector.match_labels)
    if selector.match_expressions:
        out["matchExpressions"] = [{"key": r.key, "operator": r.operator, **({"values": list(r.values)} if r.values else {})}
                                   for r in selector.match_expressions]
    return out


def _term_spec(term: PodAffinityTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.selector is not None:
        out["labelSelector"] = _selector_dict(term.selector)
    if term.namespaces:
        out["namespaces"] = list(term.namespaces)
    out["topologyKey"] = term.topology_key
    return out


def pod_affinity_to_spec(template) -> dict[str, Any]:
    """The scenario-file form of a template's podAffinity / podAntiAffinity ({} when none)."""
    out: dict[str, Any] = {}
    for name, required, preferred in (
            ("podAffinity", template.required_pod_affinity, template.preferred_pod_affinity),
            ("podAntiAffinity", template.required_pod_anti_affinity, template.preferred_pod_anti_affinity)):
        spec: dict[str, Any] = {}
        if required:
            spec["requiredDuringSchedulingIgnoredDuringExecution"] = [_term_spec(t) for t in required]
        if preferred:
            spec["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w.weight, "podAffinityTerm": _term_spec(w.term)} for w in preferred]
        if spec:
            out[name] = spec
    return out


def spread_to_spec(constraints: tuple[TopologySpreadConstraint, ...]) -> list[dict[str, Any]]:
    out = []
    for c in constraints:
        spec: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                                "whenUnsatisfiable": c.when_unsatisfiable}
        if c.selector is not None:
            spec["labelSelector"] = _selector_dict(c.selector)
        if c.min_domains != 1:
            spec["minDomains"] = c.min_domains
        if c.node_affinity_policy != "Honor":
            spec["nodeAffinityPolicy"] = c.node_affinity_policy
        if c.node_taints_policy != "Ignore":
            spec["nodeTaintsPolicy"] = c.node_taints_policy
        if c.match_label_keys:
            spec["matchLabelKeys"] = list(c.match_label_keys)
        out.append(spec)
    return out
