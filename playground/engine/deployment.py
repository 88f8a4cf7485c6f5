"""The deployment controller (pkg/controller/deployment): ReplicaSets per pod template, rollouts.

Followed from the Kubernetes source:
- deployment_controller.go syncDeployment: paused -> sync (scale only); a scaling event (an active
  ReplicaSet's desired-replicas annotation differs from spec.replicas) -> sync; otherwise
  rolloutRecreate or rolloutRolling. checkPausedConditions first.
- rolling.go: reconcileNewReplicaSet, then reconcileOldReplicaSets (cleanupUnhealthyReplicas, then
  scaleDownOldReplicaSetsForRollingUpdate); cleanup only once the rollout is complete.
- recreate.go: scale every old ReplicaSet to 0, wait until no old pod runs, then create/scale the new.
- sync.go: getNewReplicaSet (revision = max old revision + 1, annotations, NewReplicaSetCreated /
  FoundNewReplicaSet), scale (proportional scaling), scaleReplicaSet's ScalingReplicaSet event
  ("Scaled up replica set web-5d4f8 from 0 to 1"), cleanupDeployment (revisionHistoryLimit, oldest
  revision first, only ReplicaSets with no replicas), calculateStatus.
- progress.go: syncRolloutStatus (NewReplicaSetAvailable, ReplicaSetUpdated, ProgressDeadlineExceeded)
  and requeueStuckDeployment, which here is a clock timer at lastUpdateTime + deadline + 1 s.
- util/deployment_util.go: ResolveFenceposts, MaxSurge, MaxUnavailable, NewRSNewReplicas,
  GetProportion / getReplicaSetFraction, IsSaturated, DeploymentComplete / Progressing / TimedOut.

The ReplicaSet controller (pod creation and deletion) lives in workloads.py; both run in the
workloads phase, and within one instant they answer each other until nothing changes, as their
informers would within milliseconds.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .clock import PHASE_WORKLOADS
from .objects import (
    FALSE,
    POD_TEMPLATE_HASH_LABEL,
    RECREATE,
    ROLLING_UPDATE,
    TRUE,
    UNKNOWN,
    Deployment,
    DeploymentCondition,
    PodTemplate,
    ReplicaSet,
)

if TYPE_CHECKING:
    from .simulation import Simulation
    from .workloads import WorkloadControllers

SOURCE = "deployment-controller"
PROGRESSING, AVAILABLE = "Progressing", "Available"
# Progressing reasons (util/deployment_util.go)
NEW_RS_CREATED = "NewReplicaSetCreated"
FOUND_NEW_RS = "FoundNewReplicaSet"
RS_UPDATED = "ReplicaSetUpdated"
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
# Available reasons
MIN_AVAILABLE = "MinimumReplicasAvailable"
MIN_UNAVAILABLE = "MinimumReplicasUnavailable"


# ------------------------------------------------------------------ arithmetic (util/deployment_util.go)


def scaled_value(value: int | str, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: a count as is, a percentage of total rounded up or down."""
    if isinstance(value, int):
        return value
    percent = int(value.strip().rstrip("%"))
    exact = percent * total / 100
    return math.ceil(exact) if round_up else math.floor(exact)


@functools.lru_cache(maxsize=1024)  # pure, and every sync asks it with the same few arguments
def resolve_fenceposts(max_surge: int | str, max_unavailable: int | str, desired: int) -> tuple[int, int]:
    """ResolveFenceposts: surge rounds up, unavailable down; both 0 -> unavailable 1, on the theory
    that surge might not work due to quota."""
    surge = scaled_value(max_surge, desired, True)
    unavailable = scaled_value(max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d: Deployment) -> int:
    if d.strategy != ROLLING_UPDATE:
        return 0
    return resolve_fenceposts(d.max_surge, d.max_unavailable, d.replicas)[0]


def max_unavailable(d: Deployment) -> int:
    if d.strategy != ROLLING_UPDATE or d.replicas == 0:
        return 0
    return min(resolve_fenceposts(d.max_surge, d.max_unavailable, d.replicas)[1], d.replicas)


