"""The simulation: builds a cluster from a scenario and wires the components to one clock.

Order of work inside one instant of virtual time (timers are keyed by (time, phase, sequence)):

  0 operations and timeline actions due
  1 kubelets: lease and status, container start/stop, the node shutdown manager
  2 node lifecycle controller: monitor pass, NoExecute tainting pass
  3 taint-eviction controller: deletions due
  4 PodGC (a pass every 20 s)
  5 disruption controller (PodDisruptionBudget status)
  6 workload controllers: ReplicaSets (Deployments), DaemonSets, StatefulSets; the attach/detach
    controller's reconciler (a 100 ms grid, only while volumes wait)
  7 scheduler: up to attemptsPerTick scheduling cycles
  8 expectations due are checked, after everything else at that instant
  9 live operations replayed from a saved session (timeline entries with afterControllers = true)

Informer-style reactions (a node's NoSchedule taints after a condition change, the taint-eviction
controller seeing a new NoExecute taint, a kubelet seeing a pod bound to it) happen when the store
is written, as a watch would deliver them, within the same instant.

Live operations (`Simulation.apply`: keys, dialogs, the palette, the Python API) take effect after
the controllers of their instant: `apply` first finishes the current instant (runs every timer due
at or before now, so an operation at 0 s before the first step sees the scenario's instant 0 done),
then applies the operation; what it sets in motion runs from the next timers on. A saved session
records each live operation as a timeline entry with `afterControllers = true`, which replays at
(its time, PHASE_AFTER_CONTROLLERS), after every other timer of that instant including the
expectations, in the order the user applied them; so a saved session replays exactly what was seen.
Hand-written timeline entries keep the operations phase (0), before the instant's controllers.

kubectl drain runs in the operations phase: its evictions, its retries every 5 s and the polls that
see evicted pods gone are operations-phase timers, so a drain always acts on the state the
controllers left at the end of the previous instant.

`step()` advances one tick; timers fire at their exact millisecond, so a tick is the unit of
stepping and of scheduler throughput, not a rounding of event times.

Time travel (history.py, off until `enable_history`, `seek` or `rewind`): `run_until_ms` then runs
through the history, which applies the recorded future's operations at their instants, samples the
figures for the plots and takes checkpoints; `apply` tells it of each live operation (a fork when
made in the past). The simulation's state is everything but `scenario` and `history`.
"""

from __future__ import annotations

import gc
import random
from dataclasses import dataclass
from pathlib import Path

from ..scenario.schema import KubeletSettings, PodSpecFields, Scenario, parse_taint
from .apiserver import SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL, AdmissionError, APIServer, APIServerConfig
from .attachdetach import AttachDetachController
from .clock import PHASE_OPERATIONS, Clock
from .disruption import DisruptionController
from .drain import Drainer
from .kubelet import ContainerStarts, Kubelet, KubeletConfig, start_bound_pods
from .nodelifecycle import NodeLifecycleConfig, NodeLifecycleController
from .nodeshutdown import NodeShutdownManager
from .releases import release
from .objects import (
    DaemonSet,
    Node,
    Pod,
    PodDisruptionBudget,
    PodTemplate,
    PriorityClass,
    StatefulSet,
    Taint,
    Toleration,
    OwnerRef,
    zone_key,
)
from .operations import Operation, OperationResult, Operations
from .podgc import PodGC
from .statefulset import POD_NAME_LABEL, StatefulSetController, claim_name
from .scheduler import Scheduler, SchedulerConfig
from .scheduler.affinity import (node_affinity_from_spec, node_affinity_to_spec, pod_affinity_from_spec,
                                 pod_affinity_to_spec, spread_from_spec, spread_to_spec)
from .store import ChangeSet, Store, watches
from .tainteviction import TaintEvictionController
from .deployment import deployment_from_spec, replica_set_template
from .history import History
from .metrics import ClusterCounts
from .workloads import DAEMON_TOLERATIONS, WorkloadControllers, pod_from_template
from ..gcpause import no_gc
from ..scenario.validation import MAX_TIME_MS
from ..units import format_cpu, format_duration, format_memory, parse_duration

PHASE_EXPECT = 8
PHASE_AFTER_CONTROLLERS = 9  # live operations, and saved ones (afterControllers = true)
# Timer ids set aside for the timeline and the expectations (see Simulation._schedule_script): more
# than any scenario file can hold, and few enough that the run's ids stay one-digit ints (below 2**30)
# for its first half a billion timers.
SCRIPT_IDS = 1 << 29
SCRIPT_HANDLERS = ("timeline.apply", "expect.check")
POD_TEMPLATE_FIELDS = frozenset(PodSpecFields.model_fields)  # a [[pods]] entry that says any runs its own template


