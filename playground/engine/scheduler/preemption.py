"""DefaultPreemption, the scheduler's PostFilter (pkg/scheduler/framework/preemption/preemption.go and
plugins/defaultpreemption/default_preemption.go).

When a pod fits nowhere:

1. PodEligibleToPreemptOthers: not with preemptionPolicy Never; not while a lower-priority pod on the
   pod's nominated node is still terminating because of preemption (DisruptionTarget
   PreemptionByScheduler), unless that node now rejects the pod as UnschedulableAndUnresolvable.
2. Candidates come only from nodes whose filter status was Unschedulable (not
   UnschedulableAndUnresolvable). Dry runs start at a random offset (the seeded RNG) and stop once
   numCandidates nodes with victims were found, at least one of them without PDB violations
   (numCandidates = max(10 % of the nodes, 100), at most all of them).
3. SelectVictimsOnNode removes every lower-priority pod, checks the pod fits, then reprieves pods in
   order of importance (priority, then earlier start), PDB-violating ones first.
4. pickOneNodeForPreemption: fewest PDB violations, lowest highest victim priority, smallest sum of
   priorities (each + 2^31), fewest victims, latest start among the highest-priority victims, then
   the first of a Go map's order, i.e. random: here the seeded RNG.
5. Each victim gets DisruptionTarget=True (PreemptionByScheduler) and a Preempted event and is
   deleted with its own grace period (no eviction API: a PDB is only a preference). Lower-priority
   pods nominated to the node lose their nomination; the preemptor is nominated to it.

No candidate clears the preemptor's nomination and explains, per node, why preemption cannot help.
The message is prefixed "preemption: " as the plugin does.

On the scheduler's columns (the default filters): the nodes where preemption might help come from
the cycle's status codes; each node's SelectVictimsOnNode outcome is kept per kind of preemptor for
the instant (VictimCache) until that node's pods, taints, cordon or nominated pods change, so a
burst of preemptors of one template runs it once per node; the dry run's stopping point is found
on the cached outcomes (scan_end, first on a window of the scan order: where candidates are
dense it stops early) and only nodes the scan reaches are evaluated, at most the candidates still
missing at a time. Candidates stay rows (RowScan) and pickOneNodeForPreemption compares each
distinct rank tuple once (Ranks: an id per row), so no Candidate list is built for the hundreds of
candidates a big cluster has. Where only NodeResourcesFit can reject the preemptor, SelectVictimsOnNode is
arithmetic on the node's request sums plus those of its nominated pods of equal or higher
priority. The per-node functions below stay the reference (tests/test_scheduler_columnar.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..objects import TRUE, Node, Pod, PodDisruptionBudget, uid_text
from .framework import ERROR, OK, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, NodeInfo, Status
from .plugins import DEFAULT_FILTERS

if TYPE_CHECKING:
    from . import Diagnosis, Scheduler

NAME = "DefaultPreemption"
MAX_INT32_PLUS_ONE = 2**31
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


@dataclass(slots=True)
class Candidate:
    """A node where the preemptor fits once `victims` (most important first) are gone."""

    node: str
    victims: list[Pod]
    num_pdb_violations: int
    rank: tuple | None = None  # pickOneNodeForPreemption's criteria, once computed


def candidate_rank(candidate: Candidate, now: int) -> tuple:
    """pickOneNodeForPreemption's criteria, each higher-is-better: fewest PDB violations, lowest
    highest victim priority, smallest sum of priorities (each + 2^31), fewest victims, latest start
    among the highest-priority victims."""
    victims = candidate.victims
    return (-candidate.num_pdb_violations, -victims[0].priority,
            -sum(v.priority + MAX_INT32_PLUS_ONE for v in victims), -len(victims),
            earliest_start_of_highest_priority(victims, now))


UNKNOWN, NON_VIOLATING, VIOLATING, NOT_A_CANDIDATE = 0, 1, 2, 3


class Ranks:
    """candidate_rank of candidate rows, as an id per row into the distinct rank tuples (few: the
    rows of a big cluster mostly tie), so pickOneNodeForPreemption compares each distinct rank once."""

    __slots__ = ("of_row", "tuples", "_ids")

    def __init__(self, rows: int) -> None:
        self.of_row = np.zeros(rows, dtype=np.int64)
        self.tuples: list[tuple] = []
        self._ids: dict[tuple, int] = {}

    def set(self, row: int, rank: tuple) -> None:
        rank_id = self._ids.get(rank)
        if rank_id is None:
            rank_id = self._ids[rank] = len(self.tuples)
            self.tuples.append(rank)
        self.of_row[row] = rank_id


class VictimCache:
    """SelectVictimsOnNode's outcome per kind of preemptor (pod class, requests, priority) and node
    row, for one instant and one state of the PodDisruptionBudgets: a state per row (unknown,
    candidate without / with PDB violations, not a candidate) and the Candidate or Status. A row
    whose requests, taints, cordon or nominated pods changed since is dropped (the columns' change
    log); the preemptor's own nominated node is never cached (there the outcome depends on which
    pod asks)."""

    def __init__(self, columns) -> None:
        self.columns = columns
        self.key: tuple | None = None
        self.by_kind: dict[tuple, list] = {}

    def results(self, kind: tuple, now: int, pdbs: list[PodDisruptionBudget]) -> tuple[np.ndarray, dict, Ranks]:
        """(state per row, Candidate or Status per known row, candidate_rank of candidate rows)."""
        columns = self.columns
        key = (now, columns.generation, tuple((pdb.namespace, pdb.name, pdb.disruptions_allowed,
                                               tuple(pdb.disrupted_pods)) for pdb in pdbs))
        if key != self.key:
            self.key = key
            self.by_kind.clear()
        end = columns.log_end
        entry = self.by_kind.get(kind)
        if entry is None:
            entry = self.by_kind[kind] = [end, np.zeros(len(columns.nodes), dtype=np.int8), {},
                                          Ranks(len(columns.nodes))]
            return entry[1], entry[2], entry[3]
        states, results = entry[1], entry[2]
        changed = columns.changed_since(entry[0])
        if changed is None:
            states[:] = UNKNOWN
            results.clear()
        elif changed:
            states[changed] = UNKNOWN
            for row in changed:
                results.pop(row, None)
        entry[0] = end
        return states, results, entry[3]


def scan_order(rows: np.ndarray, offset: int, count: int) -> np.ndarray:
    """The first `count` of `rows` in the dry run's order: from `offset`, wrapping around."""
    if offset + count <= len(rows):
        return rows[offset:offset + count]
    return np.concatenate((rows[offset:], rows[:offset + count - len(rows)]))


