"""The views: nodes (with the node detail), pods, pending pods (with the scheduler's reason), leases
and the event log. Each keeps its table in step with the engine through the ChangeSet only.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Hashable, Iterable, Iterator

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Input, Static

from ...engine.explain import pod_outlook
from ...engine.objects import Event, Pod
from ...engine.store import ChangeSet
from ...units import format_age, format_duration
from .. import format as fmt
from ..actions import POD_BINDINGS, node_bindings
from .details import DetailPane, node_detail, pdb_detail, pod_detail
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ...engine import Simulation
    from ..app import PlaygroundApp

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """"a-2" before "a-10"."""
    return tuple(int(part) if i % 2 else part for i, part in enumerate(_DIGITS.split(name)))


class Source:
    """Base row source: reads the app's current simulation, only while the engine is idle."""

    def __init__(self, view: "TableView") -> None:
        self.view = view

    @property
    def sim(self) -> "Simulation":
        return self.view.playground.sim

    def readable(self) -> bool:
        return self.view.playground.engine_idle


# ---------------------------------------------------------------- view base


class FilterInput(Input):
    BINDINGS = [Binding("escape", "clear", "Clear filter", show=False, id="playground.filter.clear")]

    def action_clear(self) -> None:
        self.value = ""
        self.post_message(self.Submitted(self, ""))


class TableView(Vertical):
    """A titled table with a k9s-style `/` filter line; subclasses say what the rows are."""

    DEFAULT_CSS = """
    TableView { height: 1fr; }
    TableView > .view-title { height: 1; background: $boost; padding: 0 1; }
    TableView > FilterInput { height: 1; border: none; padding: 0 1; display: none; background: $panel; }
    TableView > FilterInput:focus { border: none; }
    TableView.-filtering > FilterInput { display: block; }
    """

    TITLE = ""
    FILTER_HINT = "filter"
    FOLLOW_TAIL = False
    DETAIL_ID: str | None = None  # views with a detail pane under the table name it here

    def __init__(self, playground: "PlaygroundApp", *, id: str) -> None:
        super().__init__(id=id)
        self.playground = playground
        self.title_bar = Static("", classes="view-title")
        self.filter_input = FilterInput(placeholder=f"/{self.FILTER_HINT} (Enter keeps it, Esc clears; !text inverts)")
        self.table = VirtualTable(self.columns(), self.make_source(), follow_tail=self.FOLLOW_TAIL,
                                  id=f"{id}-table")
        self._filter_timer: Timer | None = None

    def columns(self) -> list[Column]:
        raise NotImplementedError

    def make_source(self) -> Source:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        yield self.title_bar
        yield self.filter_input
        yield self.table
        if self.DETAIL_ID:
            self.detail = DetailPane(id=self.DETAIL_ID)
            yield self.detail

    @property
    def sim(self) -> "Simulation":
        return self.playground.sim

    # ---- data

    def row_keys(self) -> Iterable[str]:
        """Every row of a fresh table."""
        raise NotImplementedError

    def load(self) -> None:
        """A (new) simulation: fill the table from scratch."""
        self.table.replace_all(self.row_keys())
        if self.table.row_count:
            self.table.move_cursor(0)

    def apply(self, changes: ChangeSet) -> None:
        """Rows that changed since the last frame."""
        raise NotImplementedError

    def frame(self, time_moved: bool) -> None:
        """Once per frame while this view is shown: redraw what depends on time."""
        if time_moved and self.table.volatile:
            self.table.invalidate()
        self.update_title()

    def update_title(self) -> None:
        table = self.table
        text = Text(end="")
        text.append(self.TITLE, "bold")
        if table.filter:
            text.append(f"  /{table.filter}", "bold yellow")
            text.append(f"  [{table.row_count}/{table.total_count}]", "dim")
        else:
            text.append(f"  [{table.total_count}]", "dim")
        extra = self.title_extra()
        if extra:
            text.append("   ")
            text.append_text(extra)
        self.title_bar.update(text)

    def title_extra(self) -> Text | None:
        return None

    # ---- filter

    def open_filter(self) -> None:
        self.add_class("-filtering")
        self.filter_input.value = self.table.filter
        self.filter_input.focus()

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        # Debounced: filtering 150,000 pods is a one-off O(rows) pass, not one per key press.
        self._filter_timer = self.set_timer(0.15, lambda: self.apply_filter(event.value))

    @on(Input.Submitted)
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self.apply_filter(event.value)
        if not event.value:
            self.remove_class("-filtering")
        self.table.focus()

    def apply_filter(self, text: str) -> None:
        if not self.playground.engine_idle:
            self._filter_timer = self.set_timer(0.05, lambda: self.apply_filter(text))
            return
        self.table.set_filter(text)
        self.update_title()

    def clear_filter(self) -> bool:
        if not self.table.filter and not self.has_class("-filtering"):
            return False
        self.filter_input.value = ""
        self.apply_filter("")
        self.remove_class("-filtering")
        self.table.focus()
        return True