@dataclass(slots=True)
class ExpectationResult:
    index: int
    time: int
    description: str
    passed: bool
    checks: list[tuple[str, str, str, bool]]  # (what, expected, actual, passed)


# The collector's youngest generation is collected every 700 new container objects by default,
# sized for small heaps. A running cluster makes events and pods by the thousand: survivors are
# promoted until a full collection walks every object not frozen (0.1-0.2 s each at 150,000 pods,
# 1.9 s of a 20 s run of the TUI at x1000, tui_frames.py). Every 20,000, the same run spends 0.6 s
# in the collector, its pauses 15 ms at the median.
COLLECTOR_THRESHOLDS = (20_000, 20, 20)


def freeze_heap(release: bool = True) -> None:
    """Move what the process holds out of the garbage collector's sight (an opened cluster's objects
    are long-lived; with 150,000 pods a full collection scans millions of them and stalls for up to a
    second: they stay alive as usual, only not scanned for cycles), and collect less often from then
    on (COLLECTOR_THRESHOLDS). `release` unfreezes first, so that what an earlier open froze (a
    replaced simulation) is collected; without it, what is frozen stays so (a cluster frozen by its
    open, Simulation.open_now) and only what came since is collected and frozen."""
    if release:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def template_from_spec(spec: PodSpecFields) -> PodTemplate:
    required, preferred = node_affinity_from_spec(spec.affinity)
    return PodTemplate(
        labels=dict(spec.labels),
        cpu=spec.requests.cpu,
        memory=spec.requests.memory,
        priority_class_name=spec.priorityClassName,
        priority=spec.priority,
        tolerations=tuple(
            Toleration(t.key, t.operator, t.value, t.effect, t.tolerationSeconds) for t in spec.tolerations
        ),
        node_selector=dict(spec.nodeSelector),
        termination_grace_period_seconds=spec.terminationGracePeriodSeconds,
        start_duration=spec.startDuration,
        stop_duration=spec.stopDuration,
        empty_dir=spec.emptyDir,
        required_node_affinity=required,
        preferred_node_affinity=preferred,
        topology_spread_constraints=spread_from_spec(spec.topologySpreadConstraints),
        **pod_affinity_from_spec(spec.affinity),
    )


def kubelet_config(cluster: KubeletSettings, node: KubeletSettings) -> KubeletConfig:
    """Per-node settings over the cluster-wide [kubelet] table over KubeletConfiguration defaults."""

    def pick(name: str):
        value = getattr(node, name)
        return value if value is not None else getattr(cluster, name)

    config = KubeletConfig()
    update = pick("nodeStatusUpdateFrequency")
    report = pick("nodeStatusReportFrequency")
    if update is not None:
        config.node_status_update_frequency = update
        # Backward compatibility: an explicit update frequency without a report frequency reports as often.
        config.node_status_report_frequency = report if report is not None else update
    elif report is not None:
        config.node_status_report_frequency = report
    if (lease := pick("nodeLeaseDurationSeconds")) is not None:
        config.node_lease_duration_seconds = lease
    if (total := pick("shutdownGracePeriod")) is not None:
        config.shutdown_grace_period = total
    if (critical := pick("shutdownGracePeriodCriticalPods")) is not None:
        config.shutdown_grace_period_critical_pods = critical
    if (groups := pick("shutdownGracePeriodByPodPriority")) is not None:
        config.shutdown_grace_period_by_pod_priority = [(g.priority, g.shutdownGracePeriodSeconds) for g in groups]
    if (max_pods := pick("maxPods")) is not None:
        config.max_pods = max_pods
    return config


