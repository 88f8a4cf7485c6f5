"""The views the app shows, in tab order: one module each (nodes, pods, pending, leases, events, pdbs,
deployments), all built on tableview.TableView."""

from __future__ import annotations

from .deployments import DeploymentsView
from .events import EventsView
from .leases import LeasesView
from .nodes import NodesView
from .pdbs import PDBView, has_pdbs
from .pending import PendingView
from .pods import PodsView
from .tableview import Source, TableView, natural_key

VIEW_CLASSES: dict[str, type[TableView]] = {
    "nodes": NodesView,
    "pods": PodsView,
    "pending": PendingView,
    "leases": LeasesView,
    "events": EventsView,
    "pdbs": PDBView,
    "deployments": DeploymentsView,
}
VIEW_TITLES = {"nodes": "Nodes", "pods": "Pods", "pending": "Pending", "leases": "Leases", "events": "Events",
               "pdbs": "PDBs", "deployments": "Deployments"}

__all__ = ["VIEW_CLASSES", "VIEW_TITLES", "DeploymentsView", "EventsView", "LeasesView", "NodesView", "PDBView",
           "PendingView", "PodsView", "Source", "TableView", "has_pdbs", "natural_key"]
