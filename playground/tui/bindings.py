"""The app-wide keys and how the help screen groups every key.

Time keys come from timecontrol.py, node and pod keys from actions.py, the Deployments keys from its
view; each binding has an id a keymap file can remap (keymap.py).
"""

from __future__ import annotations

from textual.binding import Binding

from .actions import POD_BINDINGS, node_bindings
from .timecontrol import BINDING_IDS as TIME_BINDING_IDS
from .timecontrol import time_bindings
from .widgets.deployments import DEPLOYMENT_BINDINGS
from .widgets.views import VIEW_CLASSES, VIEW_TITLES
from .widgets.vtable import VirtualTable

VIEW_GROUP = Binding.Group("Views", compact=True)


def sort_help() -> list[Binding]:
    """One help row per view: its sort keys and the columns they sort."""
    rows = []
    for name, cls in VIEW_CLASSES.items():
        sorts = getattr(cls, "SORTS", ())
        if sorts:
            rows.append(Binding(",".join(key for key, _, _ in sorts), "noop", f"{VIEW_TITLES[name]} view",
                                id=f"playground.sort.* ({name})",
                                tooltip="  ".join(f"{key} {label}" for key, _, label in sorts)))
    return rows


def global_bindings() -> list[Binding]:
    views = [
        Binding(str(i), f"view('{name}')", VIEW_TITLES[name], show=False, id=f"playground.view.{name}",
                group=VIEW_GROUP, tooltip=f"Show the {VIEW_TITLES[name]} view")
        for i, name in enumerate(VIEW_CLASSES, 1)
    ]
    return [
        Binding("question_mark", "help", "Help", id="playground.help", tooltip="List every key and its binding id"),
        *time_bindings(),
        *views,
        Binding("colon", "view_prompt", "Go to view…", show=False, id="playground.view-prompt",
                tooltip="k9s-style prompt: :nodes, :pods, :pending, :leases, :events, :pdbs, :deploy, :q"),
        Binding("slash", "filter", "Filter", id="playground.filter", tooltip="Filter the current view"),
        Binding("v", "describe", "Describe", show=False, id="playground.describe",
                tooltip="kubectl describe of the selected node or pod (k9s: d; here d drains a node)"),
        Binding("y", "yaml", "YAML", show=False, id="playground.yaml",
                tooltip="The selected node or pod as kubectl get -o yaml prints it"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="playground.clear-filter",
                tooltip="Clear the current view's filter"),
        Binding("a", "create_pod", "Create pod", show=False, id="playground.create-pod",
                tooltip="Create a bare pod (kubectl run)"),
        Binding("r", "scale", "Scale", show=False, id="playground.scale",
                tooltip="Scale a Deployment (kubectl scale)"),
        Binding("ctrl+o", "load", "Load", show=False, id="playground.load", tooltip="Load a scenario file"),
        Binding("ctrl+s", "save", "Save", show=False, id="playground.save",
                tooltip="Save the scenario with this session's operations"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, priority=True, id="playground.palette",
                tooltip="Find any command by name"),
        Binding("q", "quit", "Quit", id="playground.quit", tooltip="Quit"),
    ]


def binding_groups() -> list[tuple[str, list[Binding]]]:
    """Every key, grouped as the help screen lists them."""
    own = {b.id: b for b in global_bindings()}

    def pick(*ids: str) -> list[Binding]:
        return [own[i] for i in ids if i in own]

    views = [b for b in own.values() if b.id and b.id.startswith("playground.view.")]
    return [
        ("Simulation", pick(*TIME_BINDING_IDS)),
        ("Views", [*views, *pick("playground.view-prompt", "playground.filter", "playground.clear-filter",
                                 "playground.describe", "playground.yaml")]),
        ("Sort (k9s: shift+letter; again to reverse)", sort_help()),
        ("Nodes view: on the selected node (palette: on any node by name)", list(node_bindings())),
        ("Pods and Pending views: on the selected pod", list(POD_BINDINGS)),
        ("Deployments view: on the selected Deployment (palette: Roll out…, Edit strategy…)",
         list(DEPLOYMENT_BINDINGS)),
        ("Cluster", pick("playground.create-pod", "playground.scale")),
        ("Scenario files", pick("playground.load", "playground.save")),
        ("App", pick("playground.help", "playground.palette", "playground.quit")),
        ("Tables", list(VirtualTable.BINDINGS)),  # type: ignore[arg-type]
    ]
