"""Runs of equivalent pods: many scheduling cycles in one compiled loop, with the same outcome as
one cycle after another.

kube-scheduler once kept an equivalence cache: pods of one controller ask the same of every node, so
what the filters said of one could serve the next. Here the same observation buys speed without
reuse: consecutive pods of the scheduling queue that the cycle cannot tell apart (one template:
the same requests, tolerations, node selection, spread constraints and labels) are placed by one
call of `place_pods`, a loop in C (`_placement.c`) that runs each pod's cycle as
`Scheduler._schedule_one` does on the node columns:

- the round-robin window from next_start over the feasible rows (numFeasibleNodesToFind of them);
- the scores: LeastAllocated and BalancedAllocation (the placement's per-node part), TaintToleration
  and NodeAffinity normalized over the window, PodTopologySpread's ScheduleAnyway constraints of the
  system defaults' shape (HOST_ZONE in podtopologyspread.py: a hostname and a zone constraint, the
  zone's pods counted on every node or, for a pod that selects nodes, on those it may run on; the
  same pair the other way round, ZONE_HOST) or a lone hostname one (HOST_ONLY, as HOST_ZONE with a
  zone term of 0: the usual partner of a zone DoNotSchedule constraint) in the same float64
  operations, in the same order, rounded as math.Round;
- InterPodAffinity for a pod without required affinity whose terms that count for it are each on a
  key where every node is its own domain (a hostname: charts' soft and hard anti-affinity against
  their own pods): each row's raw score (interpodaffinity.run_inputs), normalized over the window
  as NormalizeScore does in float64, a bind adding its change to the bound row's; the filter's
  verdict before the run on the feasible rows, a bind ruling its row out where the pod's required
  anti-affinity selects the pod itself;
- the tie-break: Python's `random.Random.randrange` on the simulation's generator, drawn here from a
  copy of its Mersenne Twister state (the same 32-bit words, the same rejection loop);
- the bind's effect on what the next cycle reads: the row's requests, pod count, feasibility and
  per-node score, the matching pods' host and zone counts.

Where no component would react to one bind of the run before the next (`quiet_binds`: no pending
pod the topology plugins rejected, no budget, no volume, no taint eviction, every kubelet admits),
the run's pods are bound with one store write (`_bind_together`: their Scheduled events kept as one
EventRun, each watcher told of every pod before the next watcher, as Store.add_pods does for a
batch of creates). Otherwise the scheduler binds them one by one through its ordinary path (events,
store, kubelets), checking after each bind that nothing else changed what the next cycle reads
(another row, a nomination, a node's taints, a pod added to the queue, a kubelet rejecting the pod).
Where something did, the run ends there: the rest of the run goes back to the queue as it was,
next_start and the generator as after the last pod bound, and the ordinary cycle goes on. What the run cannot model
(nominated pods, required pod affinity, pod affinity terms that count on keys other than hostname, DoNotSchedule spread
constraints other than one on a key every row counts for, ScheduleAnyway ones of another shape, a
filter list other than the default) keeps the ordinary cycle. A bind's cluster events reach the
pods in unschedulablePods as after an ordinary cycle; one that moves a pod back to the queue (a push) ends the run. tests/test_equivalence.py
compares both on random clusters, and every shipped scenario with runs of any length.

A pod alone (after an eviction, each ReplicaSet replaces its pod: one pod of each template in turn)
has no run, but its cycle is read by the same compiled code (`place_one`, `choose_one` in
_placement.c): the window, the scores and the best row in one call on the live columns, which it
only reads; the bind and a tie's draw stay the scheduler's own. Where that code does not model the
cycle (the same cases as a run, and a cycle where no node fits), the numpy cycle runs.
tests/test_equivalence.py compares both on the same random clusters.

The loop is C, not numba: numba would add 0.3 s to every big open (its import and first call) and
about 100 MiB to the process (LLVM), half the memory a 150,000-pod cluster needs. Without the
compiled module (no C compiler at install: `setup.py` marks it optional), `LOOP` is None and every
pod takes the ordinary cycle, to the same result.
"""