class Simulation:
    def __init__(self, scenario: Scenario, event_limit: int | None = None, open_cache=None) -> None:
        """`open_cache` (openstate.OpenStateCache): open from the state kept for this scenario's
        opening, restored here instead of building the cluster (built and placed only when there is
        none, at the first run)."""
        self.scenario = scenario
        meta = scenario.scenario
        self.tick = meta.tick
        self.duration = meta.duration
        self.clock = Clock()
        self.rng = random.Random(meta.seed)
        self.store = Store(self._clock_now, event_limit)  # a method, not a lambda: checkpoints pickle it
        cm = scenario.controllerManager
        self.release = release(meta.kubernetesVersion)
        # a flag left out of the file takes the release's default
        grace = cm.node_monitor_grace_period if "node_monitor_grace_period" in cm.model_fields_set \
            else self.release.node_monitor_grace_period
        self.apiserver = APIServer(self.store, APIServerConfig(
            scenario.apiServer.default_not_ready_toleration_seconds,
            scenario.apiServer.default_unreachable_toleration_seconds,
        ))
        self.kubelets: dict[str, Kubelet] = {}
        self.container_starts = ContainerStarts(self)
        self.nodeshutdown = NodeShutdownManager(self)
        self.nodelifecycle = NodeLifecycleController(self, NodeLifecycleConfig(
            cm.node_monitor_period, grace, cm.node_startup_grace_period,
            cm.node_eviction_rate, cm.secondary_node_eviction_rate, cm.large_cluster_size_threshold,
            cm.unhealthy_zone_threshold,
        ))
        self.tainteviction = TaintEvictionController(self)
        self.podgc = PodGC(self, cm.terminated_pod_gc_threshold)
        self.disruption = DisruptionController(self)
        self.workloads = WorkloadControllers(self)
        self.statefulsets = StatefulSetController(self)
        self.attachdetach = AttachDetachController(self)
        self.drain = Drainer(self)
        self._node_specs: dict[str, tuple] = {}  # node name -> (spec, kubelet settings), for re-registration
        # id of a node entry's kubelet settings -> (those settings, their KubeletConfig): the nodes of a
        # pool share one (no code writes a KubeletConfig after kubelet_config made it)
        self._kubelet_configs: dict[int, tuple] = {}
        sch = scenario.scheduler
        self.scheduler = Scheduler(self, SchedulerConfig(
            percentage_of_nodes_to_score=sch.percentageOfNodesToScore,
            pod_initial_backoff_seconds=sch.podInitialBackoffSeconds,
            pod_max_backoff_seconds=sch.podMaxBackoffSeconds,
            attempts_per_tick=sch.attemptsPerTick,
            min_candidate_nodes_percentage=sch.minCandidateNodesPercentage,
            min_candidate_nodes_absolute=sch.minCandidateNodesAbsolute,
        ))
        self.operations = Operations(self)
        self.expectation_results: list[ExpectationResult] = []
        self.history: History | None = None  # time travel (history.py), off until asked for
        self.open_cache = open_cache  # a big scenario's opened state on disk (openstate.py)
        self._opened = False  # instant 0 has been run by run_until_ms (see _open)
        self.metrics: ClusterCounts | None = None  # figures for the plots, kept while history is on
        self.store.pod_watchers.append(self._kubelet_watch)
        self.store.together_watchers[self._kubelet_watch] = self._kubelet_watch_together
        self._register_handlers()
        # The kept opened state replaces every component: building the cluster first (5,000 nodes
        # and their kubelets: 0.25 s) would only be thrown away.
        if open_cache is None or not open_cache.restore(self, open_cache.path(self)):
            # (the collector paused, as for the open: the cluster's objects all stay, and 5,000 nodes
            # and their kubelets set off some 150 collections that walked them, 0.03-0.08 s of 0.12-0.24)
            with no_gc():
                self._build()

    @classmethod
    def from_file(cls, path: str | Path, event_limit: int | None = None) -> "Simulation":
        from ..scenario import load_scenario

        return cls(load_scenario(path), event_limit)

    # ---------------------------------------------------------------- wiring

    def _register_handlers(self) -> None:
        clock = self.clock
        clock.register("kubelet.sync_status", lambda n: self._kubelet(n, "sync_status"))
        clock.register("kubelet.container_started", lambda n, k: self._kubelet(n, "container_started", k))
        clock.register("kubelet.container_starts", self.container_starts.run)
        clock.register("kubelet.container_stopped", lambda n, k: self._kubelet(n, "container_stopped", k))
        clock.register("kubelet.reconnected", lambda n: self._kubelet(n, "reconnected"))
        clock.register("nodeshutdown.group_timeout", self.nodeshutdown.group_timeout)
        clock.register("nodelifecycle.monitor", self.nodelifecycle.monitor)
        clock.register("nodelifecycle.taint_pass", self.nodelifecycle.taint_pass)
        clock.register("tainteviction.fire", self.tainteviction.fire)
        clock.register("workloads.sync", self.workloads.sync)
        clock.register("podgc.gc", self.podgc.gc)
        clock.register("disruption.sync", self.disruption.sync)
        clock.register("disruption.recheck", self.disruption.recheck)
        clock.register("statefulset.sync", self.statefulsets.sync)
        clock.register("attachdetach.reconcile", self.attachdetach.reconcile)
        clock.register("drain.retry", self.drain.retry)
        clock.register("drain.poll", self.drain.poll)
        clock.register("drain.deadline", self.drain.deadline)
        clock.register("scheduler.run", self.scheduler.run)
        clock.register("scheduler.flush_unschedulable", self.scheduler.flush_unschedulable)
        clock.register("timeline.apply", self._timeline_apply)
        clock.register("pods.create", self._create_scenario_pod)
        clock.register("pods.create_owned", self._create_owned_pods)
        clock.register("expect.check", self._check_expectation)

    def _clock_now(self) -> int:
        return self.clock.now

    def _kubelet(self, node_name: str, method: str, *args) -> None:
        kubelet = self.kubelets.get(node_name)
        if kubelet is not None:
            getattr(kubelet, method)(*args)

    @watches("added", "bound", "deleting", "removed")
    def _kubelet_watch(self, what: str, pod: Pod) -> None:
        kubelet = self.kubelets.get(pod.node_name or "")
        if kubelet is None:
            return
        if what == "bound" or (what == "added" and pod.node_name):
            kubelet.pod_bound(pod)
        elif what == "deleting":
            kubelet.pod_deleting(pod)
        elif what == "removed":
            kubelet.pod_removed(pod)

    def _kubelet_watch_together(self, what: str, pods: list[Pod]) -> None:
        """_kubelet_watch for each of `pods` in turn (Store._pods_changed): a pod on no node concerns
        no kubelet (a batch of creates, the open's)."""
        if what == "bound":
            start_bound_pods(self, pods)
            return
        for pod in pods:
            if pod.node_name:
                self._kubelet_watch(what, pod)

    # ---------------------------------------------------------------- building the cluster

    def _build(self) -> None:
        sc = self.scenario
        store = self.store
        for pc in (SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL):
            store.priority_classes[pc.name] = pc
        for spec in sc.priorityClasses:
            store.priority_classes[spec.name] = PriorityClass(
                spec.name, spec.value, spec.globalDefault, spec.preemptionPolicy, spec.description)
        for name, spec in sc.node_specs():
            self.add_node(name, spec, spec.kubelet)
        self.nodelifecycle.start()
        for spec in sc.daemonSets:
            self.workloads.add_daemonset(DaemonSet(spec.name, spec.namespace, template_from_spec(spec.template)))
        for spec in sc.deployments:
            self.workloads.add_deployment(deployment_from_spec(spec))
        for spec in getattr(sc, "statefulSets", []):
            self.statefulsets.add(StatefulSet(spec.name, spec.namespace, spec.replicas, template_from_spec(spec.template),
                                              spec.volumeClaimTemplate, spec.podManagementPolicy))
        for spec in sc.podDisruptionBudgets:
            pdb = PodDisruptionBudget(spec.name, spec.namespace, dict(spec.selector), spec.minAvailable,
                                      spec.maxUnavailable,
                                      unhealthy_pod_eviction_policy=getattr(spec, "unhealthyPodEvictionPolicy", None))
            self.disruption.add_pdb(pdb)
        self.podgc.start()
        for index, spec in enumerate(sc.pods):
            self.clock.call_at(spec.at or 0, PHASE_OPERATIONS, "pods.create", index)
        for index in range(len(sc.ownedPods)):
            self.clock.call_at(0, PHASE_OPERATIONS, "pods.create_owned", index)
        self._script_ids = self.clock.reserve(SCRIPT_IDS)
        self._schedule_script(0)

    def _schedule_script(self, after: int) -> None:
        """The timeline's and the expectations' timers due at or after `after` ms, with ids set aside
        at the build: ordered after the build's timers and before any timer of the run, however many
        entries there are. So instant 0 does not depend on what the scenario scripts later, and an
        opened state kept for one script serves another (openstate.py, `adopt_script`)."""
        sc = self.scenario
        first = self._script_ids
        clock = self.clock
        for index, entry in enumerate(sc.timeline):
            if entry.at >= after:
                phase = PHASE_AFTER_CONTROLLERS if entry.afterControllers else PHASE_OPERATIONS
                clock.call_with_id(first + index, entry.at, phase, "timeline.apply", index)
        first += len(sc.timeline)
        for index, exp in enumerate(sc.expect):
            if exp.at >= after:
                clock.call_with_id(first + index, exp.at, PHASE_EXPECT, "expect.check", index)

    def opening_key(self) -> bytes:
        """What instant 0 depends on: the scenario without its name, description, duration and the
        timeline and expectations after t=0 (their timers come later; see _schedule_script)."""
        sc = self.scenario
        meta = sc.scenario.model_copy(update={"name": "", "description": "", "duration": 0})
        opening = sc.model_copy(update={
            "scenario": meta,
            "timeline": [entry for entry in sc.timeline if entry.at == 0],
            "expect": [exp for exp in sc.expect if exp.at == 0],
        })
        at_zero = ([i for i, entry in enumerate(sc.timeline) if entry.at == 0],
                   [i for i, exp in enumerate(sc.expect) if exp.at == 0])
        return opening.model_dump_json().encode() + repr(at_zero).encode()

    def adopt_script(self) -> None:
        """After restoring an opened state kept for another script of the same opening (the same
        opening_key): that script's later timers go, this scenario's come, with the ids a build of
        this scenario gives them."""
        self.clock.remove(lambda entry: entry[0] == 0 or entry[3] not in SCRIPT_HANDLERS)
        self._schedule_script(1)
        self.duration = self.scenario.scenario.duration

    def add_node(self, name: str, spec, kubelet_settings: KubeletSettings) -> Node:
        self._node_specs[name] = (spec, kubelet_settings)
        known = self._kubelet_configs.get(id(kubelet_settings))
        if known is None or known[0] is not kubelet_settings:
            known = self._kubelet_configs[id(kubelet_settings)] = (
                kubelet_settings, kubelet_config(self.scenario.kubelet, kubelet_settings))
        kconfig = known[1]
        node = self._new_node(name, spec, kconfig)
        kubelet = Kubelet(self, name, kconfig)
        self.kubelets[name] = kubelet
        self.store.add_node(node)
        kubelet.register()
        return node

    def register_node(self, name: str) -> Node:
        """The kubelet's registerWithAPIServer after its Node object was deleted: the same labels,
        capacity and --register-with-taints, a new uid and creation time."""
        spec, _settings = self._node_specs[name]
        node = self._new_node(name, spec, self.kubelets[name].config)
        self.store.add_node(node)
        return node

    def _new_node(self, name: str, spec, kconfig: KubeletConfig) -> Node:
        allocatable = spec.allocatable or spec.capacity
        labels = {"kubernetes.io/hostname": name, **spec.labels}
        taints = []
        for text in spec.taints:
            key, value, effect = parse_taint(text)
            taints.append(Taint(key, effect, value, self.clock.now))
        node = Node(
            name=name, uid=self.store.new_uid(), labels=labels,
            capacity_cpu=spec.capacity.cpu, capacity_memory=spec.capacity.memory,
            capacity_pods=min(spec.capacity.pods, kconfig.max_pods),
            allocatable_cpu=allocatable.cpu, allocatable_memory=allocatable.memory,
            allocatable_pods=min(allocatable.pods, kconfig.max_pods),
            creation_time=self.clock.now, unschedulable=spec.unschedulable, taints=taints,
            zone=zone_key(labels),
        )
        return node

    def _create_scenario_pod(self, index: int) -> None:
        spec = self.scenario.pods[index]
        if getattr(spec, "owner", None) or getattr(spec, "mirror", False):
            self._create_existing_pod(spec)
            return
        template = template_from_spec(spec)
        op = Operation("create-pod", pod=spec.name, namespace=spec.namespace, template=template,
                       pod_node_name=spec.nodeName)
        self.operations.apply(op, origin="scenario")

    def _create_existing_pod(self, spec) -> None:
        """A pod that existed when its cluster was imported: bound to its node as it was, and owned by
        its workload, which counts it as a replica (as a controller adopts the pods its selector
        matches) instead of creating one."""
        own_fields = bool(spec.model_fields_set & POD_TEMPLATE_FIELDS)
        owner = None
        if spec.owner:
            owner, template = self._existing_owner(spec.owner, spec.namespace,
                                                   template_from_spec(spec) if own_fields else None)
        else:
            template = template_from_spec(spec)
        self._add_existing_pod(spec.name, spec.namespace, spec.nodeName, owner, template, bool(spec.mirror))

    def _create_owned_pods(self, index: int) -> None:
        """An [[ownedPods]] list: each pod as a [[pods]] entry of only its name, namespace, nodeName and
        owner would be created, in order (one timer, the workload's template taken once)."""
        group = self.scenario.ownedPods[index]
        owner, template = self._existing_owner(group.owner, group.namespace, None)
        add = self._add_existing_pod
        for _index, name, node_name in group.entries():
            add(name, group.namespace, node_name, owner, template, False)

    def _existing_owner(self, owner_text: str, namespace: str, own: PodTemplate | None
                        ) -> tuple[OwnerRef, PodTemplate]:
        """The OwnerRef of an existing pod of `owner_text` ("Deployment/web") and the template it runs:
        its own (`own`) or its workload's; a Deployment's pods are its new ReplicaSet's."""
        kind, _, name = owner_text.partition("/")
        if kind == "Deployment":
            deployment = self.store.deployments[name]
            # The ReplicaSet exists before its pods do (as in the cluster imported), so the
            # disruption controller finds their controller at t=0.
            self.workloads.deployments.get_all_replica_sets(deployment, create=True)
            rs_hash = self.workloads.deployments.template_hash(deployment)
            return (OwnerRef("ReplicaSet", f"{name}-{rs_hash}"),
                    replica_set_template(own if own is not None else deployment.template, rs_hash))
        if kind == "DaemonSet":
            base = self.store.daemonsets[name].template
            return OwnerRef("DaemonSet", name), own if own is not None else base
        base = self.store.statefulsets[f"{namespace}/{name}"].template
        return OwnerRef("StatefulSet", name), own if own is not None else base

    def _add_existing_pod(self, name: str, namespace: str, node_name: str | None, owner: OwnerRef | None,
                          template: PodTemplate, mirror: bool) -> None:
        pod = pod_from_template(self, name, namespace, template, owner)
        pod.mirror = mirror
        if owner is not None and owner.kind == "DaemonSet":
            pod.affinity_node_name = node_name
            pod.tolerations = pod.tolerations + DAEMON_TOLERATIONS
        if owner is not None and owner.kind == "StatefulSet":
            statefulset = self.store.statefulsets[f"{namespace}/{owner.name}"]
            pod.labels = {**pod.labels, POD_NAME_LABEL: name}
            claim = claim_name(statefulset, name)
            if claim is not None:
                if not self.attachdetach.has_claim(namespace, claim):
                    self.attachdetach.create_claim(namespace, claim)
                pod.volume_claims = (claim,)
        if node_name and node_name in self.store.nodes:
            pod.node_name = node_name
        try:
            self.apiserver.create_pod(pod)
        except AdmissionError as exc:
            self.store.event("Warning", "FailedCreate", pod.ref, f"Error creating: {exc}", "playground-import")

    def _timeline_apply(self, index: int) -> None:
        entry = self.scenario.timeline[index]
        self.operations.apply(operation_from_entry(entry), origin="timeline",
                              after_controllers=bool(entry.afterControllers))

    # ---------------------------------------------------------------- running

    @property
    def now(self) -> int:
        return self.clock.now

    def step(self) -> ChangeSet:
        """Advance one tick and return what changed."""
        self.run_until_ms(self.clock.now + self.tick)
        return self.store.take_changes()

    def run_until(self, seconds: float) -> ChangeSet:
        """Run to `seconds` of virtual time, jumping over instants with nothing due."""
        self.run_until_ms(int(round(seconds * 1000)))
        return self.store.take_changes()

    def run_until_ms(self, until: int) -> None:
        self.open_now()
        self._run_to(until)

    @property
    def opened(self) -> bool:
        """Instant 0 has run: the scenario stands in its steady state (see _open)."""
        return self._opened

    def open_now(self, freeze: bool = False) -> None:
        """Run instant 0 if it has not run yet (see _open). `freeze`: for the CLI and the TUI, which
        keep the opened cluster out of the garbage collector's sight (freeze_heap)."""
        if not self._opened:
            self._opened = True
            self._open(freeze)

    def _open(self, freeze: bool = False) -> None:
        """Instant 0, where a scenario opens in its steady state (every pod created at t=0 placed),
        with the garbage collector paused: a big scenario makes millions of objects there and none
        of them is garbage, so collections would only rescan them (about 7 % of opening 150,000
        pods). The run is the same as without the pause. With an `open_cache`, a state kept from an
        earlier open of the same scenario by the same code is restored instead (openstate.py).

        `freeze` freezes the opened cluster before the collector runs again; the caller has frozen
        the heap before (freeze_heap, which also collects what an earlier open froze). Freezing
        after the open instead walked the 150,000-pod cluster twice, 0.25-0.3 s each: the
        collector's first run after the pause (every object made in it is young) and freeze_heap's
        collection. Instant 0 makes no cyclic garbage for that collection to find (measured at
        150,000 pods); whatever it might make stays frozen until the next freeze_heap releases it."""
        with no_gc():
            if self.open_cache is not None:
                self.open_cache.open_sim(self, self._run_instant_zero)
            else:
                self._run_instant_zero()
            if freeze:
                gc.freeze()
                gc.set_threshold(*COLLECTOR_THRESHOLDS)

    def _run_instant_zero(self) -> None:
        with self.store.changing_everything():  # the whole cluster is new (Store.changing_everything)
            self._run_to(0)  # (under _open's pause of the collector)

    def _run_to(self, until: int) -> None:
        if self.history is not None:
            self.history.advance(until)  # follows the recorded future, samples the figures
        else:
            self.clock.run_due(until)

    # ---------------------------------------------------------------- time travel (history.py)

    def enable_history(self, budget: int | None = None) -> History:
        """Start recording checkpoints, the operation log and the figures over time, from now."""
        if self.history is None:
            self.history = History(self) if budget is None else History(self, budget)
            self.history.start()
        return self.history

    def seek(self, seconds: float) -> ChangeSet:
        """Go to the instant `seconds` of this session, back or forward (see history.py)."""
        self.enable_history().seek(int(round(seconds * 1000)))
        return self.store.take_changes()

    def rewind(self, seconds: float) -> ChangeSet:
        """Go back `seconds` of virtual time (not before the start)."""
        return self.seek(max(0.0, self.clock.now / 1000 - seconds))

    def forward(self, seconds: float) -> ChangeSet:
        """Go forward `seconds` along the recorded future, not past the furthest instant reached."""
        self.enable_history().forward(int(round(seconds * 1000)))
        return self.store.take_changes()

    def apply(self, operation: Operation) -> OperationResult:
        """Apply an operation now (from a key, the API or a test), after the controllers of this
        instant: the instant is finished first (see the module docstring). An invalid operation is
        refused (result.ok False) without changing anything or entering the history."""
        self.clock.run_due(self.clock.now)
        before = len(self.operations.history)
        result = self.operations.apply(operation, after_controllers=True)
        if self.history is not None:
            self.history.record(operation, len(self.operations.history) > before)
        return result

    def session_entries(self) -> list[dict]:
        """The timeline entries of this session's live operations, in the order they were applied:
        every valid operation, refused or not (a refused drain still cordoned its node)."""
        entries = []
        for result in self.operations.history:
            if result.origin == "user" and result.operation is not None:
                entry = entry_from_operation(result.operation, result.time)
                if result.after_controllers:
                    entry["afterControllers"] = True
                entries.append(entry)
        return entries

    def replay_scenario(self) -> Scenario:
        """The scenario plus every operation a user applied so far, as timeline entries at their
        times, so that loading it replays this session; its duration covers the session so far."""
        return self.scenario_with(self.session_entries(), self.clock.now)

    def scenario_with(self, entries: list[dict], covered: int) -> Scenario:
        """The scenario plus `entries` in its timeline, its duration covering `covered` ms."""
        data = self.scenario.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)
        timeline = list(data.get("timeline", [])) + entries
        timeline.sort(key=lambda entry: parse_duration(entry["at"]))  # stable: same-instant order kept
        if timeline:
            data["timeline"] = timeline
        covered = min(covered, MAX_TIME_MS)
        if covered > self.duration:
            data["scenario"]["duration"] = format_duration(covered)
        return Scenario.model_validate(data)

    def save(self, path: str | Path, scenario: Scenario | None = None) -> Path:
        """Save this session (replay_scenario) to `path` atomically, keeping the file's mode and a
        symlink's target (README, "Saving"); returns the file written. Raises OSError or
        ScenarioError, never leaving a temporary file behind."""
        from pydantic import ValidationError

        from ..scenario.loader import Problem, ScenarioError, dump_scenario, parse_scenario, problem_text
        from ..scenario.saving import write_atomically

        try:
            scenario = scenario or self.replay_scenario()
        except ValidationError as exc:  # not expected: operations are validated when applied
            raise ScenarioError(str(path), [Problem("", None, problem_text(e)) for e in exc.errors()]) from None
        text = dump_scenario(scenario)
        parse_scenario(text, str(path))  # never write what could not be read back
        return write_atomically(path, text)

    # ---------------------------------------------------------------- expectations

    def _check_expectation(self, index: int) -> None:
        from .expectations import check

        exp = self.scenario.expect[index]
        checks = check(self, exp)
        self.expectation_results.append(ExpectationResult(
            index, self.clock.now, exp.description, all(c[3] for c in checks), checks))