def replica_count(rss: list[ReplicaSet]) -> int:
    """GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    return sum(rs.replicas for rs in rss)


def actual_replica_count(rss: list[ReplicaSet]) -> int:
    return sum(rs.status_replicas for rs in rss)


def ready_replica_count(rss: list[ReplicaSet]) -> int:
    return sum(rs.ready_replicas for rs in rss)


def available_replica_count(rss: list[ReplicaSet]) -> int:
    return sum(rs.available_replicas for rs in rss)


def new_rs_new_replicas(d: Deployment, all_rss: list[ReplicaSet], new_rs: ReplicaSet) -> int:
    """NewRSNewReplicas: how far the new ReplicaSet may grow now."""
    if d.strategy == RECREATE:
        return d.replicas
    surge = scaled_value(d.max_surge, d.replicas, True)
    current = replica_count(all_rss)
    max_total = d.replicas + surge
    if current >= max_total:
        return new_rs.replicas
    return new_rs.replicas + min(max_total - current, d.replicas - new_rs.replicas)


def replica_set_fraction(rs: ReplicaSet, d: Deployment) -> int:
    """getReplicaSetFraction: this ReplicaSet's share of a resize, from its max-replicas annotation."""
    if d.replicas == 0:
        return -rs.replicas
    deployment_max = d.replicas + max_surge(d)
    before = rs.max_replicas or 0
    if before == 0:
        before = d.status_replicas or deployment_max
    exact = rs.replicas * deployment_max / before
    return _round_half_away(exact) - rs.replicas


def _round_half_away(value: float) -> int:
    """integer.RoundToInt32."""
    return int(value - 0.5) if value < 0 else int(value + 0.5)


def get_proportion(rs: ReplicaSet | None, d: Deployment, to_add: int, added: int) -> int:
    """GetProportion: never more than is left to add (or remove)."""
    if rs is None or rs.replicas == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = replica_set_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def is_saturated(d: Deployment, rs: ReplicaSet | None) -> bool:
    return (rs is not None and rs.desired_replicas == d.replicas and rs.replicas == d.replicas
            and rs.available_replicas == d.replicas)


def by_creation(rss: list[ReplicaSet]) -> list[ReplicaSet]:
    """controller.ReplicaSetsByCreationTimestamp: oldest first, then by name."""
    if len(rss) < 2:
        return list(rss)
    return sorted(rss, key=lambda rs: (rs.creation_time, rs.name))


@dataclass(slots=True)
class DeploymentStatus:
    observed_generation: int = 0
    replicas: int = 0
    updated_replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    unavailable_replicas: int = 0
    conditions: dict[str, DeploymentCondition] = field(default_factory=dict)


def status_of(d: Deployment) -> DeploymentStatus:
    return DeploymentStatus(d.observed_generation, d.status_replicas, d.updated_replicas, d.ready_replicas,
                            d.available_replicas, d.unavailable_replicas, dict(d.conditions))


def deployment_complete(d: Deployment, s: DeploymentStatus) -> bool:
    return (s.updated_replicas == d.replicas and s.replicas == d.replicas and s.available_replicas == d.replicas
            and s.observed_generation >= d.generation)


def deployment_progressing(d: Deployment, s: DeploymentStatus) -> bool:
    """Any sign of progress against the stored status: more updated, ready or available replicas,
    or fewer old ones."""
    old_old = d.status_replicas - d.updated_replicas
    new_old = s.replicas - s.updated_replicas
    return (s.updated_replicas > d.updated_replicas or new_old < old_old
            or s.ready_replicas > d.ready_replicas or s.available_replicas > d.available_replicas)



def replica_set_template(template: PodTemplate, rs_hash: str) -> PodTemplate:
    """The new ReplicaSet's template: the Deployment's, its labels cloned with pod-template-hash added
    (labelsutil.CloneAndAddLabel), so its pods carry the label without writing to a shared dict."""
    return replace(template, labels={**template.labels, POD_TEMPLATE_HASH_LABEL: rs_hash})


def deployment_template(rs_template: PodTemplate) -> PodTemplate:
    """A ReplicaSet's template as a Deployment's (rollback's setFromReplicaSetTemplate): without the
    pod-template-hash label."""
    labels = {k: v for k, v in rs_template.labels.items() if k != POD_TEMPLATE_HASH_LABEL}
    return replace(rs_template, labels=labels)


def has_progress_deadline(d: Deployment) -> bool:
    return d.progress_deadline_seconds is not None


def deployment_timed_out(d: Deployment, s: DeploymentStatus, now: int) -> bool:
    if not has_progress_deadline(d):
        return False
    cond = s.conditions.get(PROGRESSING)
    if cond is None or cond.reason == NEW_RS_AVAILABLE:
        return False
    if cond.reason == TIMED_OUT:
        return True
    return cond.last_update_time + d.progress_deadline_seconds * 1000 < now