from __future__ import annotations

import math
import random
from itertools import islice
from operator import attrgetter

import numpy as np

from .. import binds
from ..objects import PENDING
from . import num_feasible_nodes_to_find
from .interpodaffinity import WEIGHT as POD_AFFINITY_WEIGHT
from .interpodaffinity import RunInputs
from .interpodaffinity import active as affinity_active
from .interpodaffinity import run_inputs as affinity_run_inputs
from .plugins import DEFAULT_FILTERS, NODE_AFFINITY, TAINT_TOLERATION
from .podtopologyspread import (
    DO_NOT_SCHEDULE,
    HOST_ONLY,
    HOST_ZONE,
    MAX_PAIRS,
    SCHEDULE_ANYWAY,
    WEIGHT,
    ZONE_HOST,
    HostZoneTable,
    _shape,
    eligible_rows,
    every_row_counts,
    selects_nodes,
    swapped,
)
from .queue import ACTIVE, IN_FLIGHT

try:
    from . import _placement
    LOOP = _placement.place_pods
    CHOOSE_ONE = _placement.choose_one
except ImportError:  # not built: the ordinary cycle places every pod
    LOOP = CHOOSE_ONE = None

MT_N = 624  # the Mersenne Twister's words
# The rows of the state matrix that the loop reads and updates, in _placement.c's order.
STATE_ROWS = ("ok", "feasible", "local", "alloc_cpu", "alloc_memory", "alloc_pods", "req_cpu", "req_memory",
              "nz_cpu", "nz_memory", "pod_count", "prefer_raw", "affinity_raw", "host_live", "zone_ids", "skew_ids",
              "pod_affinity_raw")
ROW = {name: i for i, name in enumerate(STATE_ROWS)}
COPIED = ("alloc_cpu", "alloc_memory", "alloc_pods", "req_cpu", "req_memory", "nz_cpu", "nz_memory", "pod_count")


_LOGS: dict[int, np.ndarray] = {}


def log_table(n: int) -> np.ndarray:
    """math.log(k + 2) for k in 0..n: PodTopologySpread's normalizing weights, computed as Python
    computes them (the compiled loop reads them, it does not take logarithms)."""
    table = _LOGS.get(n)
    if table is None:
        table = _LOGS[n] = np.array([math.log(k + 2) for k in range(n + 1)], dtype=np.float64)
    return table


def mt_state(rng: random.Random) -> tuple[np.ndarray, int]:
    """A copy of `rng`'s Mersenne Twister words and index, for the compiled loop to draw from."""
    internal = rng.getstate()[1]
    return np.array(internal[:MT_N], dtype=np.int64), internal[MT_N]


def advance(rng: random.Random, words: int) -> None:
    """Move `rng` on by `words` 32-bit words (getrandbits(32 k) draws exactly k)."""
    if words:
        rng.getrandbits(32 * words)


# ---------------------------------------------------------------- the scheduler's side

class Signature:
    """What a cycle reads of the first pod of a run: a later pod equal to it in all of this is
    equivalent (`equivalent`)."""

    __slots__ = ("first", "cls", "spread", "skew", "skew_sums", "affinity")

    def __init__(self, first, cls, spread: "SpreadInputs | None", skew=None,
                 skew_sums: np.ndarray | None = None, affinity: RunInputs | None = None) -> None:
        self.first = first
        self.cls = cls  # snapshot.PodClass: tolerations, node selection
        self.spread = spread  # what the loop reads of the ScheduleAnyway constraints (its zone sums a copy)
        self.skew = skew  # the one DoNotSchedule constraint, or None
        self.skew_sums = skew_sums  # its matching pods per domain (a copy), or None
        self.affinity = affinity  # what the loop reads of InterPodAffinity (run_inputs), or None