def scan_end(states: np.ndarray, num_candidates: int) -> int:
    """How many rows (of `states`, in scan order) DryRunPreemption looks at: it stops once it has a
    candidate without violations and numCandidates in all (each kind capped at numCandidates, so
    the capped sum reaches numCandidates exactly when the plain count of candidates does)."""
    num_candidates = max(num_candidates, 1)
    candidates = np.flatnonzero(states.view(np.uint8) - np.uint8(1) < 2)  # NON_VIOLATING or VIOLATING
    if len(candidates) < num_candidates:
        return len(states)
    non_violating = np.flatnonzero(states == NON_VIOLATING)
    if not len(non_violating):
        return len(states)
    return max(int(non_violating[0]), int(candidates[num_candidates - 1])) + 1


def pod_start_time(pod: Pod, now: int) -> int:
    """GetPodStartTime: status.startTime, or now for a pod that has not started."""
    return pod.start_time if pod.start_time is not None else now


def importance_key(now: int):
    """MoreImportantPod as a sort key: higher priority first, then the earlier start."""
    return lambda p: (-p.priority, pod_start_time(p, now))


def earliest_start_of_highest_priority(victims: list[Pod], now: int) -> int:
    """GetEarliestPodStartTime: among the victims of the highest priority, the earliest start."""
    highest = max(p.priority for p in victims)
    return min(pod_start_time(p, now) for p in victims if p.priority == highest)


def terminating_by_preemption(pod: Pod) -> bool:
    """podTerminatingByPreemption: being deleted, with DisruptionTarget=True PreemptionByScheduler."""
    if pod.deletion_timestamp is None:
        return False
    cond = pod.conditions.get("DisruptionTarget")
    return cond is not None and cond.status == TRUE and cond.reason == PREEMPTION_BY_SCHEDULER