# ---------------------------------------------------------------- nodes


class NodeSource(Source):
    def sort_key(self, key: Hashable):
        return natural_key(str(key))

    def cells(self, key: Hashable):
        sim = self.sim
        node = sim.store.nodes.get(str(key))
        if node is None:
            return [fmt.plain(key), Text("gone", style="dim")]
        now = sim.clock.now
        return [
            fmt.plain(node.name, "bold"),
            fmt.node_status_text(node),
            fmt.plain(node.zone or '""'),
            fmt.machine_state(sim, node.name),
            fmt.plain(fmt.compact_taints(node.taints), "yellow"),
            Text(fmt.cpu_pair(node.requested_cpu, node.allocatable_cpu),
                 style=fmt.usage_style(node.requested_cpu, node.allocatable_cpu), end=""),
            Text(fmt.mem_pair(node.requested_memory, node.allocatable_memory),
                 style=fmt.usage_style(node.requested_memory, node.allocatable_memory), end=""),
            Text(f"{node.pod_count}/{node.allocatable_pods}",
                 style=fmt.usage_style(node.pod_count, node.allocatable_pods), end=""),
            fmt.lease_age_text(sim, node.name),
            fmt.drain_text(sim, node.name),
            format_age(now - node.creation_time),
        ]

    def match_text(self, key: Hashable) -> str:
        sim = self.sim
        node = sim.store.nodes.get(str(key))
        if node is None:
            return str(key)
        kubelet = sim.kubelets.get(node.name)
        state = kubelet.state_label() if kubelet else ""
        return f"{node.name} {fmt.node_status(node)} {node.zone} {state} {fmt.compact_taints(node.taints)}"