def signature(scheduler, pod) -> Signature | None:
    """The run signature of `pod`, or None when its cycle needs what a run does not model."""
    topology = scheduler.topology
    if (scheduler.filters is not DEFAULT_FILTERS or scheduler.nominated or pod.nominated_node_name
            or scheduler.prefilter_node_names(pod) is not None):
        return None
    columns = scheduler.columns
    columns.sync(scheduler.node_order(), scheduler.filters)
    affinity = None
    if affinity_active(pod, topology.counts):
        affinity = affinity_run_inputs(columns, topology.counts, pod, scheduler.sim.store.nodes)
        if affinity is None:
            return None
    skew = skew_sums = None
    filtering = topology.constraints(pod, DO_NOT_SCHEDULE)
    if filtering:
        # One DoNotSchedule constraint on whose key every row counts (the filter reads the kept
        # domain sums: podtopologyspread.filter_columns); others keep the cycle.
        if len(filtering) > 1 or not every_row_counts(columns, pod, filtering):
            return None
        skew = filtering[0]
        counts = topology.counts
        skew_sums = counts.domain_live(counts.counts(skew.matcher), skew.topology_key).copy()
    spread = topology.constraints(pod, SCHEDULE_ANYWAY)
    inputs = None
    if spread:
        inputs = spread_inputs(columns, topology.counts, pod, spread, run=True)
        if inputs is None:
            return None
    cls = columns.pod_class(pod, scheduler.filters)
    feasible = columns.placement(pod, cls).feasible
    if affinity is not None and affinity.passes is not None:
        feasible = feasible & affinity.passes
    if not feasible.any():
        return None  # its cycle fails: the ordinary one says why
    return Signature(pod, cls, inputs, skew, skew_sums, affinity)


class SpreadInputs:
    """What the compiled code reads of a pod's ScheduleAnyway constraints: the matching pods per
    row of the hostname constraint, each row's zone id, the zone constraint's matching pods per
    zone, the pair table's bounds, maxSkew - 1 of each and whether the pod matches each selector.
    HOST_ONLY is HOST_ZONE with one domain holding no pod, whose maxSkew - 1 is 0 and which the pod
    does not match: each row's zone term is 0 x weight + 0 = 0.0, which changes no sum."""

    __slots__ = ("host_live", "zone_ids", "zone_sums", "live_max", "domains", "host_extra", "zone_extra",
                 "host_match", "zone_match")

    def params(self) -> tuple:
        """The loop's spread parameters (P_SPREAD .. P_SPREAD_WEIGHT)."""
        return (1, self.live_max, self.domains, self.host_extra, self.zone_extra, self.host_match, self.zone_match,
                WEIGHT)


def spread_inputs(columns, counts, pod, spread: tuple, run: bool) -> SpreadInputs | None:
    """The compiled code's inputs for `spread` (the pod's ScheduleAnyway constraints), or None where
    it does not model their score: another shape, or a pair table too large (HostZoneTable.plan).
    A run gets its own zone sums (the loop adds its binds to them); one pod (`run` False: place_one,
    which only reads them) the plan's, or, where the zone's pods count over the nodes the pod may
    run on, their sums there."""
    shape = _shape(columns, spread)
    inputs = SpreadInputs()
    if shape is ZONE_HOST:
        spread, shape = swapped(spread), HOST_ZONE
    if shape is HOST_ZONE:
        plan = HostZoneTable.plan(columns, counts, spread)
        if plan is None:
            return None
        inputs.zone_ids = columns.domains(plan.key)[0]
        inputs.zone_sums = spread_zone_sums(columns, counts, pod, spread, plan) if run or selects_nodes(pod) \
            else plan.sums
        inputs.domains, inputs.zone_extra = plan.domains, spread[1].max_skew - 1
        inputs.zone_match = int(spread[1].matcher.matches(pod))
        host = plan.host
    elif shape is HOST_ONLY:
        host = counts.counts(spread[0].matcher)
        if host.live_max + 1 > MAX_PAIRS:
            return None
        inputs.zone_ids = _zeros(len(columns.nodes))
        inputs.zone_sums = np.zeros(1, dtype=np.int64)
        inputs.domains, inputs.zone_extra, inputs.zone_match = 1, 0, 0
    else:
        return None
    inputs.host_live, inputs.live_max = host.live, host.live_max
    inputs.host_extra, inputs.host_match = spread[0].max_skew - 1, int(spread[0].matcher.matches(pod))
    return inputs