def entry_from_operation(op: Operation, at: int) -> dict:
    entry: dict = {"at": format_duration(at), "do": op.do}
    if op.do == "create-pod":
        if op.pod_node_name:
            entry["node"] = op.pod_node_name
        if op.template is not None:
            entry["spec"] = spec_from_template(op.template)
    elif op.node:
        entry["node"] = op.node
    if op.overwrite:
        entry["overwrite"] = op.overwrite
    for key, value in (("taint", op.taint), ("pod", op.pod), ("deployment", op.deployment),
                       ("replicas", op.replicas), ("gracePeriodSeconds", op.grace_period_seconds),
                       ("podSelector", op.pod_selector), ("skipWaitForDeleteTimeout", op.skip_wait_for_delete_timeout)):
        if value is not None:
            entry[key] = value
    if op.timeout is not None:
        entry["timeout"] = format_duration(op.timeout)
    if op.pod_spec:
        entry["spec"] = dict(op.pod_spec)
    if op.strategy:
        entry["strategy"] = dict(op.strategy)
    for key, flag in (("ignoreDaemonsets", op.ignore_daemonsets), ("deleteEmptydirData", op.delete_emptydir_data),
                      ("force", op.force), ("disableEviction", op.disable_eviction)):
        if flag:
            entry[key] = flag  # a non-boolean here is refused by the entry's validation
    if op.namespace != "default":
        entry["namespace"] = op.namespace
    return entry