class NodesView(TableView):
    DETAIL_ID = "node-detail"
    TITLE = "Nodes"
    FILTER_HINT = "filter nodes by name, status, zone, machine state or taint"
    DEFAULT_CSS = """
    NodesView > #nodes-table { height: auto; max-height: 45%; min-height: 4; }
    NodesView > #node-detail { height: 1fr; }
    """

    BINDINGS = node_bindings()

    def columns(self) -> list[Column]:
        return [
            Column("name", "NAME", 6, 40),
            Column("status", "STATUS", 8, 30),
            Column("zone", "ZONE", 6, 30),
            Column("machine", "MACHINE", 12, 14),
            Column("taints", "TAINTS", 6, 44),
            Column("cpu", "CPU", 7, 14, "right"),
            Column("memory", "MEMORY", 10, 18, "right"),
            Column("pods", "PODS", 7, 9, "right"),
            Column("lease", "LEASE AGE", 9, 9, "right"),
            Column("drain", "DRAIN", 5, 9),
            Column("age", "AGE", 5, 8, "right"),
        ]

    def make_source(self) -> Source:
        return NodeSource(self)

    def row_keys(self) -> Iterable[str]:
        return self.sim.store.nodes

    def load(self) -> None:
        super().load()
        self.show_detail()

    def apply(self, changes: ChangeSet) -> None:
        nodes = self.sim.store.nodes
        if changes.removed_nodes:
            self.table.remove(k for k in changes.removed_nodes if k not in nodes)
        changed = changes.nodes | getattr(changes, "drains", set())
        if changed:
            self.table.upsert([k for k in changed if k in nodes])

    def frame(self, time_moved: bool) -> None:
        super().frame(time_moved)
        self.show_detail()

    def show_detail(self) -> None:
        key = self.table.cursor_key
        if key is None:
            self.detail.show(Text("no node selected", style="dim"))
        else:
            self.detail.show(node_detail(self.sim, str(key)))

    @on(VirtualTable.CursorMoved, "#nodes-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.show_detail()

    def title_extra(self) -> Text | None:
        key = self.table.cursor_key
        if key is None:
            return None
        return Text(f"selected: {key}  (keys act on it; ? lists them)", style="dim")


# ---------------------------------------------------------------- pods


class PodSource(Source):
    def sort_key(self, key: Hashable):
        return key

    def cells(self, key: Hashable):
        sim = self.sim
        pod = sim.store.pods.get(str(key))
        if pod is None:
            return [fmt.plain(key), Text("gone", style="dim")]
        return [
            fmt.plain(pod.namespace),
            fmt.plain(pod.name, "bold"),
            fmt.pod_ready(pod),
            fmt.pod_status_text(pod),
            fmt.plain(pod.node_name or "<none>", "" if pod.node_name else "dim"),
            fmt.plain(fmt.priority_label(pod)),
            fmt.pod_cpu(pod),
            fmt.pod_mem(pod),
            format_age(sim.clock.now - pod.creation_time),
            fmt.plain(pod_outlook(sim, pod), "yellow"),
        ]

    # Everything the text is made of marks the pod changed, so the table keeps the texts (a filter
    # over 150,000 pods is then a substring test per row).
    stable_match_text = True

    def match_text(self, key: Hashable) -> str:
        pod = self.sim.store.pods.get(str(key))
        return str(key) if pod is None else pod_match_text(pod)

    def match_texts(self, keys: Iterable[Hashable]) -> Iterator[tuple[Hashable, str]]:
        """(key, text) for many rows at once (loading 150,000 rows)."""
        pods = self.sim.store.pods
        for key in keys:
            pod = pods.get(str(key))
            yield key, str(key) if pod is None else pod_match_text(pod)


def pod_match_text(pod: "Pod") -> str:
    return f"{pod.key} {pod.node_name or ''} {fmt.pod_status(pod)} {pod.priority_class_name}"


class PodDetailMixin:
    detail: DetailPane
    table: VirtualTable
    playground: "PlaygroundApp"

    def show_detail(self) -> None:
        key = self.table.cursor_key
        if key is None:
            self.detail.show(Text("no pod selected", style="dim"))
        else:
            self.detail.show(pod_detail(self.playground.sim, str(key)))


class PodsView(PodDetailMixin, TableView):
    DETAIL_ID = "pod-detail"
    TITLE = "Pods"
    FILTER_HINT = "filter pods by namespace/name, node, status or priority class"
    BINDINGS = POD_BINDINGS
    DEFAULT_CSS = """
    PodsView > #pods-table { height: auto; max-height: 70%; min-height: 4; }
    PodsView > #pod-detail { height: 1fr; min-height: 8; }
    """

    def columns(self) -> list[Column]:
        return [
            Column("namespace", "NAMESPACE", 9, 20),
            Column("name", "NAME", 10, 48),
            Column("ready", "READY", 5, 5),
            Column("status", "STATUS", 8, 20),
            Column("node", "NODE", 6, 30),
            Column("priority", "PRIORITY", 8, 36),
            Column("cpu", "CPU", 4, 8, "right"),
            Column("memory", "MEMORY", 6, 9, "right"),
            Column("age", "AGE", 5, 8, "right"),
            Column("next", "NEXT", 20, 400, flex=True),
        ]

    def make_source(self) -> Source:
        return PodSource(self)

    def row_keys(self) -> Iterable[str]:
        return self.sim.store.pods

    def apply(self, changes: ChangeSet) -> None:
        pods = self.sim.store.pods
        gone = [k for k in changes.removed_pods if k not in pods]
        gone += [k for k in changes.pods if k not in pods and k not in changes.removed_pods]
        if gone:
            self.table.remove(gone)
        if changes.pods:
            self.table.upsert([k for k in changes.pods if k in pods])

    def frame(self, time_moved: bool) -> None:
        super().frame(time_moved)
        self.show_detail()

    @on(VirtualTable.CursorMoved, "#pods-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.show_detail()


# ---------------------------------------------------------------- pending


class PendingSource(Source):
    def sort_key(self, key: Hashable):
        pod = self.sim.store.pods.get(str(key))
        # The activeQ's order: PrioritySort (higher priority first), then the creation time.
        return (-pod.priority, pod.creation_time, key) if pod is not None else (0, 0, key)

    def cells(self, key: Hashable):
        sim = self.sim
        pod = sim.store.pods.get(str(key))
        if pod is None:
            return [fmt.plain(key), Text("gone", style="dim")]
        return [
            fmt.plain(pod.key, "bold"),
            fmt.plain(fmt.priority_label(pod)),
            fmt.pod_cpu(pod),
            fmt.pod_mem(pod),
            fmt.queue_text(sim, pod),
            fmt.plain(pod.nominated_node_name or "-", "cyan" if pod.nominated_node_name else "dim"),
            format_age(sim.clock.now - pod.creation_time),
            fmt.plain(fmt.scheduler_reason(sim, pod)),
        ]

    def match_text(self, key: Hashable) -> str:
        pod = self.sim.store.pods.get(str(key))
        if pod is None:
            return str(key)
        return f"{pod.key} {pod.priority_class_name} {fmt.scheduler_reason(self.sim, pod)}"


class PendingView(PodDetailMixin, TableView):
    DETAIL_ID = "pending-detail"
    TITLE = "Pending pods"
    FILTER_HINT = "filter pending pods by name, priority class or the scheduler's reason"
    BINDINGS = POD_BINDINGS
    DEFAULT_CSS = """
    PendingView > #pending-table { height: auto; max-height: 60%; min-height: 4; }
    PendingView > #pending-detail { height: 1fr; min-height: 10; }
    """

    def columns(self) -> list[Column]:
        return [
            Column("name", "POD", 10, 48),
            Column("priority", "PRIORITY", 8, 36),
            Column("cpu", "CPU", 4, 8, "right"),
            Column("memory", "MEMORY", 6, 9, "right"),
            Column("queue", "QUEUE", 13, 36),
            Column("nominated", "NOMINATED", 9, 24),
            Column("age", "AGE", 5, 8, "right"),
            Column("reason", "REASON (kube-scheduler)", 24, 600, flex=True),
        ]

    def make_source(self) -> Source:
        return PendingSource(self)

    def row_keys(self) -> Iterable[str]:
        return (k for k, p in self.sim.store.pods.items() if fmt.is_pending(p))

    def apply(self, changes: ChangeSet) -> None:
        pods = self.sim.store.pods
        keys = changes.pods | changes.removed_pods
        if not keys:
            return
        table = self.table
        add, drop = [], []
        for key in keys:
            pod = pods.get(key)
            if pod is not None and fmt.is_pending(pod):
                add.append(key)
            elif key in table:
                drop.append(key)
        if drop:
            table.remove(drop)
        if add:
            table.upsert(add)

    def frame(self, time_moved: bool) -> None:
        super().frame(time_moved)
        self.show_detail()

    @on(VirtualTable.CursorMoved, "#pending-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.show_detail()

    def title_extra(self) -> Text | None:
        counts = self.sim.scheduler.queue.counts()
        return Text(f"activeQ {counts['active']}  backoffQ {counts['backoff']}  "
                    f"unschedulablePods {counts['unschedulable']}", style="dim")


# ---------------------------------------------------------------- leases


class LeaseSource(Source):
    def sort_key(self, key: Hashable):
        return natural_key(str(key))

    def cells(self, key: Hashable):
        sim = self.sim
        name = str(key)
        lease = sim.store.leases.get(name)
        if lease is None:
            return [fmt.plain(name), Text("gone", style="dim")]
        kubelet = sim.kubelets.get(name)
        if kubelet is not None:
            kubelet.catch_up()
        renew = kubelet.lease_renew_time if kubelet is not None else None
        return [
            lease.namespace,
            fmt.plain(lease.name, "bold"),
            fmt.plain(lease.holder_identity),
            f"{lease.lease_duration_seconds}s",
            fmt.sim_time(renew),
            fmt.lease_age_text(sim, name),
            fmt.machine_state(sim, name),
        ]

    def match_text(self, key: Hashable) -> str:
        sim = self.sim
        kubelet = sim.kubelets.get(str(key))
        return f"{key} {kubelet.state_label() if kubelet else ''}"


class LeasesView(TableView):
    TITLE = "Leases (kube-node-lease)"
    FILTER_HINT = "filter leases by name or machine state"

    def columns(self) -> list[Column]:
        return [
            Column("namespace", "NAMESPACE", 15, 16),
            Column("name", "NAME", 6, 40),
            Column("holder", "HOLDER", 6, 40),
            Column("duration", "DURATION", 8, 9, "right"),
            Column("renew", "RENEW TIME", 10, 14, "right"),
            Column("age", "SINCE RENEWAL", 13, 13, "right"),
            Column("machine", "MACHINE", 12, 14),
        ]

    def make_source(self) -> Source:
        return LeaseSource(self)

    def row_keys(self) -> Iterable[str]:
        return self.sim.store.leases

    def apply(self, changes: ChangeSet) -> None:
        leases = self.sim.store.leases
        if changes.removed_nodes:
            self.table.remove(k for k in changes.removed_nodes if k not in leases)
        if changes.nodes:
            self.table.upsert([k for k in changes.nodes if k in leases])

    def title_extra(self) -> Text | None:
        grace = self.sim.nodelifecycle.config.node_monitor_grace_period
        return Text(f"red once past node-monitor-grace-period ({format_duration(grace)})", style="dim")


# ---------------------------------------------------------------- events


class EventSource(Source):
    def sort_key(self, key: Hashable):
        return key

    def cells(self, key: Hashable):
        event = self.view.events.get(key)  # type: ignore[attr-defined]
        if event is None:
            return ["", Text("dropped", style="dim")]
        now = self.sim.clock.now
        return [
            format_age(now - event.time),
            fmt.sim_time(event.time),
            Text(event.type, style="bold yellow" if event.type == "Warning" else "", end=""),
            fmt.plain(event.reason, "bold" if event.type == "Warning" else ""),
            fmt.plain(event.object),
            fmt.plain(event.message),
        ]

    def match_text(self, key: Hashable) -> str:
        event = self.view.events.get(key)  # type: ignore[attr-defined]
        if event is None:
            return ""
        return f"{event.type} {event.reason} {event.object} {event.message} {event.source}"


class EventsView(TableView):
    TITLE = "Events"
    FILTER_HINT = "filter events by type, reason, object, message or source"
    FOLLOW_TAIL = True

    def __init__(self, playground: "PlaygroundApp", *, id: str) -> None:
        self.events: dict[int, Event] = {}
        self.seen = 0
        super().__init__(playground, id=id)

    def columns(self) -> list[Column]:
        return [
            Column("last", "LAST SEEN", 9, 9, "right"),
            Column("at", "AT", 7, 10, "right"),
            Column("type", "TYPE", 7, 7),
            Column("reason", "REASON", 12, 28),
            Column("object", "OBJECT", 12, 48),
            Column("message", "MESSAGE", 20, 600, flex=True),
        ]

    def make_source(self) -> Source:
        return EventSource(self)

    def load(self) -> None:
        recorder = self.sim.store.recorder
        self.events = {}
        kept = list(recorder.events)
        first = recorder.total - len(kept) + 1
        for offset, event in enumerate(kept):
            self.events[first + offset] = event
        self.seen = recorder.total
        self.table.replace_all(self.events)
        self.table.action_last()

    def apply(self, changes: ChangeSet) -> None:
        recorder = self.sim.store.recorder
        if recorder.total == self.seen:
            return
        new = recorder.since(self.seen)
        first = recorder.total - len(new) + 1
        keys = []
        for offset, event in enumerate(new):
            self.events[first + offset] = event
            keys.append(first + offset)
        self.seen = recorder.total
        limit = recorder.events.maxlen
        dropped: list[int] = []
        if limit is not None and len(self.events) > limit:
            oldest = recorder.total - limit
            for k in self.events:  # dicts keep insertion order: the oldest come first
                if k > oldest:
                    break
                dropped.append(k)
            for k in dropped:
                del self.events[k]
        if dropped:
            self.table.remove(dropped)
        self.table.upsert([k for k in keys if k in self.events])


# ---------------------------------------------------------------- PodDisruptionBudgets


class PDBSource(Source):
    def sort_key(self, key: Hashable):
        return key

    def cells(self, key: Hashable):
        sim = self.sim
        pdb = sim.store.pdbs.get(str(key))
        if pdb is None:
            return [fmt.plain(key), Text("gone", style="dim")]
        cond = pdb.conditions.get("DisruptionAllowed")
        blocking = fmt.pdb_blocking(sim, pdb.key)
        blocked = sum(len(p) for p in blocking.values())
        return [
            fmt.plain(pdb.namespace),
            fmt.plain(pdb.name, "bold"),
            "N/A" if pdb.min_available is None else str(pdb.min_available),
            "N/A" if pdb.max_unavailable is None else str(pdb.max_unavailable),
            Text(str(pdb.disruptions_allowed), style="green" if pdb.disruptions_allowed > 0 else "bold red", end=""),
            f"{pdb.current_healthy}/{pdb.desired_healthy}/{pdb.expected_pods}",
            fmt.plain(f"{cond.status} {cond.reason}" if cond else "-"),
            Text(", ".join(f"{node} ({len(pods)})" for node, pods in sorted(blocking.items())) if blocked else "",
                 style="bold red", end=""),
        ]

    def match_text(self, key: Hashable) -> str:
        pdb = self.sim.store.pdbs.get(str(key))
        if pdb is None:
            return str(key)
        return f"{pdb.key} {' '.join(f'{k}={v}' for k, v in pdb.selector.items())}"


class PDBView(TableView):
    DETAIL_ID = "pdb-detail"
    TITLE = "PodDisruptionBudgets"
    FILTER_HINT = "filter budgets by namespace/name or selector"
    DEFAULT_CSS = """
    PDBView > #pdbs-table { height: auto; max-height: 60%; min-height: 4; }
    PDBView > #pdb-detail { height: 1fr; min-height: 8; }
    """

    def columns(self) -> list[Column]:
        return [
            Column("namespace", "NAMESPACE", 9, 20),
            Column("name", "NAME", 6, 40),
            Column("min", "MIN AVAILABLE", 13, 13, "right"),
            Column("max", "MAX UNAVAILABLE", 15, 15, "right"),
            Column("allowed", "ALLOWED DISRUPTIONS", 19, 19, "right"),
            Column("healthy", "HEALTHY/DESIRED/EXPECTED", 24, 24, "right"),
            Column("condition", "DisruptionAllowed", 17, 40),
            Column("blocking", "BLOCKING DRAINS OF", 18, 200, flex=True),
        ]

    def make_source(self) -> Source:
        return PDBSource(self)

    def row_keys(self) -> Iterable[str]:
        return self.sim.store.pdbs

    def apply(self, changes: ChangeSet) -> None:
        pdbs = self.sim.store.pdbs
        changed = getattr(changes, "pdbs", set())
        if changed:
            self.table.remove([k for k in changed if k not in pdbs])
            self.table.upsert([k for k in changed if k in pdbs])
        if getattr(changes, "drains", None):
            self.table.invalidate()

    def frame(self, time_moved: bool) -> None:
        super().frame(time_moved)
        key = self.table.cursor_key
        self.detail.show(pdb_detail(self.sim, str(key)) if key is not None
                         else Text("no PodDisruptionBudget in this scenario", style="dim"))

    @on(VirtualTable.CursorMoved, "#pdbs-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.frame(False)


def has_pdbs(sim: "Simulation") -> bool:
    """The engine has a disruption controller (and so PodDisruptionBudgets)."""
    return getattr(sim, "disruption", None) is not None and hasattr(sim.store, "pdbs")


VIEW_CLASSES: dict[str, type[TableView]] = {
    "nodes": NodesView,
    "pods": PodsView,
    "pending": PendingView,
    "leases": LeasesView,
    "events": EventsView,
    "pdbs": PDBView,
}
VIEW_TITLES = {"nodes": "Nodes", "pods": "Pods", "pending": "Pending", "leases": "Leases", "events": "Events",
               "pdbs": "PDBs"}

from . import deployments  # noqa: E402,F401  (the Deployments view builds on TableView and registers itself)