_ZEROS: dict[int, np.ndarray] = {}


def _zeros(n: int) -> np.ndarray:
    """HOST_ONLY's zone ids: every row in domain 0 (read, never written)."""
    return _kept(_ZEROS, n, writeable=False)


def _kept(cache: dict[int, np.ndarray], size: int, writeable: bool = True) -> np.ndarray:
    """An int64 array of `size` zeros, one per size in `cache`."""
    array = cache.get(size)
    if array is None:
        array = cache[size] = np.zeros(size, dtype=np.int64)
        array.flags.writeable = writeable
    return array


def spread_zone_sums(columns, counts, pod, spread: tuple, plan) -> np.ndarray:
    """The zone constraint's matching pods per zone as PodTopologySpread's score counts them: over
    every node (the plan's sums), or, when the pod selects nodes and the constraint honors node
    affinity (nodeAffinityPolicy: Honor, the default), over the nodes the pod may run on
    (podtopologyspread._score_columns). A bind in the run lands on such a node, so the loop adds it."""
    zone_c = spread[1]
    if not selects_nodes(pod) or not zone_c.honor_affinity:
        return plan.sums.copy()
    ids, _has, count = columns.domains(zone_c.topology_key)
    eligible = eligible_rows(columns, pod, zone_c, np.ones(len(columns.nodes), dtype=bool))
    live = counts.counts(zone_c.matcher).live
    return np.bincount(ids[eligible], weights=live[eligible], minlength=count).astype(np.int64)


def equivalent(pod, first) -> bool:
    """`pod` is due a cycle (the run loop would not skip it) that reads what `first`'s reads: the
    keys of its pod class (snapshot.class_key), of its placement (requests), of its spread
    constraints (Topology.constraints: namespace, labels, owner, its own constraints), of
    NodeAffinity's score and of InterPodAffinity (its terms; `signature` says whether a run models
    them)."""
    return (not pod.node_name and pod.is_active()
            and not pod.nominated_node_name and pod.labels is first.labels and pod.namespace == first.namespace
            and pod.cpu == first.cpu and pod.memory == first.memory and pod.tolerations == first.tolerations
            and pod.node_selector == first.node_selector and pod.required_node_affinity == first.required_node_affinity
            and pod.affinity_node_name == first.affinity_node_name
            and pod.preferred_node_affinity == first.preferred_node_affinity
            and pod.topology_spread_constraints == first.topology_spread_constraints
            and (pod.owner is first.owner or pod.owner == first.owner)  # (a dataclass's __eq__: a call)
            and pod.required_pod_affinity == first.required_pod_affinity
            and pod.preferred_pod_affinity == first.preferred_pod_affinity
            and pod.required_pod_anti_affinity == first.required_pod_anti_affinity
            and pod.preferred_pod_anti_affinity == first.preferred_pod_anti_affinity)


# What `equivalent` compares with the first pod, and what it asks of the pod alone (as a new pod
# of its template has it: unbound, not nominated, not being deleted, Pending): read
# in one call, compared as one tuple (each item by identity first, as the pods of one template
# share their objects).
_SHARED_FIELDS = (
    "namespace", "cpu", "memory", "tolerations", "node_selector", "required_node_affinity", "affinity_node_name",
    "preferred_node_affinity", "topology_spread_constraints", "owner", "required_pod_affinity",
    "preferred_pod_affinity", "required_pod_anti_affinity", "preferred_pod_anti_affinity")
_FRESH = {"node_name": None, "nominated_node_name": "", "deletion_timestamp": None, "phase": PENDING}
RUN_FIELDS = (*_SHARED_FIELDS, *_FRESH)
_RUN_KEY = attrgetter(*RUN_FIELDS)
_SHARED_KEY = attrgetter(*_SHARED_FIELDS)