def filter_pods_with_pdb_violation(pods: list[Pod], pdbs: list[PodDisruptionBudget]) -> tuple[list[Pod], list[Pod]]:
    """(violating, non-violating), order preserved. Each matching PDB's disruptionsAllowed is spent
    pod by pod; a pod already in a PDB's disruptedPods does not spend it; a pod without labels
    matches no PDB."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if not pdb.matches(pod) or pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


class DefaultPreemption:
    name = NAME

    def __init__(self, scheduler: "Scheduler") -> None:
        self.scheduler = scheduler
        self.victim_cache = VictimCache(scheduler.columns)

    @property
    def sim(self):
        return self.scheduler.sim

    # ---------------------------------------------------------------- PostFilter

    def post_filter(self, pod: Pod, diagnosis: "Diagnosis") -> tuple[str | None, str]:
        """(nominated node to write: a name, "" to clear, None to leave as is; the message)."""
        nominate, message = self.preempt(pod, diagnosis)
        return nominate, f"preemption: {message}" if message else ""

    def preempt(self, pod: Pod, diagnosis: "Diagnosis") -> tuple[str | None, str]:
        """Evaluator.Preempt."""
        ok, reason = self.pod_eligible_to_preempt_others(pod, diagnosis.get(pod.nominated_node_name))
        if not ok:
            return None, reason
        lowest = self.scheduler.topology.counts.lowest_priority()
        if lowest is None or lowest >= pod.priority:
            return "", self._no_victims_anywhere(diagnosis)
        scan = self._columnar_scan(pod, diagnosis)
        if scan is not None:
            rows = scan.candidate_rows()
            if len(rows):
                best = scan.result(self.pick_row(scan, rows))
                self.scheduler.prepare_candidate(best, pod)
                return best.node, ""
            candidates, statuses = [], scan.statuses()
        else:
            candidates, statuses = self.find_candidates(pod, diagnosis)
        errors = [s.reasons[0] for s in statuses.values() if s.code == ERROR and s.reasons]
        if errors and not candidates:
            return None, ", ".join(errors)
        if not candidates:
            from . import fit_error_message

            message = fit_error_message(len(self.sim.store.nodes), statuses, "",
                                        Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,)))
            return "", message
        best = self.select_candidate(candidates)
        self.scheduler.prepare_candidate(best, pod)  # at once, or after the cycle (async preemption)
        return best.node, ""

    def _no_victims_anywhere(self, diagnosis: "Diagnosis") -> str:
        """The message of a preemption where no running pod has a lower priority than the preemptor
        (a Pending replacement retried during an outage, every pod of one priority): the dry run
        would find no victim on any potential node ("No preemption victims found for incoming
        pod" for each); its offset is still drawn, so the generator moves on as it would."""
        from . import format_fit_error

        potential = diagnosis.count_with_code(self.scheduler.node_order(), UNSCHEDULABLE)
        if potential is None:
            potential = len(self.potential_nodes(diagnosis))
        if potential:
            self.sim.rng.randrange(potential)
        return format_fit_error(len(self.sim.store.nodes), {NO_VICTIMS: potential} if potential else {}, potential,
                                "", Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,)))

    # ---------------------------------------------------------------- eligibility

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            if nominated_node_status is not None and nominated_node_status.code == UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            if nominated in self.sim.store.nodes:
                for other in self.sim.store.pods_on(nominated):
                    if other.is_terminal():
                        continue
                    if other.priority < pod.priority and terminating_by_preemption(other):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    # ---------------------------------------------------------------- candidates

    def calculate_num_candidates(self, num_nodes: int) -> int:
        config = self.scheduler.config
        n = num_nodes * config.min_candidate_nodes_percentage // 100
        if n < config.min_candidate_nodes_absolute:
            n = config.min_candidate_nodes_absolute
        return min(n, num_nodes)

    def potential_nodes(self, diagnosis: "Diagnosis") -> list[Node]:
        """nodesWherePreemptionMightHelp: nodes whose status is Unschedulable, in node-tree order."""
        order = self.scheduler.node_order()
        rows = diagnosis.rows_with_code(order, UNSCHEDULABLE)
        if rows is not None:  # from the cycle's status codes, without a Status per node
            return [order[r] for r in rows.tolist()]
        statuses = diagnosis.statuses
        absent_code = diagnosis.absent.code if diagnosis.absent is not None else UNSCHEDULABLE_AND_UNRESOLVABLE
        out = []
        for node in order:
            status = statuses.get(node.name)
            code = status.code if status is not None else absent_code
            if code == UNSCHEDULABLE:
                out.append(node)
        return out

    def find_candidates(self, pod: Pod, diagnosis: "Diagnosis") -> tuple[list[Candidate], dict[str, Status]]:
        scan = self._columnar_scan(pod, diagnosis)
        if scan is not None:
            return [scan.result(r) for r in scan.candidate_rows().tolist()], scan.statuses()
        potential = self.potential_nodes(diagnosis)
        if not potential:
            return [], {}
        pdbs = list(self.sim.store.pdbs.values())
        offset = self.sim.rng.randrange(len(potential))
        return self.dry_run_preemption(pod, potential, pdbs, offset, self.calculate_num_candidates(len(potential)))

    def _columnar_scan(self, pod: Pod, diagnosis: "Diagnosis") -> "RowScan | None":
        """find_candidates on the columns and the victim cache, or None where they do not apply."""
        scheduler = self.scheduler
        order = scheduler.node_order()
        rows = diagnosis.rows_with_code(order, UNSCHEDULABLE)
        if rows is None or scheduler.filters is not DEFAULT_FILTERS or scheduler.cycle_of(pod).filters:
            # (the victim cache holds per-node outcomes; with spread or affinity constraints a node's
            # outcome depends on the other nodes' pods too)
            return None
        if not len(rows):
            return RowScan.empty(order)
        pdbs = list(self.sim.store.pdbs.values())
        offset = self.sim.rng.randrange(len(rows))
        return self._scan_rows(pod, order, rows, pdbs, offset, self.calculate_num_candidates(len(rows)))

    def dry_run_preemption(self, pod: Pod, potential: list[Node], pdbs: list[PodDisruptionBudget], offset: int,
                           num_candidates: int) -> tuple[list[Candidate], dict[str, Status]]:
        """DryRunPreemption, sequentially: non-violating candidates first, each list capped at
        numCandidates; stop once there is a non-violating one and numCandidates in all."""
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses: dict[str, Status] = {}
        n = len(potential)
        for i in range(n):
            node = potential[(offset + i) % n]
            victims, num_violations, status = self.select_victims_on_node(pod, node, pdbs)
            if status.ok and victims:
                target = non_violating if num_violations == 0 else violating
                if len(target) < num_candidates:
                    target.append(Candidate(node.name, victims, num_violations))
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            if status.ok:
                status = Status(ERROR, (f'expected at least one victim pod on node "{node.name}"',), NAME)
            statuses[node.name] = status
        return non_violating + violating, statuses

    def dry_run_rows(self, pod: Pod, order: list[Node], rows: np.ndarray, pdbs: list[PodDisruptionBudget],
                     offset: int, num_candidates: int) -> tuple[list[Candidate], dict[str, Status]]:
        """dry_run_preemption over rows of the columns (ascending), from `offset`."""
        scan = self._scan_rows(pod, order, rows, pdbs, offset, num_candidates)
        return [scan.result(r) for r in scan.candidate_rows().tolist()], scan.statuses()

    def _scan_rows(self, pod: Pod, order: list[Node], rows: np.ndarray, pdbs: list[PodDisruptionBudget],
                   offset: int, num_candidates: int) -> "RowScan":
        """The dry run over rows of the columns (ascending), from `offset`: the rows' outcomes come
        from the victim cache, and SelectVictimsOnNode runs only on unknown rows the scan reaches, a
        batch at a time (at most the candidates still missing), until its stopping point is known."""
        scheduler = self.scheduler
        now = self.sim.clock.now
        kind = (scheduler.columns.pod_class(pod, scheduler.filters), pod.cpu, pod.memory, pod.priority)
        states, results, ranks = self.victim_cache.results(kind, now, pdbs)
        # Where candidates are dense the stopping point comes early: look at a window of the scan
        # order first (scan_end on a prefix is exact when it stops inside it), all of it otherwise.
        window = min(2 * num_candidates + 64, len(rows))
        scan = scan_order(rows, offset, window)
        own_row = scheduler.columns.index.get(pod.nominated_node_name) if pod.nominated_node_name else None
        own_result = None
        if own_row is not None:
            states[own_row] = UNKNOWN
        while True:
            seen = states[scan]
            end = scan_end(seen, num_candidates)
            if end == window < len(rows):
                window = len(rows)
                scan = scan_order(rows, offset, window)
                continue
            unknown = np.flatnonzero(seen[:end] == UNKNOWN)
            if not len(unknown):
                break
            if end == len(seen):  # no stopping point yet: at most the candidates still missing
                found = int(np.count_nonzero((seen == NON_VIOLATING) | (seen == VIOLATING)))
                unknown = unknown[:max(num_candidates - found, 1)]
            for row in scan[unknown].tolist():
                node = order[row]
                victims, num_violations, status = self.select_victims_on_node(pod, node, pdbs)
                if status.ok and victims:
                    candidate = Candidate(node.name, victims, num_violations)
                    candidate.rank = candidate_rank(candidate, now)
                    ranks.set(row, candidate.rank)
                    result, state = candidate, NON_VIOLATING if num_violations == 0 else VIOLATING
                else:
                    if status.ok:
                        status = Status(ERROR, (f'expected at least one victim pod on node "{node.name}"',), NAME)
                    result, state = status, NOT_A_CANDIDATE
                states[row] = state
                if row == own_row:
                    own_result = result
                else:
                    results[row] = result
        if own_row is not None:
            states[own_row] = UNKNOWN
        return RowScan(order, scan[:end], seen[:end], num_candidates, results, ranks, own_row, own_result)

    def select_victims_on_node(self, pod: Pod, node: Node,
                               pdbs: list[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        scheduler = self.scheduler
        now = self.sim.clock.now
        potential = [p for p in self.sim.store.pods_on(node.name)
                     if not p.is_terminal() and p.priority < pod.priority]
        if not potential:
            return [], 0, Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,), NAME)
        nominated = self.nominated_requests(pod, node)
        if nominated is not None:
            return self._select_victims_by_resources(pod, node, potential, pdbs, now, nominated)
        info = NodeInfo(node)
        for victim in potential:
            info.remove_pod(victim)
        status = scheduler.run_filters(pod, info)
        if not status.ok:
            return [], 0, status
        potential.sort(key=importance_key(now))
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[Pod] = []

        def reprieve(victim: Pod) -> bool:
            info.add_pod(victim)
            if scheduler.run_filters(pod, info).ok:
                return True
            info.remove_pod(victim)
            victims.append(victim)
            return False

        num_violations = 0
        for victim in violating:
            if not reprieve(victim):
                num_violations += 1
        for victim in non_violating:
            reprieve(victim)
        if violating and non_violating:
            victims.sort(key=importance_key(now))
        return victims, num_violations, OK

    def nominated_requests(self, pod: Pod, node: Node) -> tuple[int, int, int] | None:
        """When only NodeResourcesFit can reject `pod` on `node` (no taints, schedulable, no selector,
        affinity or spread): the cpu, memory and pod count that the node's nominated pods of equal
        or higher priority add in RunFilterPluginsWithNominatedPods; else None."""
        scheduler = self.scheduler
        if (scheduler.filters is not DEFAULT_FILTERS or node.taints or node.unschedulable or pod.node_name
                or pod.node_selector or pod.required_node_affinity is not None or pod.affinity_node_name is not None
                or scheduler.cycle_of(pod).filters):
            return None
        cpu = memory = count = 0
        nominated = scheduler.nominated.get(node.name)
        if nominated:
            for other in nominated.values():
                if other.priority >= pod.priority and other.key != pod.key:
                    cpu += other.cpu
                    memory += other.memory
                    count += 1
        return cpu, memory, count

    def _select_victims_by_resources(self, pod: Pod, node: Node, potential: list[Pod],
                                     pdbs: list[PodDisruptionBudget], now: int,
                                     nominated: tuple[int, int, int] = (0, 0, 0)) -> tuple[list[Pod], int, Status]:
        """The same algorithm when only NodeResourcesFit can reject the pod on this node: plain
        arithmetic on the node's request totals (plus `nominated`, see nominated_requests) instead
        of filter calls on a NodeInfo copy."""
        cpu, memory, count = (node.requested_cpu + nominated[0], node.requested_memory + nominated[1],
                              node.pod_count + nominated[2])
        for victim in potential:
            cpu -= victim.cpu
            memory -= victim.memory
            count -= 1
        need_cpu, need_memory = pod.cpu, pod.memory
        alloc_cpu, alloc_memory, alloc_pods = node.allocatable_cpu, node.allocatable_memory, node.allocatable_pods
        if not (count + 1 <= alloc_pods and (need_cpu == 0 or need_cpu <= alloc_cpu - cpu)
                and (need_memory == 0 or need_memory <= alloc_memory - memory)):
            info = NodeInfo(node)
            for victim in potential:
                info.remove_pod(victim)
            return [], 0, self.scheduler.run_filters(pod, info)
        potential.sort(key=importance_key(now))
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[Pod] = []
        num_violations = 0
        for group, counts in ((violating, True), (non_violating, False)):
            for victim in group:
                if (count + 2 <= alloc_pods and (need_cpu == 0 or need_cpu <= alloc_cpu - cpu - victim.cpu)
                        and (need_memory == 0 or need_memory <= alloc_memory - memory - victim.memory)):
                    cpu += victim.cpu  # reprieved: it stays
                    memory += victim.memory
                    count += 1
                else:
                    victims.append(victim)
                    num_violations += counts
        if violating and non_violating:
            victims.sort(key=importance_key(now))
        return victims, num_violations, OK

    # ---------------------------------------------------------------- choosing

    def select_candidate(self, candidates: list[Candidate]) -> Candidate:
        """SelectCandidate / pickOneNodeForPreemption."""
        if len(candidates) == 1:
            return candidates[0]
        now = self.sim.clock.now
        remaining = list({c.node: c for c in candidates}.values())
        ranks = [c.rank if c.rank is not None else candidate_rank(c, now) for c in remaining]
        # Keeping the best of each criterion in turn leaves exactly the candidates whose criteria
        # tuple is the greatest.
        best = max(ranks)
        remaining = [c for c, rank in zip(remaining, ranks) if rank == best]
        if len(remaining) == 1:
            return remaining[0]
        # Kubernetes takes the first of a map's iteration order: effectively random.
        return remaining[self.sim.rng.randrange(len(remaining))]

    def pick_row(self, scan: "RowScan", rows: np.ndarray) -> int:
        """select_candidate on the scan's rank ids: the rows whose rank tuple is the greatest (what
        keeping the best of each criterion in turn leaves), the same ties and RNG draw, comparing
        each distinct rank once."""
        if len(rows) == 1:
            return int(rows[0])
        ids = scan.ranks.of_row[rows]
        tuples = scan.ranks.tuples
        best = max(np.flatnonzero(np.bincount(ids)).tolist(), key=tuples.__getitem__)
        keep = np.flatnonzero(ids == best)
        if len(keep) == 1:
            return int(rows[keep[0]])
        return int(rows[keep[self.sim.rng.randrange(len(keep))]])

    # ---------------------------------------------------------------- acting

    def prepare_candidate(self, candidate: Candidate, preemptor: Pod) -> None:
        store = self.sim.store
        scheduler_name = self.scheduler.config.scheduler_name
        for victim in candidate.victims:
            if victim.deletion_timestamp is not None:
                continue  # graceful deletion already under way
            if store.pods.get(victim.key) is not victim:
                continue
            store.set_pod_condition(victim, "DisruptionTarget", TRUE, PREEMPTION_BY_SCHEDULER,
                                    f"{scheduler_name}: preempting to accommodate a higher priority pod")
            store.event("Normal", "Preempted", victim.ref,
                        f"Preempted by pod {uid_text(preemptor.uid)} on node {candidate.node}", scheduler_name)
            self.sim.apiserver.delete_pod(victim)
        for other in self.scheduler.nominated_pods(candidate.node):
            if other.priority < preemptor.priority and other.key != preemptor.key:
                store.set_nominated_node(other, "")


