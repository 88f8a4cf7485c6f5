"""The object store: API objects, the indexes that replace scans, the per-step change set and the
event recorder.

Every write goes through a method here so that indexes, node request totals and the change set stay
right, and so that watchers (the controllers' informers) hear about it in one place.
"""

from __future__ import annotations

from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter
from typing import Callable, Iterable, Iterator

from . import binds
from .eventlog import EventLog, EventRun
from .objects import (
    FAILED,
    RUNNING,
    SUCCEEDED,
    TRUE,
    Condition,
    ConditionCache,
    DaemonSet,
    Deployment,
    Event,
    Lease,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    StatefulSet,
    Taint,
)

_POD_KEY = attrgetter("key")
_NODE_NAME = attrgetter("node_name")

# kube-scheduler's non-zero defaults for pods that request nothing (used for scoring only).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


@dataclass(slots=True)
class ChangeSet:
    """What changed since the last call of Store.take_changes(); the UI updates only these rows."""

    nodes: set[str] = field(default_factory=set)
    pods: set[str] = field(default_factory=set)
    # Pods that changed in more than their conditions (created, bound, phase, deletion, nomination): a
    # zone going NotReady writes 30,000 pods' Ready condition and nothing else of them.
    pod_fields: set[str] = field(default_factory=set)
    removed_pods: set[str] = field(default_factory=set)
    removed_nodes: set[str] = field(default_factory=set)
    zones: bool = False
    events: int = 0
    pdbs: set[str] = field(default_factory=set)  # "ns/name" of PodDisruptionBudgets whose status changed
    drains: set[str] = field(default_factory=set)  # nodes whose drain status changed
    volumes: set[str] = field(default_factory=set)  # volumes attached, detached, mounted or unmounted

    def __bool__(self) -> bool:
        return bool(self.nodes or self.pods or self.removed_pods or self.removed_nodes or self.zones or self.events
                    or self.pdbs or self.drains or self.volumes)


# The hash that indexes event keys (a test swaps in a coarse one to force collisions).
key_hash = hash