def run_key(first) -> tuple:
    """The _RUN_KEY a pod equivalent to `first` has when it is a new pod of its template. A pod
    whose key equals it and whose labels are first's is equivalent; one whose key differs may be
    too (a Running pod without a node, say): `equivalent` says."""
    return (*_SHARED_KEY(first), *_FRESH.values())


def place_run(scheduler, first, first_info, limit: int, least: int) -> int:
    """Pop the pods after `first` (already popped) that are equivalent to it, up to `limit` in all,
    place at least `least` of them with one compiled loop and bind them, and put back what was
    popped and not bound. Returns how many pods were bound (0: `first` takes the ordinary cycle)."""
    queue = scheduler.queue
    pods = scheduler.sim.store.pods
    following = queue.peek()
    following_pod = pods.get(following.key) if following is not None else None
    # Most pods have no equivalent next (a pod of each ReplicaSet replaced in turn): that costs a
    # look at the next pod, nothing more.
    if LOOP is None or following_pod is None or not equivalent(following_pod, first):
        return 0
    sig = signature(scheduler, first)
    if sig is None:
        return 0
    run = [(first, first_info)]
    popped = []
    key, labels = run_key(first), first.labels
    front = queue.front_run()
    if front is not None:  # (pops() over the first pair's entries, most of a run, in one call)
        taken, pending = binds.take_run(front, queue.infos, pods, limit - 1, labels, RUN_FIELDS, key, ACTIVE,
                                        IN_FLIGHT)
        run += taken
        if pending is not None:
            pod = pods.get(pending.key)
            if pod is None or not equivalent(pod, first):
                popped.append(pending)
            else:
                run.append((pod, pending))
    if not popped:  # (the next pairs, and a pod equivalent though its key differs: pops() itself)
        for info in islice(queue.pops(), limit - len(run)):
            pod = pods.get(info.key)
            if pod is None or not (pod.labels is labels and _RUN_KEY(pod) == key or equivalent(pod, first)):
                popped.append(info)
                break
            run.append((pod, info))
    bound = _place(scheduler, run, sig) if len(run) >= least else 0
    for _pod, info in run[max(bound, 1):]:
        popped.append(info)
    for info in popped:
        queue.restore(info)
    return bound


def place_one(scheduler, pod, order: list) -> int | None:
    """One pod's cycle by the compiled code, when it models it: the row `pod` goes to (next_start
    moved on and the tie drawn, as `Scheduler._schedule_one` would), or None for the ordinary cycle
    (nothing changed). A pod alone (the one replacement of each ReplicaSet after an eviction) has no
    run, and its ordinary cycle is a dozen array operations of a few microseconds each over its
    window; `choose_one` reads the same columns in one call. It models what the run loop models
    (`signature`) and binds nothing: the window, the scores and the best row; a cycle where no node
    fits goes to the ordinary one, which says why. Unlike a run, it takes a pod with DoNotSchedule
    spread constraints: their verdict over the rows (the cycle's, as _find_rows reads it) takes the
    rows they reject out of the window."""
    if CHOOSE_ONE is None or scheduler.nominated:
        return None
    cycle = scheduler.cycle_of(pod)
    if cycle.affinity_active:
        return None
    columns = scheduler.columns
    columns.sync(order, scheduler.filters)
    spread = cycle.score_constraints
    host_live = zone_ids = zone_sums = None
    live_max = domains = host_extra = zone_extra = 0
    if spread:
        inputs = spread_inputs(columns, scheduler.topology.counts, pod, spread, run=False)
        if inputs is None:
            return None
        host_live, zone_ids, zone_sums = inputs.host_live, inputs.zone_ids, inputs.zone_sums
        live_max, domains = inputs.live_max, inputs.domains
        host_extra, zone_extra = inputs.host_extra, inputs.zone_extra
    cls = columns.pod_class(pod, scheduler.filters)
    placement = columns.placement(pod, cls)
    feasible = placement.feasible
    if cycle.filters:  # PodTopologySpread's DoNotSchedule constraints: the rows they reject, as _find_rows
        feasible = feasible & (cycle.verdict()[0] == 0)
    n = len(order)
    to_find = num_feasible_nodes_to_find(n, scheduler.config.percentage_of_nodes_to_score)
    tied = _tied(to_find)
    processed, found, row, ties = CHOOSE_ONE(
        feasible, placement.local, columns.prefer_raw(cls, pod) if columns.prefer_count else None,
        columns.affinity_raw(pod) if pod.preferred_node_affinity else None, host_live, zone_ids, zone_sums,
        log_table(n), tied, scheduler.next_start % n, to_find, TAINT_TOLERATION.weight,
        NODE_AFFINITY.weight if pod.preferred_node_affinity else 0, WEIGHT, live_max, domains, host_extra, zone_extra)
    if not found:
        return None
    scheduler.next_start = (scheduler.next_start + processed) % n
    if row < 0:  # select_row's draw, on the simulation's generator
        row = int(tied[scheduler.sim.rng.randrange(ties)])
    return row