def new_condition(ctype: str, status: str, reason: str, message: str, now: int) -> DeploymentCondition:
    return DeploymentCondition(ctype, status, reason, message, now, now)


def set_condition(conditions: dict[str, DeploymentCondition], cond: DeploymentCondition) -> None:
    """SetDeploymentCondition: nothing changes for the same status and reason; the transition time
    stays while the status does."""
    current = conditions.get(cond.type)
    if current is not None and current.status == cond.status and current.reason == cond.reason:
        return
    if current is not None and current.status == cond.status:
        cond.last_transition_time = current.last_transition_time
    conditions.pop(cond.type, None)
    conditions[cond.type] = cond


def rollout_status(d: Deployment) -> tuple[str, bool]:
    """kubectl rollout status's words (polymorphichelpers/rollout_status.go), and whether it is done."""
    if d.generation > d.observed_generation:
        return "Waiting for deployment spec update to be observed...", False
    cond = d.conditions.get(PROGRESSING)
    if cond is not None and cond.reason == TIMED_OUT:
        return f'error: deployment "{d.name}" exceeded its progress deadline', False
    if d.updated_replicas < d.replicas:
        return (f'Waiting for deployment "{d.name}" rollout to finish: {d.updated_replicas} out of {d.replicas} '
                "new replicas have been updated..."), False
    if d.status_replicas > d.updated_replicas:
        return (f'Waiting for deployment "{d.name}" rollout to finish: {d.status_replicas - d.updated_replicas} '
                "old replicas are pending termination..."), False
    if d.available_replicas < d.updated_replicas:
        return (f'Waiting for deployment "{d.name}" rollout to finish: {d.available_replicas} of '
                f"{d.updated_replicas} updated replicas are available..."), False
    return f'deployment "{d.name}" successfully rolled out', True


# ------------------------------------------------------------------ the controller


