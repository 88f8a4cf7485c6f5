"""spec.affinity.nodeAffinity between the scenario format and the engine's objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..objects import NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm

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
