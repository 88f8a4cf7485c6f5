"""The PodDisruptionBudgets view: `kubectl get pdb` columns plus the drains each budget blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable, Iterable

from rich.text import Text
from textual import on

from ...engine.store import ChangeSet
from .. import format as fmt
from .details import pdb_detail
from .tableview import Source, TableView, sort_bindings
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ...engine import Simulation


class PDBSource(Source):
    sort_key_is_key = True

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
    SORTS = (("P", "namespace", "NAMESPACE"), ("N", "name", "NAME"))
    BINDINGS = sort_bindings(SORTS)
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