class RowScan:
    """Where a columnar dry run stopped: the rows it reached in scan order, their states, and the
    cached outcomes (the preemptor's own nominated row's outcome held apart)."""

    __slots__ = ("order", "reached", "seen", "num_candidates", "results", "ranks", "own_row", "own_result")

    def __init__(self, order: list[Node], reached: np.ndarray, seen: np.ndarray, num_candidates: int,
                 results: dict, ranks: Ranks, own_row: int | None, own_result) -> None:
        self.order = order
        self.reached = reached
        self.seen = seen
        self.num_candidates = num_candidates
        self.results = results
        self.ranks = ranks
        self.own_row = own_row
        self.own_result = own_result

    @classmethod
    def empty(cls, order: list[Node]) -> "RowScan":
        none = np.zeros(0, dtype=np.int64)
        return cls(order, none, none.astype(np.int8), 0, {}, Ranks(0), None, None)

    def result(self, row: int):
        return self.own_result if row == self.own_row else self.results[row]

    def candidate_rows(self) -> np.ndarray:
        """Non-violating candidates first, then violating ones, each capped at numCandidates."""
        k = self.num_candidates
        non_violating = self.reached[self.seen == NON_VIOLATING][:k]
        violating = self.reached[self.seen == VIOLATING][:k]
        return np.concatenate((non_violating, violating)) if len(violating) else non_violating

    def statuses(self) -> dict[str, Status]:
        order = self.order
        return {order[r].name: self.result(r) for r in self.reached[self.seen == NOT_A_CANDIDATE].tolist()}
