"""The Pending view: unscheduled pods in the activeQ's order with the scheduler's reason."""

from __future__ import annotations

from typing import Hashable, Iterable

from rich.text import Text
from textual import on

from ...engine.store import ChangeSet
from ...units import format_age
from .. import format as fmt
from ..actions import POD_BINDINGS
from .pods import PodDetailMixin, pod_sort_value
from .tableview import Source, TableView, sort_bindings
from .vtable import Column, VirtualTable


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

    def sort_value(self, column: str, key: Hashable):
        pod = self.sim.store.pods.get(str(key))
        if pod is None:
            return (1,)
        if column == "queue":
            return (0, self.sim.scheduler.queue_state(pod)[0] or "")
        return (0, pod_sort_value(pod, column))

    def match_text(self, key: Hashable) -> str:
        pod = self.sim.store.pods.get(str(key))
        if pod is None:
            return str(key)
        return f"{pod.key} {pod.priority_class_name} {fmt.scheduler_reason(self.sim, pod)}"


class PendingView(PodDetailMixin, TableView):
    DETAIL_ID = "pending-detail"
    TITLE = "Pending pods"
    FILTER_HINT = "filter pending pods by name, priority class or the scheduler's reason"
    SORTS = (("N", "name", "POD"), ("I", "priority", "PRIORITY"), ("C", "cpu", "CPU"), ("M", "memory", "MEMORY"),
             ("Q", "queue", "QUEUE"), ("O", "nominated", "NOMINATED"), ("A", "age", "AGE"))
    BINDINGS = POD_BINDINGS + sort_bindings(SORTS)
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
            Column("age", "AGE", 5, 8, "right", timed=True),
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
        self.frame_detail()

    @on(VirtualTable.CursorMoved, "#pending-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.show_detail()

    def title_extra(self) -> Text | None:
        counts = self.sim.scheduler.queue.counts()
        return Text(f"activeQ {counts['active']}  backoffQ {counts['backoff']}  "
                    f"unschedulablePods {counts['unschedulable']}", style="dim")