class EventRecorder:
    """Events as `kubectl get events` shows them. Bounded when a limit is given (the TUI's log).

    client-go's EventCorrelator (tools/record/events_cache.go) counts an event that repeats one
    already recorded with the same key (source, involved object, type, reason, message): the
    existing Event is patched with count + 1 and a new lastTimestamp, firstTimestamp stays. The key
    has no time window (the eventLogger's LRU cache of 4096 keys per component is not modelled:
    every key is remembered). `total` counts Events (rows), `repeats` the repeats folded into them;
    `repeated` lists the Events whose count rose since the UI last took them."""

    def __init__(self, clock_now: Callable[[], int], limit: int | None = None) -> None:
        self._now = clock_now
        self.limit = limit
        self.events = EventLog(limit)  # reads as a deque of Events (eventlog.py)
        self.total = 0
        self.repeats = 0
        self.repeated: list[Event] | None = []
        # hash of an event key -> its Event (the Event holds the key's fields, so a hit is checked
        # exactly); keys whose hash another key took first -> their Event. An int per Event instead
        # of the key's text: 300,000 Events at 150,000 pods kept ~50 MiB of keys.
        self._by_hash: dict[int, Event] = {}
        self._collided: dict[tuple, Event] = {}
        # (source, reason) of the Events entered there and not yet forgotten -> how many: a batch
        # whose pair is not among them repeats none of them (_repeats_any). The pair, not the whole
        # rest of the key: a few dozen, where the outage's 400,000 Events have as many objects.
        self._sources: dict[tuple[str, str], int] = {}
        # The Events of counted runs (record_run), found by the rest of their key: (source, instance,
        # object, uid, type, reason) -> message format -> argument -> the newest run made with it.
        # _run_entries: how many arguments were entered (an upper bound of what it holds).
        self._run_index: dict[tuple, dict[str, dict[str, EventRun]]] = {}
        self._run_entries = 0
        # Bounded: what was entered in the indexes, oldest first ((hash, Event); (run, its arguments
        # entered)), forgotten as it leaves the log (_forget_left). Rebuilding the indexes from the
        # log once they held twice its keys instead cost a tick of the TUI's outage at x1000 7 ms
        # (5,000 keys) every 830 simulated s, past its frame's budget.
        self._entered: deque[tuple[int, Event]] = deque()
        self._entered_runs: deque[tuple[EventRun, list[str]]] = deque()
        # told of every occurrence, a repeat too (time, the Event): for whoever needs each one
        self.listeners: list[Callable[[int, Event], None]] = []

    def _index(self, key: tuple, event: Event, hashed: int) -> None:
        self._entered_as(event, hashed)
        if self._by_hash.setdefault(hashed, event) is not event:
            self._collided[key] = event

    def _entered_as(self, event: Event, hashed: int) -> None:
        pair = (event.source, event.reason)
        self._sources[pair] = self._sources.get(pair, 0) + 1
        if self.limit is not None:
            self._entered.append((hashed, event))

    def record(self, type_: str, reason: str, obj: str, message: str, source: str,
               uid: int = 0, instance: str = "") -> Event:
        """`uid` is the involved object's (a pod re-created under its name is another object),
        `instance` the recording process (a restarted kubelet starts with an empty cache)."""
        now = self._now()
        key = (source, instance, obj, uid, type_, reason, message)
        hashed = key_hash(key)
        event = self._by_hash.get(hashed)  # two events a pod at 150,000 pods: kept inline
        if event is not None and event.key() != key:
            event = self._collided.get(key)
        oldest = self.total - len(self.events)  # the Events numbered after it are in the log
        if event is not None and event.seq > oldest:
            return self._count_again(event, now)
        if self._run_index:
            in_run = self._in_run(key, oldest)
            if in_run is not None:
                return self._count_again(in_run, now)
        self.total += 1
        new = Event(now, type_, reason, obj, message, source, 1, now, uid, instance, self.total)
        self.events.append(new)
        if event is None:
            self._index(key, new, hashed)
        else:  # its earlier Event left the bounded log
            self._entered_as(new, hashed)
            if self._by_hash.get(hashed) is event:
                self._by_hash[hashed] = new
            else:
                self._collided[key] = new
        if self.limit is not None:
            self._forget_left()
        for listener in self.listeners:
            listener(now, new)
        return new

    def _count_again(self, event: Event, now: int) -> Event:
        event.count += 1
        event.last_time = now
        self.repeats += 1
        if self.limit is not None and self.repeated is not None:
            self.repeated.append(event)
            if len(self.repeated) > self.limit:
                self.repeated = None  # nobody took them: the UI rebuilds from the log
        for listener in self.listeners:
            listener(now, event)
        return event

    def _in_run(self, key: tuple, oldest: int) -> Event | None:
        """The Event of `key` in a counted run the log still holds (record_run), or None."""
        source, instance, obj, uid, type_, reason, message = key
        formats = self._run_index.get((source, instance, obj, uid, type_, reason))
        if not formats:
            return None
        for message_format, runs in formats.items():
            prefix, _, suffix = message_format.partition("{0}")
            if len(message) < len(prefix) + len(suffix) or not message.startswith(prefix) or not message.endswith(suffix):
                continue
            argument = message[len(prefix):len(message) - len(suffix)]
            run = runs.get(argument)
            i = run.position(argument) if run is not None else None
            if i is not None and run.first_seq + i > oldest:
                return run.event(i)
        return None

    def _forget_left(self) -> None:
        """The bounded log's indexes forget what was entered for the Events that left it since the
        last call (what a newer Event of the same key took over stays), about as many as were entered
        meanwhile. Where keys share their hash (_collided), the first key's entry stays; once the
        indexes hold twice as many keys as the log holds Events, they are built again from it."""
        oldest = self.total - len(self.events)
        entered, by_hash, collided, sources = self._entered, self._by_hash, self._collided, self._sources
        while entered and entered[0][1].seq <= oldest:
            hashed, event = entered.popleft()
            if by_hash.get(hashed) is event:
                if not collided:  # (another key of its hash may be found through its entry)
                    del by_hash[hashed]
            elif collided:
                key = event.key()
                if collided.get(key) is event:
                    del collided[key]
            pair = (event.source, event.reason)
            count = sources[pair] - 1
            if count:
                sources[pair] = count
            else:
                del sources[pair]
        runs = self._entered_runs
        while runs and runs[0][0].first_seq + len(runs[0][0].uids) - 1 <= oldest:
            run, arguments = runs.popleft()
            self._run_entries -= len(arguments)
            formats = self._run_index.get(run.counted, {})
            entries = formats.get(run.message_format)
            if entries is None:
                continue
            for argument in arguments:
                if entries.get(argument) is run:
                    del entries[argument]
            if not entries:  # (record looks for runs only while it holds some)
                del formats[run.message_format]
                if not formats:
                    del self._run_index[run.counted]
        if len(by_hash) + len(collided) + self._run_entries > 2 * self.limit:
            self._rebuild_indexes()

    def _rebuild_indexes(self) -> None:
        self._by_hash, self._collided, self._sources = {}, {}, {}
        self._entered, self._entered_runs = deque(), deque()
        for kept in self.events.plain():
            kept_key = kept.key()
            self._index(kept_key, kept, key_hash(kept_key))
        self._run_index, self._run_entries = {}, 0
        for run in self.events.runs():
            if run.counted:
                self._enter_run(run, run.arguments[0][run.start:])

    def record_once(self, type_: str, reason: str, obj: str, message: str, source: str, uid: int) -> Event:
        """`record` for an Event whose key the caller records once at most (a pod's Scheduled event:
        a pod, by its uid, is bound once). No later event can repeat it, so it is not indexed for
        repeats: at 150,000 pods the index of their keys costs more than the Events do."""
        if not uid:  # no object: the key names no single one
            return self.record(type_, reason, obj, message, source, uid)
        now = self._now()
        self.total += 1
        new = Event(now, type_, reason, obj, message, source, 1, now, uid, "", self.total)
        self.events.append(new)
        for listener in self.listeners:
            listener(now, new)
        return new

    def record_once_run(self, type_: str, reason: str, source: str, object_format: str, message_format: str,
                        arguments: tuple[list, ...], uids: list[int]) -> None:
        """record_once for each of many Events of one instant (EventRun: Event i's object and
        message are the formats filled with arguments[k][i], its uid uids[i]), kept as one run and
        made into Events when read. Every uid names an object (record_once indexes none of them)."""
        if not uids:
            return
        if 0 in uids:
            raise ValueError("an EventRun's Events each involve an object (a uid)")
        self._add_run(EventRun(self._now(), type_, reason, source, self.total + 1, object_format, message_format,
                               arguments, uids))

    def record_run(self, type_: str, reason: str, obj: str, message_format: str, arguments: list[str],
                   source: str, uid: int = 0) -> None:
        """record for each of many Events of one instant that differ only in their message:
        `message_format` with its one "{0}" filled with each of `arguments` (a ReplicaSet's batch of
        creates: "Created pod: <name>"). While none of them repeats an Event the log holds, or
        another of them, they are kept as one EventRun, made into Events when read and found by
        `record` when repeated; otherwise they are recorded one by one."""
        prefix, marker, suffix = message_format.partition("{0}")
        if not marker or any(c in prefix + suffix for c in "{}"):
            raise ValueError(f"a run's message format has one {{0}} and no other braces: {message_format!r}")
        if not arguments:
            return
        shape = (source, "", obj, uid, type_, reason)
        if self._repeats_any(shape, prefix, suffix, message_format, arguments):
            for argument in arguments:
                self.record(type_, reason, obj, prefix + argument + suffix, source, uid)
            return
        run = EventRun(self._now(), type_, reason, source, self.total + 1, obj.replace("{", "{{").replace("}", "}}"),
                       message_format, (arguments,), [uid] * len(arguments), counted=shape)
        self._enter_run(run, arguments)
        self._add_run(run)
        if self.limit is not None:
            self._forget_left()

    def _repeats_any(self, shape: tuple, prefix: str, suffix: str, message_format: str, arguments: list[str]) -> bool:
        """Would one of the Events of `shape` (the key but the message) and these messages, recorded
        one by one, count one the log holds (or one of them) again?"""
        if len(set(arguments)) != len(arguments):
            return True
        runs = self._run_index.get(shape, {}).get(message_format, {})
        if (shape[0], shape[5]) not in self._sources and runs.keys().isdisjoint(arguments):
            return False  # (a ReplicaSet's batch of creates: one set operation, not a lookup a pod)
        oldest = self.total - len(self.events)
        by_hash, collided = self._by_hash, self._collided
        for argument in arguments:
            key = (*shape, prefix + argument + suffix)
            event = by_hash.get(key_hash(key))
            if event is not None and event.key() != key:
                event = collided.get(key)
            if event is not None and event.seq > oldest:
                return True
            run = runs.get(argument)
            if run is not None and run.first_seq + run.position(argument) > oldest:
                return True
        return False

    def _enter_run(self, run: EventRun, arguments: list[str]) -> None:
        runs = self._run_index.setdefault(run.counted, {}).setdefault(run.message_format, {})
        runs.update(dict.fromkeys(arguments, run))
        self._run_entries += len(arguments)
        if self.limit is not None:
            self._entered_runs.append((run, arguments))

    def _add_run(self, run: EventRun) -> None:
        self.total += len(run.uids)
        self.events.append_run(run)
        if self.listeners:
            for i in range(len(run.uids)):
                event = run.event(i)
                for listener in self.listeners:
                    listener(run.time, event)

    def take_repeated(self) -> list[Event] | None:
        """The Events counted again since the last call; None when more than the log holds were."""
        repeated, self.repeated = self.repeated, []
        return repeated

    def since(self, total_seen: int) -> list[Event]:
        """Events recorded after the first `total_seen` ones (as many as the bound kept)."""
        new = self.total - total_seen
        if new <= 0:
            return []
        if new >= len(self.events):
            return list(self.events)
        # from the newest end: the UI asks each frame for a few Events of a log of thousands
        return list(islice(reversed(self.events), new))[::-1]


