"""The Nodes view: `kubectl get nodes` columns plus the machine, lease and drain, with the selected
node's detail under the table."""

from __future__ import annotations

from typing import Hashable, Iterable

from rich.text import Text
from textual import on

from ...engine.store import ChangeSet
from ...units import format_age
from .. import format as fmt
from ..actions import node_bindings
from .details import node_detail
from .tableview import Source, TableView, natural_key, sort_bindings
from .vtable import Column, VirtualTable


class NodeSource(Source):
    def sort_key(self, key: Hashable):
        return natural_key(str(key))

    def cells(self, key: Hashable):
        sim = self.sim
        node = sim.store.nodes.get(str(key))
        if node is None:
            # The Node object was deleted; its machine remains (a kubelet that starts registers it again).
            return [fmt.plain(key, "dim"), Text("<deleted>", style="dim", end=""), "", fmt.machine_state(sim, str(key))]
        now = sim.clock.now
        return [
            fmt.plain(node.name, "bold"),
            fmt.node_status_text(node),
            fmt.plain(fmt.zone_label(node.zone), "" if node.zone else "dim"),
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

    def sort_value(self, column: str, key: Hashable):
        sim = self.sim
        node = sim.store.nodes.get(str(key))
        if node is None:
            return (1,)  # deleted Node objects last, whatever the column
        if column == "name":
            value = natural_key(node.name)
        elif column == "status":
            value = fmt.node_status(node)
        elif column == "zone":
            value = node.zone
        elif column == "cpu":
            value = node.requested_cpu
        elif column == "memory":
            value = node.requested_memory
        elif column == "pods":
            value = node.pod_count
        elif column == "lease":
            age = fmt.lease_age(sim, node.name)
            value = -1 if age is None else age
        elif column == "age":
            value = -node.creation_time
        else:
            return NotImplemented
        return (0, value)

    def match_text(self, key: Hashable) -> str:
        sim = self.sim
        node = sim.store.nodes.get(str(key))
        if node is None:
            return f"{key} deleted"
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

    SORTS = (("N", "name", "NAME"), ("S", "status", "STATUS"), ("Z", "zone", "ZONE"), ("C", "cpu", "CPU"),
             ("M", "memory", "MEMORY"), ("P", "pods", "PODS"), ("L", "lease", "LEASE AGE"), ("A", "age", "AGE"))
    BINDINGS = node_bindings() + sort_bindings(SORTS)

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
            Column("lease", "LEASE AGE", 9, 10, "right", volatile=True),
            Column("drain", "DRAIN", 5, 9),
            Column("age", "AGE", 5, 8, "right", timed=True),
        ]

    def make_source(self) -> Source:
        return NodeSource(self)

    def row_keys(self) -> Iterable[str]:
        # Machines whose Node object was deleted keep a row, so that their kubelet can be restarted.
        return dict.fromkeys([*self.sim.store.nodes, *self.sim.kubelets])

    def load(self) -> None:
        super().load()
        self.show_detail()

    def apply(self, changes: ChangeSet) -> None:
        nodes = self.sim.store.nodes
        machines = self.sim.kubelets
        if changes.removed_nodes:
            self.table.remove(k for k in changes.removed_nodes if k not in nodes and k not in machines)
        changed = changes.nodes | changes.removed_nodes | getattr(changes, "drains", set())
        if changed:
            self.table.upsert([k for k in changed if k in nodes or k in machines])

    def frame(self, time_moved: bool) -> None:
        super().frame(time_moved)
        if self.detail.due(self.table.cursor_key):
            self.show_detail()

    def show_detail(self) -> None:
        key = self.table.cursor_key
        if key is None:
            self.detail.show(Text("no node selected", style="dim"), key)
        else:
            self.detail.show(node_detail(self.sim, str(key)), key)

    @on(VirtualTable.CursorMoved, "#nodes-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.show_detail()

    def title_extra(self) -> Text | None:
        key = self.table.cursor_key
        if key is None:
            return None
        return Text(f"selected: {key}  (keys act on it; ? lists them)", style="dim")