def spec_from_template(template: PodTemplate) -> dict:
    spec: dict = {"labels": dict(template.labels),
                  "requests": {"cpu": format_cpu(template.cpu), "memory": format_memory(template.memory)},
                  "terminationGracePeriodSeconds": template.termination_grace_period_seconds,
                  "startDuration": format_duration(template.start_duration)}
    if template.priority_class_name:
        spec["priorityClassName"] = template.priority_class_name
    elif template.priority is not None:
        spec["priority"] = template.priority
    if template.tolerations:
        spec["tolerations"] = [
            {k: v for k, v in (("key", t.key), ("operator", t.operator), ("value", t.value), ("effect", t.effect),
                               ("tolerationSeconds", t.toleration_seconds)) if v not in ("", None)}
            for t in template.tolerations
        ]
    if template.node_selector:
        spec["nodeSelector"] = dict(template.node_selector)
    if template.stop_duration is not None:
        spec["stopDuration"] = format_duration(template.stop_duration)
    if template.empty_dir:
        spec["emptyDir"] = True
    affinity = node_affinity_to_spec(template.required_node_affinity, template.preferred_node_affinity)
    pod_affinity = pod_affinity_to_spec(template)
    if affinity is not None or pod_affinity:
        spec["affinity"] = {**(affinity or {}), **pod_affinity}
    if template.topology_spread_constraints:
        spec["topologySpreadConstraints"] = spread_to_spec(template.topology_spread_constraints)
    return spec


def operation_from_entry(entry) -> Operation:
    rollout = entry.do == "rollout"
    template = template_from_spec(entry.spec) if entry.spec is not None and not rollout else None
    creates = entry.do == "create-pod"
    return Operation(
        do=entry.do, node=None if creates else entry.node, pod_node_name=entry.node if creates else None,
        taint=entry.taint, pod=entry.pod, namespace=entry.namespace,
        deployment=entry.deployment, replicas=entry.replicas, grace_period_seconds=entry.gracePeriodSeconds,
        template=template,
        ignore_daemonsets=bool(entry.ignoreDaemonsets), delete_emptydir_data=bool(entry.deleteEmptydirData),
        force=bool(entry.force), timeout=entry.timeout, disable_eviction=bool(entry.disableEviction),
        pod_selector=entry.podSelector, skip_wait_for_delete_timeout=entry.skipWaitForDeleteTimeout,
        overwrite=bool(entry.overwrite),
        pod_spec=entry.spec.model_dump(exclude_unset=True) if rollout and entry.spec is not None else None,
        strategy=entry.strategy.model_dump(exclude_unset=True) if getattr(entry, "strategy", None) else None,
    )