NodeWatcher = Callable[[str, Node], None]
PodWatcher = Callable[[str, Pod], None]

# The kinds of pod change the store announces (the `what` of a pod watcher).
POD_CHANGES = ("added", "bound", "phase", "condition", "deleting", "nominated", "removed")


NO_HANDLERS: dict = {}  # (never written)


def watches(*kinds: str):
    """Mark a pod watcher as reacting to these kinds of change only: the store does not call it for
    the others (a pod changes up to seven times on its way to Running, and most watchers care about
    two or three of them). A watcher without the mark hears every change."""
    unknown = set(kinds) - set(POD_CHANGES)
    if unknown:
        raise ValueError(f"unknown pod changes {sorted(unknown)}")

    def mark(method):
        method.pod_changes = frozenset(kinds)
        return method
    return mark


def _idle(watcher: PodWatcher) -> bool:
    """A pod watcher whose component says it would do nothing for any pod change now (e.g. the
    disruption controller while no PodDisruptionBudget exists): the store leaves it out until the
    component calls `Store.pod_watcher_woke`. Its place in the order is kept."""
    idle = getattr(getattr(watcher, "__self__", None), "pod_watch_idle", None)
    return idle is not None and idle()


class Store:
    # A write that Kubernetes makes as one update (binding, the kubelet's status patch) is announced
    # once; False announces each field as it is set (the reference the equivalence test compares with).
    one_write_per_update = True
    # Pod watchers hear only the kinds of change they are marked for (`watches`); False calls every
    # watcher for every change (the reference).
    dispatch_by_kind = True
    # Changes written together reach a watcher with a handler of many pods (`together_watchers`)
    # through it; False tells such a watcher of one pod after another (the reference).
    watch_together = True
    # Inside changing_everything (a class default: states pickled before it existed restore too).
    _everything_changes = False

    def __init__(self, clock_now: Callable[[], int], event_limit: int | None = None) -> None:
        self.now = clock_now
        self.nodes: dict[str, Node] = {}
        self.leases: dict[str, Lease] = {}
        self.pods: dict[str, Pod] = {}
        self.pods_by_node: dict[str, dict[str, Pod]] = {}
        self.pods_by_owner: dict[tuple[str, str], dict[str, Pod]] = {}
        self.nodes_by_zone: dict[str, dict[str, Node]] = {}
        self.deployments: dict[str, Deployment] = {}
        self.daemonsets: dict[str, DaemonSet] = {}
        self.priority_classes: dict[str, PriorityClass] = {}
        self.pdbs: dict[str, PodDisruptionBudget] = {}  # "ns/name" -> PDB
        self.statefulsets: dict[str, StatefulSet] = {}  # "ns/name" -> StatefulSet
        self.recorder = EventRecorder(clock_now, event_limit)
        self.pod_conditions = ConditionCache()
        self.changes = ChangeSet()
        self.node_watchers: list[NodeWatcher] = []
        self.pod_watchers: list[PodWatcher] = []
        # kind of change -> the pod watchers that react to it, in registration order (see `watches`);
        # rebuilt when a watcher is added
        self._pod_dispatch: dict[str, tuple[PodWatcher, ...]] = {}
        self._pod_dispatch_for = 0
        # pod watcher -> its handler of many pods with one kind of change (`_pods_changed`), which
        # does what the watcher does for each of them in turn
        self.together_watchers: dict[PodWatcher, Callable[[str, list[Pod]], None]] = {}
        # Told after a node's request totals changed (the scheduler's columnar node state).
        self.on_requests: Callable[[Node], None] | None = None
        # on_requests for each of many nodes in turn, repeats kept (the binds of a run: assign_pods)
        self.on_requests_many: Callable[[list[Node]], None] | None = None
        # Told when a pod starts or stops counting on its node (bound, turned terminal, removed): the
        # scheduler's per-node counts of matching pods (PodTopologySpread, InterPodAffinity).
        self.on_account: Callable[[Pod, int], None] | None = None
        # on_account(pod, +1) for each of many pods bound together, in order (assign_pods)
        self.on_account_bound: Callable[[list[Pod]], None] | None = None
        self._uid = 0

    # ---------------------------------------------------------------- helpers

    def new_uid(self) -> int:
        """A new object's uid: a number, shown as `uid_text` makes it (an int costs half a string's
        memory at 150,000 pods, where a pod's uid is held by the pod and its container)."""
        self._uid += 1
        return self._uid

    def new_uids(self, count: int) -> range:
        """`count` new uids, as `count` calls of new_uid give them."""
        first = self._uid + 1
        self._uid += count
        return range(first, first + count)

    def event(self, type_: str, reason: str, obj: str, message: str, source: str, instance: str = "") -> Event:
        self.changes.events += 1
        return self.recorder.record(type_, reason, obj, message, source, self._uid_of(obj), instance)

    def pod_events(self, type_: str, reason: str, pods: list[Pod], message: str, source: str) -> None:
        """`event` about each of `pods` in turn, one message for all (the node lifecycle controller's
        NodeNotReady for a node's pods), without making each pod's ref into a lookup again."""
        self.changes.events += len(pods)
        record, get = self.recorder.record, self.pods.get
        for pod in pods:
            found = get(pod.key)  # (_uid_of: the uid of the pod the store holds under that name)
            record(type_, reason, pod.ref, message, source, found.uid if found is not None else 0)

    def event_once(self, type_: str, reason: str, pod: Pod, message: str, source: str) -> Event:
        """`event` for an Event recorded once at most for a pod of the store (EventRecorder.record_once)."""
        self.changes.events += 1
        return self.recorder.record_once(type_, reason, pod.ref, message, source, pod.uid)

    def event_once_run(self, type_: str, reason: str, source: str, object_format: str, message_format: str,
                       arguments: tuple[list, ...], uids: list[int]) -> None:
        """event_once for each of many pods at once (EventRecorder.record_once_run)."""
        self.changes.events += len(uids)
        self.recorder.record_once_run(type_, reason, source, object_format, message_format, arguments, uids)

    def event_run(self, type_: str, reason: str, obj: str, message_format: str, arguments: list[str],
                  source: str) -> None:
        """event for each of many Events about one object at once that differ only in their message
        (EventRecorder.record_run)."""
        self.changes.events += len(arguments)
        self.recorder.record_run(type_, reason, obj, message_format, arguments, source, self._uid_of(obj))

    def _uid_of(self, obj: str) -> int:
        """The uid of an involved Pod or Node that still exists (0 otherwise)."""
        if obj[:4] == "Pod/":
            pod = self.pods.get(obj[4:])
            return pod.uid if pod is not None else 0
        if obj.startswith("Node/"):
            node = self.nodes.get(obj[5:])
            return node.uid if node is not None else 0
        return 0

    def take_changes(self) -> ChangeSet:
        changes, self.changes = self.changes, ChangeSet()
        return changes

    @contextmanager
    def changing_everything(self) -> Iterator[None]:
        """Changes made in this block are noted as a change of every pod and node the store holds at
        its end (with the pods' nodes), instead of key by key: the scenario's instant 0, where the
        whole cluster is new and every reader of the ChangeSet redraws it all (the TUI takes it and
        redraws its tables), so the sets of 150,000 keys made three times over (created, bound,
        Initialized) were work for nobody: 2 % of the instructions of opening 30,000 pods,
        about 5 % of the sampled time of opening 150,000 (the large sets miss the caches). Removals are
        still noted key by key (a pod removed in the block is not in the store at its end). The
        ChangeSet is then a superset of the one noted key by key, which is what it promises: the
        rows that may have changed."""
        self._everything_changes = True
        try:
            yield
        finally:
            self._everything_changes = False
            changes, pods = self.changes, self.pods
            # (from iterators: given a dict, set.update sizes the table for every key being new, so
            # a set that already holds most of them took twice the memory: +30 MiB at 150,000 pods)
            changes.pods.update(iter(pods))
            changes.pod_fields.update(iter(pods))
            changes.nodes.update(iter(self.nodes))
            changes.nodes.update(filter(None, map(_NODE_NAME, pods.values())))

    def _node_changed(self, what: str, node: Node) -> None:
        if not self._everything_changes:
            self.changes.nodes.add(node.name)
        for watcher in self.node_watchers:
            watcher(what, node)

    def _note_pod(self, what: str, pod: Pod) -> None:
        changes = self.changes
        changes.pods.add(pod.key)
        if what != "condition":
            changes.pod_fields.add(pod.key)
        if pod.node_name:
            changes.nodes.add(pod.node_name)

    def _pod_changed(self, what: str, pod: Pod) -> None:
        if not self._everything_changes or what == "removed":
            self._note_pod(what, pod)
        if self._pod_dispatch_for != len(self.pod_watchers):
            self._index_pod_watchers()
        for watcher in self._pod_dispatch[what]:
            watcher(what, pod)

    def _pods_changed(self, pods: list[Pod], kinds: "str | list[str]") -> None:
        """_pod_changed for each of `pods` (its kind of change: `kinds`, one for all or one a pod),
        written together: each watcher, in its place among the watchers, hears of every pod whose
        change it reacts to, in order, before the next watcher hears of any (see add_pods and
        set_pods_running for when that is the same as one change after another). No object is made
        a pod: 150,000 tuples here cost more in collections than the dispatch saves."""
        if not self._everything_changes or kinds == "removed" or not isinstance(kinds, str):
            self._note_pods(pods, kinds)
        if self._pod_dispatch_for != len(self.pod_watchers):
            self._index_pod_watchers()
        if isinstance(kinds, str):
            together = self.together_watchers if self.watch_together else NO_HANDLERS
            for watcher in self._pod_dispatch[kinds]:
                handler = together.get(watcher)
                if handler is not None:
                    handler(kinds, pods)
                    continue
                for pod in pods:
                    watcher(kinds, pod)
            return
        hearing = {what: set(self._pod_dispatch[what]) for what in set(kinds)}
        for watcher in self.pod_watchers:  # (the dispatch lists keep this order)
            for what, pod in zip(kinds, pods):
                if watcher in hearing[what]:
                    watcher(what, pod)

    def _note_pods(self, pods: list[Pod], kinds: "str | list[str]") -> None:
        changes = self.changes
        keys = list(map(_POD_KEY, pods))
        changes.pods.update(keys)
        if isinstance(kinds, str):
            if kinds != "condition":
                changes.pod_fields.update(keys)
        else:
            changes.pod_fields.update(key for key, what in zip(keys, kinds) if what != "condition")
        changes.nodes.update(filter(None, map(_NODE_NAME, pods)))

    def _index_pod_watchers(self) -> None:
        watchers = self.pod_watchers
        every = not self.dispatch_by_kind
        awake = [w for w in watchers if every or not _idle(w)]
        self._pod_dispatch = {
            what: tuple(w for w in awake if every or what in getattr(w, "pod_changes", POD_CHANGES))
            for what in POD_CHANGES}
        self._pod_dispatch_for = len(watchers)

    def pod_watcher_woke(self) -> None:
        """A watcher's `pod_watch_idle` turned False: it hears pod changes again from now on, in its
        place among the watchers."""
        self._pod_dispatch_for = -1

    # ---------------------------------------------------------------- nodes

    def add_node(self, node: Node) -> None:
        self.nodes[node.name] = node
        # A Node object re-created under the name of a deleted one (its kubelet registered again)
        # takes over the requests of the pods still bound to that name.
        for pod in self.pods_by_node.setdefault(node.name, {}).values():
            if not pod.is_terminal():
                node.requested_cpu += pod.cpu
                node.requested_memory += pod.memory
                node.nonzero_cpu += pod.cpu or DEFAULT_MILLI_CPU_REQUEST
                node.nonzero_memory += pod.memory or DEFAULT_MEMORY_REQUEST
                node.pod_count += 1
        self.nodes_by_zone.setdefault(node.zone, {})[node.name] = node
        self.changes.zones = True
        self._node_changed("added", node)

    def remove_node(self, name: str) -> Node | None:
        node = self.nodes.pop(name, None)
        if node is None:
            return None
        zone_nodes = self.nodes_by_zone.get(node.zone, {})
        zone_nodes.pop(name, None)
        if not zone_nodes:
            self.nodes_by_zone.pop(node.zone, None)
        self.leases.pop(name, None)
        self.changes.removed_nodes.add(name)
        self.changes.zones = True
        self._node_changed("removed", node)
        return node

    def set_node_conditions(self, node: Node, conditions: dict[str, Condition]) -> None:
        node.conditions = conditions
        self._node_changed("conditions", node)

    def set_unschedulable(self, node: Node, value: bool) -> None:
        node.unschedulable = value
        self._node_changed("spec", node)

    def update_taints(self, node: Node, add: Iterable[Taint] = (), remove: Iterable[Taint] = ()) -> bool:
        """Add and remove taints (matched by key and effect) in one update; True if anything changed."""
        taints = list(node.taints)
        changed = False
        for taint in remove:
            kept = [t for t in taints if not t.matches(taint)]
            changed |= len(kept) != len(taints)
            taints = kept
        for taint in add:
            if not any(t.matches(taint) for t in taints):
                if taint.time_added is None:
                    taint = Taint(taint.key, taint.effect, taint.value, self.now())
                taints.append(taint)
                changed = True
        if changed:
            node.taints = taints
            self._node_changed("taints", node)
        return changed

    # ---------------------------------------------------------------- pods

    def add_pod(self, pod: Pod) -> None:
        self._index_added((pod,))
        self._pod_changed("added", pod)

    def _index_added(self, pods: Iterable[Pod]) -> None:
        all_pods, by_owner = self.pods, self.pods_by_owner
        last = owned = None  # (a batch's pods share one OwnerRef: its index looked up once)
        for pod in pods:
            key = pod.key
            all_pods[key] = pod
            owner = pod.owner
            if owner is not None:
                if owner is not last:
                    last = owner
                    owned = by_owner.get((owner.kind, owner.name))
                    if owned is None:
                        owned = by_owner[(owner.kind, owner.name)] = {}
                owned[key] = pod
            if pod.node_name:
                self._account(pod, +1)

    def add_pods(self, pods: list[Pod]) -> None:
        """add_pod for each of `pods`, created together by one writer at one instant (a ReplicaSet's
        slow-start batch): the store's indexes pod by pod, then each pod watcher hears of every pod,
        in order, before the next watcher hears of any. That equals one add_pod after another when
        what a watcher does for a pod depends on that pod and on the watcher's own state, and what it
        orders (its events, its timers) is its own: the caller makes sure of it
        (WorkloadControllers._may_create_together)."""
        self._index_added(pods)
        self._pods_changed(pods, "added")

    def bind_pod(self, pod: Pod, node_name: str) -> None:
        pod.node_name = node_name
        pod.nominated_node_name = ""
        self._account(pod, +1)
        self._pod_changed("bound", pod)

    def assign_pod(self, pod: Pod, node_name: str) -> None:
        """The Binding subresource (pkg/registry/core/pod/storage setPodNodeAndMetadata): spec.nodeName
        and the PodScheduled=True condition in one update, so watchers hear one change ("bound")."""
        if self.one_write_per_update:
            self.pod_conditions.set(pod, "PodScheduled", TRUE, "", "", self.now())
        else:
            self.set_pod_condition(pod, "PodScheduled", TRUE)
        self.bind_pod(pod, node_name)

    def assign_pods(self, pods: list[Pod], node_names: list[str]) -> None:
        """assign_pod for each of `pods` to the node name beside it (a run of equivalent pods the
        scheduler placed), written together: the writes pod by pod, then each watcher hears of every
        pod, in order, before the next watcher hears of any (`_pods_changed`). That equals one bind
        after another when no watcher reacts to a bind beyond that pod's own bookkeeping: the
        scheduler makes sure of it (scheduler/equivalence.quiet_binds)."""
        if not self.one_write_per_update:
            for pod, node_name in zip(pods, node_names):
                self.assign_pod(pod, node_name)
            return
        self.pod_conditions.set_each(pods, "PodScheduled", TRUE, self.now())
        for pod, node_name in zip(pods, node_names):
            pod.node_name = node_name
            pod.nominated_node_name = ""
        self._account_bound(pods)
        self._pods_changed(pods, "bound")

    def _account_bound(self, pods: list[Pod]) -> None:
        """_account(pod, +1) for each of `pods` (bound together), the columns told of the nodes at
        the end (on_requests_many): nobody reads them in between."""
        if self.on_requests_many is None:
            for pod in pods:
                self._account(pod, +1)
            return
        changed = binds.account_bound(pods, self.pods_by_node, self.nodes, DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)
        # (told after the totals, in one call where it can be: what it counts reads neither)
        on_account = self.on_account
        if on_account is not None:
            if self.on_account_bound is not None:
                self.on_account_bound(pods)
            else:
                for pod in pods:
                    on_account(pod, +1)
        self.on_requests_many(changed)

    def set_pods_condition(self, pods: list[Pod], ctype: str, status: str) -> None:
        """set_pod_condition (no reason, no message) for each of `pods`, written together: the writes
        pod by pod, then each watcher hears of every pod whose condition changed before the next
        watcher hears of any (`_pods_changed`): one write after another when what a watcher does for
        a pod's condition depends on that pod alone (kubelet.start_bound_pods)."""
        changed = self.pod_conditions.set_each(pods, ctype, status, self.now())
        if changed:
            self._pods_changed(changed, "condition")

    def set_pod_running(self, pod: Pod, conditions: tuple[str, ...]) -> None:
        """The kubelet's status update once the containers run: phase Running and `conditions` True
        in one write (the status manager patches the whole status), so watchers hear one change: a
        phase change if the phase moved, otherwise a condition change if any condition did."""
        if not self.one_write_per_update:
            if pod.phase != RUNNING:
                self.set_pod_phase(pod, RUNNING)
            for ctype in conditions:
                self.set_pod_condition(pod, ctype, TRUE)
            return
        moved = pod.phase != RUNNING
        if moved:
            pod.phase = RUNNING
        changed = self.pod_conditions.set_many(pod, conditions, TRUE, self.now())
        if moved:
            self._pod_changed("phase", pod)
        elif changed:
            self._pod_changed("condition", pod)

    def set_pods_running(self, pods: list[Pod], conditions: tuple[str, ...]) -> None:
        """set_pod_running for each of `pods` (the Running reports of one batch of container starts),
        written together: the writes pod by pod, then each watcher hears of every pod that changed
        before the next watcher hears of any (`_pods_changed`). That is what one report after
        another does: a pod's Running report concerns PodGC, the disruption, workload and StatefulSet
        controllers, the scheduler and the attach/detach controller, which keep per-pod indexes and
        arm wakeups of their own phases; none writes an event for it."""
        if not self.one_write_per_update or len(pods) == 1:  # (a batch of one: the plain path)
            for pod in pods:
                self.set_pod_running(pod, conditions)
            return
        now = self.now()
        # per pod: "phase", "condition" or "" (nothing changed); None while every pod's phase moved
        # (the usual batch: no list of 150,000 kinds, whose memory the allocator would keep)
        kinds: list[str] | None = None
        set_many = self.pod_conditions.set_many
        # As ConditionCache.set_each: pods holding one dict take the answer of the first. Asked again,
        # set_many would give an equal dict (the same one, unless the cache was cleared in between).
        before = after = None
        changed = False
        for i, pod in enumerate(pods):
            moved = pod.phase != RUNNING
            if moved:
                pod.phase = RUNNING
            held = pod.conditions
            if held is before:
                pod.conditions = after
            else:
                changed = set_many(pod, conditions, TRUE, now)
                before, after = held, pod.conditions
            if kinds is None and not moved:
                kinds = ["phase"] * i
            if kinds is not None:
                kinds.append("phase" if moved else "condition" if changed else "")
        if kinds is None:
            self._pods_changed(pods, "phase")
        elif any(kinds):
            told = [pod for pod, what in zip(pods, kinds) if what]
            self._pods_changed(told, [what for what in kinds if what])

    def set_pod_phase(self, pod: Pod, phase: str, reason: str = "", message: str = "") -> None:
        was_terminal = pod.is_terminal()
        pod.phase = phase
        if reason or message:
            pod.reason, pod.message = reason, message
        if pod.node_name and not was_terminal and phase in (SUCCEEDED, FAILED):
            self._account(pod, -1, keep_listed=True)
        self._pod_changed("phase", pod)

    def set_pod_condition(
        self, pod: Pod, ctype: str, status: str, reason: str = "", message: str = ""
    ) -> None:
        # Copy-on-write, shared between pods with equal conditions (ConditionCache).
        if self.pod_conditions.set(pod, ctype, status, reason, message, self.now()):
            self._pod_changed("condition", pod)

    def mark_pod_deleting(self, pod: Pod, grace_seconds: int, override: bool = True) -> None:
        """The API server's graceful delete (rest.BeforeDelete): deletionTimestamp = now + grace.

        A delete of a pod already being deleted may only shorten the grace period, and only with
        DeleteOptions.gracePeriodSeconds (`override`); the deletionTimestamp then moves to the
        first delete's time plus the new period (old timestamp - old period + new period)."""
        old = pod.deletion_grace_period_seconds
        if pod.deletion_timestamp is not None:
            if not override or (old is not None and grace_seconds >= old):
                return
            first_delete = pod.deletion_timestamp - (old or 0) * 1000
            pod.deletion_grace_period_seconds = grace_seconds
            pod.deletion_timestamp = first_delete + grace_seconds * 1000
        else:
            pod.deletion_grace_period_seconds = grace_seconds
            pod.deletion_timestamp = self.now() + grace_seconds * 1000
        self._pod_changed("deleting", pod)

    def set_nominated_node(self, pod: Pod, node_name: str) -> None:
        if pod.nominated_node_name != node_name:
            old = pod.nominated_node_name
            pod.nominated_node_name = node_name
            if old:
                self.changes.nodes.add(old)
            self._pod_changed("nominated", pod)

    def remove_pod(self, pod: Pod) -> None:
        if self.pods.get(pod.key) is not pod:
            return
        del self.pods[pod.key]
        if pod.owner is not None:
            owned = self.pods_by_owner.get((pod.owner.kind, pod.owner.name))
            if owned is not None:
                owned.pop(pod.key, None)
        if pod.node_name:
            if pod.is_terminal():
                self.pods_by_node.get(pod.node_name, {}).pop(pod.key, None)
            else:
                self._account(pod, -1)
        self.changes.removed_pods.add(pod.key)
        self._pod_changed("removed", pod)

    def pods_on(self, node_name: str) -> list[Pod]:
        return list(self.pods_by_node.get(node_name, {}).values())

    def owned_pods(self, kind: str, name: str) -> list[Pod]:
        return list(self.pods_by_owner.get((kind, name), {}).values())

    def _account(self, pod: Pod, sign: int, keep_listed: bool = False) -> None:
        """Keep the node's request totals (kube-scheduler's NodeInfo) in step with its pods."""
        node_name = pod.node_name or ""
        node = self.nodes.get(node_name)
        listed = self.pods_by_node.get(node_name)
        if listed is None:
            listed = self.pods_by_node[node_name] = {}
        if sign > 0:
            listed[pod.key] = pod
        elif not keep_listed:
            listed.pop(pod.key, None)
        if self.on_account is not None:
            self.on_account(pod, sign)
        if node is None:
            return
        cpu, memory = pod.cpu, pod.memory
        if sign > 0:  # every binding comes here: plain additions
            node.requested_cpu += cpu
            node.requested_memory += memory
            node.nonzero_cpu += cpu or DEFAULT_MILLI_CPU_REQUEST
            node.nonzero_memory += memory or DEFAULT_MEMORY_REQUEST
            node.pod_count += 1
        else:
            node.requested_cpu -= cpu
            node.requested_memory -= memory
            node.nonzero_cpu -= cpu or DEFAULT_MILLI_CPU_REQUEST
            node.nonzero_memory -= memory or DEFAULT_MEMORY_REQUEST
            node.pod_count -= 1
        if self.on_requests is not None:
            self.on_requests(node)