_TIED: dict[int, np.ndarray] = {}


def _tied(size: int) -> np.ndarray:
    """choose_one's output of tied rows, one array per window size (it is read before the next call)."""
    return _kept(_TIED, size)


def _place(scheduler, run: list, sig: Signature) -> int:
    first = sig.first
    columns = scheduler.columns
    order = scheduler.node_order()
    n = len(order)
    placement = columns.placement(first, sig.cls)
    state = np.zeros((len(STATE_ROWS), n), dtype=np.int64)
    state[ROW["ok"]] = sig.cls.ok
    state[ROW["feasible"]] = placement.feasible
    if sig.affinity is not None and sig.affinity.passes is not None:
        state[ROW["feasible"]] &= sig.affinity.passes
    state[ROW["local"]] = placement.local
    for name in COPIED:  # the columns' own names
        state[ROW[name]] = getattr(columns, name)
    if columns.prefer_count:
        state[ROW["prefer_raw"]] = columns.prefer_raw(sig.cls, first)
    if first.preferred_node_affinity:
        state[ROW["affinity_raw"]] = columns.affinity_raw(first)
    spread = (0,) * 8
    zone_sums = np.zeros(1, dtype=np.int64)
    if sig.spread is not None:
        inputs = sig.spread
        state[ROW["host_live"]] = inputs.host_live
        state[ROW["zone_ids"]] = inputs.zone_ids
        zone_sums = inputs.zone_sums
        spread = inputs.params()
    skew = (0,) * 5
    skew_sums = np.zeros(1, dtype=np.int64)
    if sig.skew is not None:
        c = sig.skew
        state[ROW["skew_ids"]] = columns.domains(c.topology_key)[0]
        skew_sums = sig.skew_sums
        skew = (1, len(skew_sums), c.max_skew, int(c.matcher.matches(first)), c.min_domains)
    pod_affinity = (0, 0, 0)
    if sig.affinity is not None:
        state[ROW["pod_affinity_raw"]] = sig.affinity.raw
        pod_affinity = (POD_AFFINITY_WEIGHT, sig.affinity.delta, int(sig.affinity.exclusive))
    mt, index = mt_state(scheduler.sim.rng)
    count = len(run)
    params = np.array((count, scheduler.next_start % n,
                       num_feasible_nodes_to_find(n, scheduler.config.percentage_of_nodes_to_score),
                       first.cpu, first.memory, TAINT_TOLERATION.weight, int(columns.prefer_count > 0),
                       NODE_AFFINITY.weight if first.preferred_node_affinity else 0, *spread, *skew, *pod_affinity,
                       index, n),
                      dtype=np.int64)
    out = np.zeros((4, count), dtype=np.int64)
    placed = LOOP(state, zone_sums, log_table(n), mt, out, params, skew_sums)
    return _bind(scheduler, run, placed, out, order, state)


