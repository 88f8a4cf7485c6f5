"""The rollout operations: what `kubectl rollout restart|undo|pause|resume`, an edit of the pod
template (`kubectl apply` / `kubectl set`) and a patch of spec.strategy do to a Deployment.

Each one changes the Deployment's spec only (bumping metadata.generation); the deployment
controller does the rest. The answers use kubectl's words (kubectl/pkg/cmd/rollout and
polymorphichelpers: objectrestarter.go, objectpauser.go, objectresumer.go, rollback.go).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Callable

from .objects import RECREATE, ROLLING_UPDATE, Deployment, PodTemplate
from .operations import Operation, OperationInfo, OperationResult

if TYPE_CHECKING:
    from .operations import Operations

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"

ROLLOUT_INFO = {
    info.name: info
    for info in (
        OperationInfo("rollout", "Roll out", "deployment",
                      "Change the pod template (a new ReplicaSet and a rollout); with no change, kubectl rollout restart."),
        OperationInfo("rollout-undo", "Undo rollout", "deployment",
                      "Go back to the previous revision's pod template (kubectl rollout undo)."),
        OperationInfo("pause-rollout", "Pause rollout", "deployment",
                      "Stop the rollout where it is (kubectl rollout pause); scaling still works."),
        OperationInfo("resume-rollout", "Resume rollout", "deployment", "Continue a paused rollout (kubectl rollout resume)."),
        OperationInfo("set-strategy", "Edit strategy", "deployment",
                      "Change spec.strategy: RollingUpdate with maxSurge / maxUnavailable, or Recreate (kubectl patch)."),
    )
}


def rfc3339(ms: int) -> str:
    """The virtual clock as kubectl writes time.Now() (the simulation starts at the Unix epoch)."""
    return (datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%SZ")


def merge_pod_spec(template: PodTemplate, changes: dict) -> PodTemplate:
    """The template with the given pod fields (scenario keys) changed; maps are merged key by key,
    as a strategic merge patch merges them, lists and values replaced."""
    from ..scenario.schema import PodSpecFields
    from .simulation import spec_from_template, template_from_spec

    spec = spec_from_template(template)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(spec.get(key), dict):
            spec[key] = {**spec[key], **value}
        else:
            spec[key] = value
    if "priority" in changes and "priorityClassName" not in changes:
        spec.pop("priorityClassName", None)
    if "priorityClassName" in changes and "priority" not in changes:
        spec.pop("priority", None)
    new = template_from_spec(PodSpecFields.model_validate(spec))
    new.annotations = dict(template.annotations)
    return new


def apply_template(sim, d: Deployment, template: PodTemplate) -> bool:
    """Set the pod template; False when it is what the Deployment already has."""
    from .workloads import template_hash

    if template_hash(template) == template_hash(d.template):
        return False
    d.template = template
    sim.workloads.spec_updated(d)
    return True


def rollout_handlers(ops: "Operations") -> dict[str, Callable[[Operation], OperationResult]]:
    sim = ops.sim

    def deployment(op: Operation) -> Deployment | None:
        return sim.store.deployments.get(op.deployment or "")

    def refuse(op: Operation, message: str) -> OperationResult:
        return ops._refuse(op, message, f"Deployment/{op.namespace}/{op.deployment}")

    def with_deployment(action: Callable[[Operation, Deployment], OperationResult]):
        def handler(op: Operation) -> OperationResult:
            d = deployment(op)
            if d is None:
                return refuse(op, f'deployments.apps "{op.deployment}" not found')
            return action(op, d)
        return handler

    def rollout(op: Operation, d: Deployment) -> OperationResult:
        if op.pod_spec:
            try:
                template = merge_pod_spec(d.template, op.pod_spec)
            except ValueError as exc:
                return refuse(op, f"invalid pod template: {exc}")
            if not apply_template(sim, d, template):
                return OperationResult(True, f"deployment.apps/{d.name} unchanged")
            return OperationResult(True, f"deployment.apps/{d.name} configured")
        if d.paused:
            return refuse(op, "can't restart paused deployment (run rollout resume first)")
        template = replace(d.template, annotations={**d.template.annotations, RESTARTED_AT: rfc3339(sim.clock.now)})
        apply_template(sim, d, template)
        return OperationResult(True, f"deployment.apps/{d.name} restarted")

    def undo(op: Operation, d: Deployment) -> OperationResult:
        from .deployment import deployment_template
        from .workloads import template_hash

        if d.paused:
            return refuse(op, "you cannot rollback a paused deployment; resume it first with "
                              "'kubectl rollout resume' and try again")
        rss = sim.workloads.replicasets_of(d.name)
        revisions = sorted((rs.revision for rs in rss), reverse=True)
        if len(revisions) < 2:
            return refuse(op, f'no rollout history found for deployment "{d.name}"')
        previous = next(rs for rs in rss if rs.revision == revisions[1])
        template = deployment_template(previous.template)
        if template_hash(template) == template_hash(d.template):
            return OperationResult(True, f"deployment.apps/{d.name} skipped rollback (current template already "
                                         f"matches revision {previous.revision})")
        apply_template(sim, d, template)
        return OperationResult(True, f"deployment.apps/{d.name} rolled back")

    def set_paused(op: Operation, d: Deployment, paused: bool) -> OperationResult:
        """kubectl rollout pause / resume: spec.paused, a new generation."""
        if d.paused == paused:
            return refuse(op, f'deployments.apps "{d.name}" is {"already" if paused else "not"} paused')
        d.paused = paused
        sim.workloads.spec_updated(d)
        return OperationResult(True, f"deployment.apps/{d.name} {'paused' if paused else 'resumed'}")

    def set_strategy(op: Operation, d: Deployment) -> OperationResult:
        from ..scenario.schema import DeploymentStrategySpec

        try:
            spec = DeploymentStrategySpec.model_validate(op.strategy or {})
        except ValueError as exc:
            return refuse(op, f"invalid strategy: {exc}")
        rolling = spec.rollingUpdate
        new = (spec.type,
               (rolling.maxSurge if rolling else "25%") if spec.type == ROLLING_UPDATE else 0,
               (rolling.maxUnavailable if rolling else "25%") if spec.type == ROLLING_UPDATE else 0)
        if new == (d.strategy, d.max_surge, d.max_unavailable):
            return OperationResult(True, f"deployment.apps/{d.name} patched (no change)")
        d.strategy, d.max_surge, d.max_unavailable = new
        sim.workloads.spec_updated(d)
        return OperationResult(True, f"deployment.apps/{d.name} patched")

    return {
        "rollout": with_deployment(rollout),
        "rollout-undo": with_deployment(undo),
        "pause-rollout": with_deployment(lambda op, d: set_paused(op, d, True)),
        "resume-rollout": with_deployment(lambda op, d: set_paused(op, d, False)),
        "set-strategy": with_deployment(set_strategy),
    }


def strategy_text(d: Deployment) -> str:
    """kubectl describe's StrategyType / RollingUpdateStrategy line."""
    if d.strategy == RECREATE:
        return "Recreate"
    return f"RollingUpdate {d.max_unavailable} max unavailable, {d.max_surge} max surge"
