"""The Leases view: the kube-node-lease Leases the kubelets renew, red once past
node-monitor-grace-period."""

from __future__ import annotations

from typing import Hashable, Iterable

from rich.text import Text

from ...engine.store import ChangeSet
from ...units import format_duration
from .. import format as fmt
from .tableview import Source, TableView, natural_key, sort_bindings
from .vtable import Column


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
            kubelet.catch_up_for_reader()
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

    def sort_value(self, column: str, key: Hashable):
        name = str(key)
        lease = self.sim.store.leases.get(name)
        if lease is None:
            return (1,)
        if column == "name":
            return (0, natural_key(name))
        if column == "holder":
            return (0, lease.holder_identity)
        age = fmt.lease_age(self.sim, name)  # renewals are materialised lazily: this catches up
        if column in ("renew", "age"):
            value = -1 if age is None else age
            return (0, -value if column == "renew" else value)
        return NotImplemented

    def match_text(self, key: Hashable) -> str:
        sim = self.sim
        kubelet = sim.kubelets.get(str(key))
        return f"{key} {kubelet.state_label() if kubelet else ''}"


class LeasesView(TableView):
    TITLE = "Leases (kube-node-lease)"
    FILTER_HINT = "filter leases by name or machine state"
    SORTS = (("N", "name", "NAME"), ("H", "holder", "HOLDER"), ("R", "renew", "RENEW TIME"),
             ("L", "age", "SINCE RENEWAL"))
    BINDINGS = sort_bindings(SORTS)

    def columns(self) -> list[Column]:
        return [
            Column("namespace", "NAMESPACE", 15, 16),
            Column("name", "NAME", 6, 40),
            Column("holder", "HOLDER", 6, 40),
            Column("duration", "DURATION", 8, 9, "right"),
            Column("renew", "RENEW TIME", 10, 14, "right", volatile=True),
            Column("age", "SINCE RENEWAL", 13, 14, "right", volatile=True),
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