# A run's binds go to the store together where no component would react to one of them before the
# next (`quiet_binds`); False binds one pod after another (the reference the tests compare with).
BIND_TOGETHER = True


def _bind(scheduler, run: list, placed: int, out: np.ndarray, order: list, loop_state: np.ndarray) -> int:
    """Bind the placed pods in order while the cluster stays as the compiled loop assumed; the
    generator and next_start as after the last pod bound. Returns how many were bound.
    `loop_state`: the loop's state matrix (STATE_ROWS) after it placed the run."""
    rng = scheduler.sim.rng
    state = rng.getstate()
    scheduler.topology.counts.hold()  # the run's pods are counted together, before anyone reads
    try:
        bound = _bind_together(scheduler, run, placed, out, order, loop_state) if BIND_TOGETHER else 0
        if not bound:
            bound = _bind_each(scheduler, run, placed, out[0].tolist(), out[3].tolist(), order)
    finally:
        scheduler.topology.counts.release()
    if rng.getstate() != state:
        raise RuntimeError("a bind drew from the simulation's random source during a run of equivalent pods")
    if bound:  # (out's rows: the chosen rows, next_start and the words drawn after each pod, its row's pod count)
        advance(rng, int(out[2, bound - 1]))
        scheduler.next_start = int(out[1, bound - 1])
    return bound


class _Unchanged:
    """What the next cycle of a run reads, noted before its binds: `holds(bound)` says whether, after
    `bound` binds of the run, only those binds changed it (their rows, and nothing else: no
    nomination, no pod being deleted, no pod moved to the queue, no cluster event)."""

    __slots__ = ("scheduler", "columns", "order", "log_start", "deleting_start", "pushes")

    def __init__(self, scheduler, order: list) -> None:
        self.scheduler = scheduler
        self.columns = scheduler.columns
        self.order = order
        self.log_start = self.columns.log_end
        self.deleting_start = len(scheduler.topology.counts.deleting)
        self.pushes = scheduler.queue.pushes

    def holds(self, bound: int) -> bool:
        columns, scheduler = self.columns, self.scheduler
        return (columns.valid and columns.nodes is self.order and not columns.dirty
                and columns.log_end == self.log_start + bound and not scheduler.nominated
                and len(scheduler.topology.counts.deleting) == self.deleting_start
                and scheduler.queue.pushes == self.pushes)


def _due(pods, pod, info) -> bool:
    """The run loop would still give `pod` its cycle (it skips one bound, deleted or gone)."""
    return pods.get(info.key) is pod and not pod.node_name and pod.is_active()


def _bind_each(scheduler, run: list, placed: int, rows: list, counts: list, order: list) -> int:
    """Bind one pod after another through the scheduler's ordinary bind, checking after each that
    nothing but the bind changed what the next cycle reads; the run ends where something did."""
    columns = scheduler.columns
    pods = scheduler.sim.store.pods
    unchanged = _Unchanged(scheduler, order)
    now = scheduler.sim.clock.now
    bound = 0
    for j in range(placed):
        pod, info = run[j]
        if not _due(pods, pod, info):
            break  # (as the run loop skips it)
        row = rows[j]
        node = order[row]
        scheduler._budget_used += 1
        scheduler.bind(pod, node)
        if scheduler._events:
            scheduler._process_events(now)
        bound += 1
        if not (unchanged.holds(bound) and columns.pod_count.item(row) == counts[j] and pod.node_name == node.name):
            break
    return bound


