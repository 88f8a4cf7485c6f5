"""What changes by Kubernetes release, in one table, and nothing else.

A scenario names its release with `[scenario] kubernetesVersion` ("1.31" to "1.35", default
"1.35"). Everything else in the engine follows the newest behaviour; the rows below are the
defaults and texts that differ between the supported releases:

- node-monitor-grace-period default: 40s up to 1.31, 50s from 1.32
  (pkg/controller/nodelifecycle/config/v1alpha1/defaults.go, kubernetes#126287).
- TaintToleration's filter reason: "node(s) had untolerated taint {key: value}" up to 1.34,
  "node(s) had untolerated taint(s)" from 1.35 (the taint's value is no longer shown).
- DynamicResources' PostFilter (DRA GA and on by default from 1.34) runs before DefaultPreemption
  and, for a pod without claims, adds "no new claims to deallocate" to the PostFilter message, so
  FailedScheduling reads "... no new claims to deallocate, preemption: ...".
- SchedulerPopFromBackoffQ (beta, on from 1.33; KEP-5142, pkg/scheduler/backend/queue
  backoff_queue.go and active_queue.go): with activeQ empty the scheduler pops the first pod of
  backoffQ, backoff over or not (never one of podErrorBackoffQ); backoff expiries are truncated to
  1 s windows, a pod backs off until the window after its own, and backoffQ is ordered by window
  and then as activeQ (scheduler/queue.py).
- SchedulerAsyncPreemption (beta, on from 1.33; KEP-4832, framework/preemption/preemption.go
  prepareCandidateAsync): the victims are deleted in a goroutine that starts after the failed cycle
  wrote the preemptor's FailedScheduling event, nominatedNodeName and PodScheduled condition; it
  clears lower-priority nominations on the node first. The event precedes the Preempted events
  (Scheduler.prepare_candidate).
"""

from __future__ import annotations

from dataclasses import dataclass

SUPPORTED = ("1.31", "1.32", "1.33", "1.34", "1.35")
DEFAULT = "1.35"
TAINT_REASON_PREFIX = "node(s) had untolerated taint {"
UNTOLERATED_TAINTS = "node(s) had untolerated taint(s)"


@dataclass(slots=True, frozen=True)
class Release:
    version: str
    node_monitor_grace_period: int  # ms, the kube-controller-manager default
    taint_reason_shows_taint: bool
    dra_post_filter: bool
    pop_from_backoff_q: bool
    async_preemption: bool

    def reason_text(self, reason: str) -> str:
        """A filter reason as this release words it. The TaintToleration plugin words its reason
        with the taint ("node(s) had untolerated taint {key: value}"); from 1.35 the taint is left
        out, and the nodes of every untolerated taint are counted under one reason."""
        if not self.taint_reason_shows_taint and reason.startswith(TAINT_REASON_PREFIX):
            return UNTOLERATED_TAINTS
        return reason

    def post_filter_message(self, preemption_message: str) -> str:
        """The PostFilter plugins' reasons joined as RunPostFilterPlugins joins them."""
        reasons = ["no new claims to deallocate"] if self.dra_post_filter else []
        if preemption_message:
            reasons.append(preemption_message)
        return ", ".join(reasons)


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def release(version: str = DEFAULT) -> Release:
    if version not in SUPPORTED:
        raise ValueError(f"unsupported Kubernetes release {version!r}; supported: {', '.join(SUPPORTED)}")
    minor = _minor(version)
    return Release(
        version=version,
        node_monitor_grace_period=40_000 if minor < 32 else 50_000,
        taint_reason_shows_taint=minor < 35,
        dra_post_filter=minor >= 34,
        pop_from_backoff_q=minor >= 33,
        async_preemption=minor >= 33,
    )