class DeploymentController:
    def __init__(self, sim: "Simulation", workloads: "WorkloadControllers") -> None:
        self.sim = sim
        self.workloads = workloads
        self._deadline: dict[str, tuple[int, int]] = {}  # deployment -> (due, timer id)
        self._sequence = 0
        self._hashes: dict[str, tuple[object, str]] = {}
        # Deployment -> what its last sync left, when that was a settled shape (see settled()).
        self._settled: dict[str, tuple] = {}
        self.skip_settled = True  # False: every sync runs in full (the reference the tests compare)
        sim.clock.register("deployment.resync", self.resync)

    # ---------------------------------------------------------------- bookkeeping

    def replica_sets(self, d: Deployment) -> list[ReplicaSet]:
        return by_creation(list(self.workloads.replicasets_of(d.name)))

    def resync(self, name: str) -> None:
        """A timer asked for this Deployment (progress deadline, minReadySeconds)."""
        entry = self._deadline.get(name)
        if entry is not None and entry[0] <= self.sim.clock.now:
            del self._deadline[name]
        self.workloads.mark_deployment(name)

    def _event(self, d: Deployment, message: str) -> None:
        self.sim.store.event("Normal", "ScalingReplicaSet", f"Deployment/{d.namespace}/{d.name}", message, SOURCE)

    # ---------------------------------------------------------------- settled Deployments

    def settled(self, d: Deployment) -> bool:
        """True when the deployment sync of `d` would change nothing: its last sync left it settled
        (see remember) and nothing that sync reads has changed since, its progress deadline has not
        passed and no timer asked for it. Its ReplicaSet's pods may have moved since: that is the
        ReplicaSet controller's part (WorkloadControllers), which syncs first and wakes this sync only
        when the ReplicaSet's status changed. Every pod event of a ReplicaSet asks for a sync (as the
        informers do); in a steady Deployment most of them change no status."""
        memo = self._settled.get(d.name)
        if memo is None or not self.skip_settled:
            return False
        refs, values = memo
        rs = self.workloads.sole_replicaset(d.name)
        if rs is None or rs is not refs[1] or d.template is not refs[0]:
            return False
        return values == self._signature(d, rs) and not self._deadline_passed(d)

    def left_settled(self, d: Deployment) -> bool:
        """settled(d) right after a sync of `d`, which left nothing changed since its remember()."""
        return self.skip_settled and d.name in self._settled and not self._deadline_passed(d)

    def remember(self, d: Deployment) -> None:
        """After a sync: keep what it left when that is a settled shape, where one more sync provably
        changes nothing. That is a rolling Deployment, not paused, whose spec was observed, without
        minReadySeconds (availability would depend on the clock), with one ReplicaSet, the one of its
        template, sized to spec.replicas (annotations too). Then sync_deployment is a no-op on its own
        result, whatever the pods: there is no scaling event, nothing to reconcile or clean up, and
        the status it would compute is the one stored (so no progress, no new condition; a timeout
        depends on the clock, hence _deadline_passed). Only after a sync that ended with no
        ReplicaSet status changed."""
        self.forget(d)
        if d.paused or d.strategy != ROLLING_UPDATE or d.min_ready_seconds or d.observed_generation != d.generation:
            return
        rss = self.workloads.replicasets_of(d.name)
        if len(rss) != 1:
            return
        rs = rss[0]
        if (rs.min_ready_seconds or rs.template_hash != self.template_hash(d) or rs.replicas != d.replicas
                or rs.desired_replicas != d.replicas or rs.max_replicas != d.replicas + max_surge(d)):
            return
        self._settled[d.name] = ((d.template, rs), self._signature(d, rs))

    def forget(self, d: Deployment) -> None:
        self._settled.pop(d.name, None)

    def _signature(self, d: Deployment, rs: ReplicaSet) -> tuple:
        """Everything a deployment sync of a settled Deployment reads or writes, besides the clock."""
        return (d.generation, d.observed_generation, d.replicas, d.paused, d.strategy, d.max_surge, d.max_unavailable,
                d.min_ready_seconds, d.progress_deadline_seconds, d.revision_history_limit, d.revision,
                d.status_replicas, d.updated_replicas, d.ready_replicas, d.available_replicas, d.unavailable_replicas,
                # the condition objects themselves: no code changes one once it is stored (a write
                # stores a new one), and equal ones compare by value
                tuple(d.conditions.values()),
                self._deadline.get(d.name),
                rs.replicas, rs.desired_replicas, rs.max_replicas, rs.status_replicas, rs.ready_replicas,
                rs.available_replicas, rs.revision, rs.min_ready_seconds)

    def _deadline_passed(self, d: Deployment) -> bool:
        """The progress deadline has passed without a timeout written yet: the sync would write it."""
        if not has_progress_deadline(d):
            return False
        cond = d.conditions.get(PROGRESSING)
        return (cond is not None and cond.reason not in (NEW_RS_AVAILABLE, TIMED_OUT)
                and cond.last_update_time + d.progress_deadline_seconds * 1000 < self.sim.clock.now)

    # ---------------------------------------------------------------- syncDeployment

    def sync_deployment(self, d: Deployment) -> None:
        self.check_paused_conditions(d)
        # getAllReplicaSetsAndSyncRevision once: the paths below would repeat it on the same state
        # (its writes are idempotent); only creating the new ReplicaSet is left to rolling.
        rss = self.get_all_replica_sets(d, create=False)
        if d.paused or self.is_scaling_event(d, rss):
            self.sync(d, rss)
        elif d.strategy == RECREATE:
            self.rollout_recreate(d, rss)
        else:
            self.rollout_rolling(d, rss)

    def check_paused_conditions(self, d: Deployment) -> None:
        if not has_progress_deadline(d):
            return
        cond = d.conditions.get(PROGRESSING)
        if cond is not None and cond.reason == TIMED_OUT:
            return
        paused_exists = cond is not None and cond.reason == PAUSED
        now = self.sim.clock.now
        if d.paused and not paused_exists:
            set_condition(d.conditions, new_condition(PROGRESSING, UNKNOWN, PAUSED, "Deployment is paused", now))
        elif not d.paused and paused_exists:
            set_condition(d.conditions, new_condition(PROGRESSING, UNKNOWN, RESUMED, "Deployment is resumed", now))

    def is_scaling_event(self, d: Deployment, rss: tuple | None = None) -> bool:
        new_rs, old_rss = rss if rss is not None else self.get_all_replica_sets(d, create=False)
        for rs in [*old_rss, new_rs]:
            if rs is not None and rs.replicas > 0 and rs.desired_replicas is not None \
                    and rs.desired_replicas != d.replicas:
                return True
        return False

    # ---------------------------------------------------------------- getAllReplicaSetsAndSyncRevision

    def template_hash(self, d: Deployment) -> str:
        """The hash of the Deployment's current template, computed once per template object (the
        operations replace a template, never change one in place)."""
        cached = self._hashes.get(d.name)
        if cached is None or cached[0] is not d.template:
            from .workloads import template_hash

            cached = self._hashes[d.name] = (d.template, template_hash(d.template))
        return cached[1]

    def find_new_replica_set(self, d: Deployment) -> ReplicaSet | None:
        wanted = self.template_hash(d)
        return next((rs for rs in self.replica_sets(d) if rs.template_hash == wanted), None)

    def get_all_replica_sets(self, d: Deployment, create: bool) -> tuple[ReplicaSet | None, list[ReplicaSet]]:
        rss = self.replica_sets(d)
        wanted = self.template_hash(d)
        existing = next((rs for rs in rss if rs.template_hash == wanted), None)
        old_rss = [rs for rs in rss if rs is not existing]
        new_revision = max((rs.revision for rs in old_rss), default=0) + 1
        now = self.sim.clock.now
        if existing is not None:
            if existing.revision < new_revision:
                if existing.revision:
                    existing.revision_history = (*existing.revision_history, existing.revision)
                existing.revision = new_revision
            existing.min_ready_seconds = d.min_ready_seconds
            d.revision = existing.revision
            if has_progress_deadline(d) and PROGRESSING not in d.conditions:
                set_condition(d.conditions, new_condition(
                    PROGRESSING, TRUE, FOUND_NEW_RS, f'Found new replica set "{existing.name}"', now))
            return existing, old_rss
        if not create:
            return None, old_rss
        rs_hash = self.template_hash(d)
        self._sequence += 1
        rs = ReplicaSet(f"{d.name}-{rs_hash}", d.namespace, d.name, replica_set_template(d.template, rs_hash), rs_hash,
                        0, now, self._sequence,
                        min_ready_seconds=d.min_ready_seconds, revision=new_revision)
        rs.replicas = new_rs_new_replicas(d, [*old_rss, rs], rs)
        rs.desired_replicas, rs.max_replicas = d.replicas, d.replicas + max_surge(d)
        self.workloads.add_replicaset(rs)
        if rs.replicas > 0:
            self._event(d, f"Scaled up replica set {rs.name} from 0 to {rs.replicas}")
        d.revision = new_revision
        if has_progress_deadline(d):
            set_condition(d.conditions, new_condition(
                PROGRESSING, TRUE, NEW_RS_CREATED, f'Created new replica set "{rs.name}"', now))
        return rs, old_rss

    # ---------------------------------------------------------------- scaling (sync.go)

    def scale_replica_set(self, rs: ReplicaSet, new_scale: int, d: Deployment) -> bool:
        """scaleReplicaSet: the size and the replicas annotations; an event when the size changes."""
        desired, maximum = d.replicas, d.replicas + max_surge(d)
        size_changes = rs.replicas != new_scale
        if not size_changes and rs.desired_replicas == desired and rs.max_replicas == maximum:
            return False
        old = rs.replicas
        rs.replicas = new_scale
        rs.desired_replicas, rs.max_replicas = desired, maximum
        if size_changes:
            self.workloads.mark_replicaset(rs)
            self._event(d, f"Scaled {'up' if old < new_scale else 'down'} replica set {rs.name} from {old} to {new_scale}")
        return size_changes

    def scale_and_record(self, rs: ReplicaSet, new_scale: int, d: Deployment) -> bool:
        """scaleReplicaSetAndRecordEvent: nothing to do when the size is already right."""
        if rs.replicas == new_scale:
            return False
        return self.scale_replica_set(rs, new_scale, d)

    def scale(self, d: Deployment, new_rs: ReplicaSet | None, old_rss: list[ReplicaSet]) -> None:
        """sync.go scale: one active ReplicaSet takes the whole count; a saturated new one takes it
        from the old ones; otherwise the change is shared out proportionally."""
        active_or_latest = self.find_active_or_latest(new_rs, old_rss)
        if active_or_latest is not None:
            if active_or_latest.replicas != d.replicas:
                self.scale_and_record(active_or_latest, d.replicas, d)
            return
        if is_saturated(d, new_rs):
            for old in [rs for rs in old_rss if rs.replicas > 0]:
                self.scale_and_record(old, 0, d)
            return
        if d.strategy != ROLLING_UPDATE:
            return
        active = [rs for rs in [*old_rss, new_rs] if rs is not None and rs.replicas > 0]
        allowed = d.replicas + max_surge(d) if d.replicas > 0 else 0
        to_add = allowed - replica_count(active)
        if to_add > 0:
            # ReplicaSetsBySizeNewer: the largest first, newer first among equals
            active.sort(key=lambda rs: (-rs.replicas, -rs.creation_time, tuple(-ord(c) for c in rs.name)))
        elif to_add < 0:
            # ReplicaSetsBySizeOlder: the largest first, older first among equals
            active.sort(key=lambda rs: (-rs.replicas, rs.creation_time, rs.name))
        added = 0
        sizes: dict[str, int] = {}
        for rs in active:
            if to_add != 0:
                proportion = get_proportion(rs, d, to_add, added)
                sizes[rs.name] = rs.replicas + proportion
                added += proportion
            else:
                sizes[rs.name] = rs.replicas
        for i, rs in enumerate(active):
            if i == 0 and to_add != 0:
                sizes[rs.name] = max(sizes[rs.name] + to_add - added, 0)  # leftovers to the largest
            self.scale_replica_set(rs, sizes[rs.name], d)

    @staticmethod
    def find_active_or_latest(new_rs: ReplicaSet | None, old_rss: list[ReplicaSet]) -> ReplicaSet | None:
        if new_rs is None and not old_rss:
            return None
        newest_first = sorted(old_rss, key=lambda rs: (rs.creation_time, rs.name), reverse=True)
        active = [rs for rs in [*newest_first, new_rs] if rs is not None and rs.replicas > 0]
        if not active:
            return new_rs if new_rs is not None else newest_first[0]
        if len(active) == 1:
            return active[0]
        return None

    def sync(self, d: Deployment, rss: tuple | None = None) -> None:
        """sync.go sync: for a paused Deployment or a scaling event; never creates a ReplicaSet."""
        new_rs, old_rss = rss if rss is not None else self.get_all_replica_sets(d, create=False)
        self.scale(d, new_rs, old_rss)
        if d.paused:
            self.cleanup(d, old_rss)
        self.sync_status(d, [*old_rss, new_rs], new_rs)

    # ---------------------------------------------------------------- rolling.go

    def rollout_rolling(self, d: Deployment, rss: tuple | None = None) -> None:
        new_rs, old_rss = rss if rss is not None and rss[0] is not None else self.get_all_replica_sets(d, create=True)
        all_rss = [*old_rss, new_rs]
        if self.reconcile_new_replica_set(all_rss, new_rs, d):
            self.sync_rollout_status(d, all_rss, new_rs)
            return
        if old_rss and self.reconcile_old_replica_sets(all_rss, [rs for rs in old_rss if rs.replicas > 0], new_rs, d):
            self.sync_rollout_status(d, all_rss, new_rs)
            return
        if old_rss and deployment_complete(d, status_of(d)):  # (nothing to clean up without old ones)
            self.cleanup(d, old_rss)
        self.sync_rollout_status(d, all_rss, new_rs)

    def reconcile_new_replica_set(self, all_rss: list[ReplicaSet], new_rs: ReplicaSet, d: Deployment) -> bool:
        if new_rs.replicas == d.replicas:
            return False
        if new_rs.replicas > d.replicas:
            return self.scale_and_record(new_rs, d.replicas, d)
        return self.scale_and_record(new_rs, new_rs_new_replicas(d, all_rss, new_rs), d)

    def reconcile_old_replica_sets(self, all_rss: list[ReplicaSet], old_rss: list[ReplicaSet],
                                   new_rs: ReplicaSet, d: Deployment) -> bool:
        if replica_count(old_rss) == 0:
            return False
        min_available = d.replicas - max_unavailable(d)
        new_unavailable = new_rs.replicas - new_rs.available_replicas
        # The new ReplicaSet's unavailable pods count against the budget, so that pods which never
        # become available do not let the old ReplicaSets shrink further.
        max_scaled_down = replica_count(all_rss) - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        old_rss, cleaned = self.cleanup_unhealthy_replicas(old_rss, d, max_scaled_down)
        scaled = self.scale_down_old_replica_sets_for_rolling_update([*old_rss, new_rs], old_rss, d)
        return cleaned + scaled > 0

    def cleanup_unhealthy_replicas(self, old_rss: list[ReplicaSet], d: Deployment,
                                   max_cleanup: int) -> tuple[list[ReplicaSet], int]:
        """Scale old ReplicaSets down by their unavailable pods first: the ReplicaSet controller
        deletes not-ready, unscheduled, pending pods first, so availability does not drop."""
        old_rss = by_creation(old_rss)
        total = 0
        for rs in old_rss:
            if total >= max_cleanup:
                break
            if rs.replicas == 0 or rs.replicas == rs.available_replicas:
                continue
            count = min(max_cleanup - total, rs.replicas - rs.available_replicas)
            self.scale_and_record(rs, rs.replicas - count, d)
            total += count
        return old_rss, total

    def scale_down_old_replica_sets_for_rolling_update(self, all_rss: list[ReplicaSet], old_rss: list[ReplicaSet],
                                                       d: Deployment) -> int:
        min_available = d.replicas - max_unavailable(d)
        available = available_replica_count(all_rss)
        if available <= min_available:
            return 0
        total, budget = 0, available - min_available
        for rs in by_creation(old_rss):
            if total >= budget:
                break
            if rs.replicas == 0:
                continue
            count = min(rs.replicas, budget - total)
            self.scale_and_record(rs, rs.replicas - count, d)
            total += count
        return total

    # ---------------------------------------------------------------- recreate.go

    def rollout_recreate(self, d: Deployment, rss: tuple | None = None) -> None:
        new_rs, old_rss = rss if rss is not None else self.get_all_replica_sets(d, create=False)
        all_rss = [*old_rss, new_rs]
        scaled_down = False
        for rs in [rs for rs in old_rss if rs.replicas > 0]:
            scaled_down |= self.scale_and_record(rs, 0, d)
        if scaled_down:
            self.sync_rollout_status(d, all_rss, new_rs)
            return
        if self.old_pods_running(new_rs, old_rss):
            self.sync_rollout_status(d, all_rss, new_rs)
            return
        if new_rs is None:
            new_rs, old_rss = self.get_all_replica_sets(d, create=True)
            all_rss = [*old_rss, new_rs]
        self.scale_and_record(new_rs, d.replicas, d)
        if deployment_complete(d, status_of(d)):
            self.cleanup(d, old_rss)
        self.sync_rollout_status(d, all_rss, new_rs)

    def old_pods_running(self, new_rs: ReplicaSet | None, old_rss: list[ReplicaSet]) -> bool:
        """Any old pod not yet Succeeded or Failed, terminating ones included."""
        for rs in old_rss:
            if rs.status_replicas > 0:
                return True
            if any(not p.is_terminal() for p in self.sim.store.owned_pods("ReplicaSet", rs.name)):
                return True
        return False

    # ---------------------------------------------------------------- cleanupDeployment

    def cleanup(self, d: Deployment, old_rss: list[ReplicaSet]) -> None:
        if d.revision_history_limit is None:
            return
        diff = len(old_rss) - d.revision_history_limit
        if diff <= 0:
            return
        # ReplicaSetsByRevision: the oldest revision first
        for rs in sorted(old_rss, key=lambda rs: (rs.revision, rs.creation_time, rs.name))[:diff]:
            if rs.status_replicas != 0 or rs.replicas != 0:
                continue
            self.workloads.remove_replicaset(rs)

    # ---------------------------------------------------------------- status (sync.go, progress.go)

    def calculate_status(self, d: Deployment, all_rss: list[ReplicaSet], new_rs: ReplicaSet | None) -> DeploymentStatus:
        spec = actual = ready = available = 0  # the four counts of calculateStatus, in one pass
        for rs in all_rss:
            if rs is not None:
                spec += rs.replicas
                actual += rs.status_replicas
                ready += rs.ready_replicas
                available += rs.available_replicas
        status = DeploymentStatus(
            observed_generation=d.generation,
            replicas=actual,
            updated_replicas=new_rs.status_replicas if new_rs is not None else 0,
            ready_replicas=ready,
            available_replicas=available,
            unavailable_replicas=max(spec - available, 0),
            conditions=dict(d.conditions),
        )
        now = self.sim.clock.now
        if available >= d.replicas - max_unavailable(d):
            cond = new_condition(AVAILABLE, TRUE, MIN_AVAILABLE, "Deployment has minimum availability.", now)
        else:
            cond = new_condition(AVAILABLE, FALSE, MIN_UNAVAILABLE, "Deployment does not have minimum availability.", now)
        set_condition(status.conditions, cond)
        return status

    def sync_status(self, d: Deployment, all_rss: list, new_rs: ReplicaSet | None) -> None:
        """syncDeploymentStatus: the counts, no estimate of progress."""
        self._store_status(d, self.calculate_status(d, all_rss, new_rs))

    def sync_rollout_status(self, d: Deployment, all_rss: list, new_rs: ReplicaSet | None) -> None:
        status = self.calculate_status(d, all_rss, new_rs)
        now = self.sim.clock.now
        if not has_progress_deadline(d):
            status.conditions.pop(PROGRESSING, None)
        current = d.conditions.get(PROGRESSING)
        complete_already = (status.replicas == status.updated_replicas and current is not None
                            and current.reason == NEW_RS_AVAILABLE)
        if has_progress_deadline(d) and not complete_already:
            name = f'ReplicaSet "{new_rs.name}"' if new_rs is not None else f'Deployment "{d.name}"'
            if deployment_complete(d, status):
                set_condition(status.conditions, new_condition(
                    PROGRESSING, TRUE, NEW_RS_AVAILABLE, f"{name} has successfully progressed.", now))
            elif deployment_progressing(d, status):
                # The same reason again still moves lastUpdateTime: the deadline counts from the last progress.
                cond = new_condition(PROGRESSING, TRUE, RS_UPDATED, f"{name} is progressing.", now)
                if current is not None:
                    if current.status == TRUE:
                        cond.last_transition_time = current.last_transition_time
                    status.conditions.pop(PROGRESSING, None)
                set_condition(status.conditions, cond)
            elif deployment_timed_out(d, status, now):
                set_condition(status.conditions, new_condition(
                    PROGRESSING, FALSE, TIMED_OUT, f"{name} has timed out progressing.", now))
        self._store_status(d, status)
        self.requeue_stuck_deployment(d, status)

    def _store_status(self, d: Deployment, s: DeploymentStatus) -> None:
        d.observed_generation = s.observed_generation
        d.status_replicas, d.updated_replicas, d.ready_replicas = s.replicas, s.updated_replicas, s.ready_replicas
        d.available_replicas, d.unavailable_replicas = s.available_replicas, s.unavailable_replicas
        d.conditions = s.conditions

    def requeue_stuck_deployment(self, d: Deployment, s: DeploymentStatus) -> None:
        """A timer at lastUpdateTime + progressDeadlineSeconds + 1 s (the controller adds a second
        against clock skew), so that a rollout without progress times out without polling."""
        cond = s.conditions.get(PROGRESSING)
        due = None
        # NewReplicaSetAvailable never times out (a complete Deployment scaled up waits for its pods
        # without a deadline): Kubernetes requeues it rate-limited to no effect, we do not.
        if has_progress_deadline(d) and cond is not None and not deployment_complete(d, s) \
                and cond.reason not in (TIMED_OUT, NEW_RS_AVAILABLE):
            due = max(cond.last_update_time + d.progress_deadline_seconds * 1000 + 1000, self.sim.clock.now + 1000)
        self.arm(d.name, due)

    def arm(self, name: str, due: int | None) -> None:
        entry = self._deadline.get(name)
        if entry is not None and entry[0] == due:
            return
        if entry is not None:
            self.sim.clock.cancel(entry[1])
            del self._deadline[name]
        if due is not None:
            self._deadline[name] = (due, self.sim.clock.call_at(due, PHASE_WORKLOADS, "deployment.resync", name))

    def deadline_at(self, name: str) -> int | None:
        """When the pending progress check runs (for the TUI's countdown)."""
        entry = self._deadline.get(name)
        return entry[0] if entry else None


def deployment_from_spec(spec) -> Deployment:
    """A scenario's [[deployments]] entry as the API server stores it (defaults filled in)."""
    from .simulation import template_from_spec

    rolling = spec.strategy.rollingUpdate
    return Deployment(
        spec.name, spec.namespace, spec.replicas, template_from_spec(spec.template),
        strategy=spec.strategy.type,
        max_surge=rolling.maxSurge if rolling else ("25%" if spec.strategy.type == ROLLING_UPDATE else 0),
        max_unavailable=rolling.maxUnavailable if rolling else ("25%" if spec.strategy.type == ROLLING_UPDATE else 0),
        min_ready_seconds=spec.minReadySeconds, progress_deadline_seconds=spec.progressDeadlineSeconds,
        revision_history_limit=spec.revisionHistoryLimit, paused=spec.paused)