def _bind_together(scheduler, run: list, placed: int, out: np.ndarray, order: list, loop_state: np.ndarray) -> int:
    """Bind all `placed` pods with one store write (Scheduler.bind_together) when that is what one
    bind after another does: no component reacts to a bind of the run beyond that pod's own
    bookkeeping (`quiet_binds`), so no bind changes what a later cycle of the run reads, and no
    component's events or timers interleave with another's. (Every pod of the run is still due its
    cycle: place_run took it from the queue as such, and nothing has run since.) Returns `placed`,
    or 0 when the pods must be bound one by one."""
    if not placed:
        return 0
    pods = [pod for pod, _info in run[:placed]]
    # (the run's size, not the cluster's; `last`: where each used row's last bind is, counted from the end)
    used, last, per_row = np.unique(out[0][placed - 1::-1], return_index=True, return_counts=True)
    if not quiet_binds(scheduler, pods, used, per_row, order):
        return 0
    unchanged = _Unchanged(scheduler, order)
    scheduler._budget_used += placed
    columns = scheduler.columns
    # (the loop's rows after every bind of the run: what the store's totals become on those nodes)
    columns.assumed = tuple(loop_state[ROW[name]] for name in ("req_cpu", "req_memory", "nz_cpu", "nz_memory"))
    try:
        scheduler.bind_together(pods, list(map(columns.names.__getitem__, out[0][:placed].tolist())))
    finally:
        columns.assumed = None
    last_count = out[3][placed - 1::-1][last]  # each used row's pod count after its last bind of the run
    if not (unchanged.holds(placed) and not scheduler._events
            and (columns.pod_count[used] == last_count).all()):
        raise RuntimeError("binding a run of equivalent pods together changed what its cycles read")
    return placed


def quiet_binds(scheduler, pods: list, used: np.ndarray, per_row: np.ndarray, order: list) -> bool:
    """Binding `pods` (a run: one template, one owner), `per_row[j]` of them to the node
    `order[used[j]]`, concerns each component that watches binds only through that pod's own
    bookkeeping: no cluster event for pods waiting in unschedulablePods (none was rejected by the
    topology plugins), no PodDisruptionBudget to count, no taint eviction to arm or cancel, and each
    kubelet admits its pods with nothing written but their start. Two of these are safeguards that
    no run meets today: a volume to attach (only a StatefulSet's pods have volumes, and each has
    labels of its own) and a kubelet that would not admit (a node shutting down has its not-ready
    taint, and the scheduler placed the run within the node's totals). A run starts only without
    nominated pods (`signature`)."""
    sim = scheduler.sim
    first = pods[0]
    scheduled = sim.tainteviction.scheduled  # (by pod key: a pod of that name deleted since is not in it)
    if (scheduler._events or scheduler.topology.rejected or not sim.store.one_write_per_update
            or first.volume_claims or not sim.disruption.ignores(first)
            or (scheduled and any(pod.key in scheduled for pod in pods))):
        return False  # (the run's pods share labels: a budget that selects one selects all)
    columns = scheduler.columns
    # (only a row flagged tainted or cordoned can have taints, while no node changed since the sync)
    suspects = used if columns.dirty else used[columns.special[used]]
    if any(order[row].taints for row in suspects.tolist()):
        return False  # taint eviction looks at every pod bound to a tainted node
    return _admitted(scheduler, first, used, per_row, order)


def _admitted(scheduler, first, used: np.ndarray, per_row: np.ndarray, order: list) -> bool:
    """Each kubelet would admit its pods of the run, one after another, writing nothing but their
    start (Kubelet.pod_bound): none that can write is shutting down (its manager rejects new pods),
    and every node's totals with all of its pods of the run still fit its allocatable (admit's
    first test, which each bind in turn then passes too, as the totals only grow). The node columns
    hold those totals (the store writes them on every bind, and allocatable never changes)."""
    sim = scheduler.sim
    if sim.nodeshutdown.shutting_down:  # (otherwise no kubelet is)
        for row in used.tolist():
            kubelet = sim.kubelets.get(order[row].name)
            if kubelet is not None and kubelet.shutdown is not None and kubelet.signalling:
                return False
    columns = scheduler.columns
    return bool(((columns.pod_count[used] + per_row <= columns.alloc_pods[used])
                 & (columns.req_cpu[used] + per_row * first.cpu <= columns.alloc_cpu[used])
                 & (columns.req_memory[used] + per_row * first.memory <= columns.alloc_memory[used])).all())
