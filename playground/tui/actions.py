"""The keys, binding ids and palette entries of everything a user can do.

One table per kind of target. To give a new engine operation a key, add a row here (its name must be
in `playground.engine.operations.OPERATION_INFO`); an operation in OPERATION_INFO without a row still
gets a palette entry with a target picker (see `extra_operations`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

from ..engine.objects import OUT_OF_SERVICE_TAINT
from ..engine.operations import OPERATION_INFO

OUT_OF_SERVICE = f"{OUT_OF_SERVICE_TAINT}=nodeshutdown:NoExecute"


@dataclass(frozen=True, slots=True)
class NodeAction:
    op: str  # an OPERATION_INFO name, or "out-of-service" (taint/untaint with the out-of-service taint)
    key: str
    show: bool = False  # in the footer
    confirm: bool = False
    dialog: str | None = None  # "taint", "untaint", "options" (the operation's OPERATION_INFO options)
    footer: str = ""  # short footer text; the palette uses OPERATION_INFO's title

    @property
    def binding_id(self) -> str:
        return f"playground.node.{self.op}"

    @property
    def title(self) -> str:
        if self.op == "out-of-service":
            return "Toggle out-of-service taint"
        info = OPERATION_INFO.get(self.op)
        return info.title if info else self.op

    @property
    def help(self) -> str:
        if self.op == "out-of-service":
            return (f"Add or remove {OUT_OF_SERVICE} (non-graceful node shutdown): the NoExecute taint evicts "
                    "pods that do not tolerate it, and PodGC force-deletes the terminating pods of a not-ready "
                    "out-of-service node, so their replacements and volumes can move.")
        info = OPERATION_INFO.get(self.op)
        return info.help if info else ""

    @property
    def available(self) -> bool:
        if self.op == "out-of-service":
            return "taint" in OPERATION_INFO and "untaint" in OPERATION_INFO
        return self.op in OPERATION_INFO


NODE_ACTIONS: tuple[NodeAction, ...] = (
    NodeAction("cordon", "c", show=True),
    NodeAction("uncordon", "u"),
    # kubectl drain: a dialog with the options OPERATION_INFO["drain"] lists.
    NodeAction("drain", "d", show=True, dialog="options"),
    NodeAction("cancel-drain", "D"),
    NodeAction("shutdown", "s", show=True, footer="Shutdown"),
    NodeAction("power-off", "p", show=True, confirm=True),
    NodeAction("power-on", "o", show=True),
    NodeAction("partition", "n", show=True),
    NodeAction("heal", "h", footer="Heal"),
    NodeAction("stop-kubelet", "k"),
    NodeAction("start-kubelet", "K"),
    NodeAction("restart-kubelet", "e"),
    NodeAction("delete-node", "X", confirm=True),
    NodeAction("taint", "t", dialog="taint"),
    NodeAction("untaint", "T", dialog="untaint"),
    NodeAction("out-of-service", "O", footer="Out-of-service"),
)


def node_actions() -> list[NodeAction]:
    return [a for a in NODE_ACTIONS if a.available]


def node_action(op: str) -> NodeAction | None:
    return next((a for a in NODE_ACTIONS if a.op == op), None)


def node_bindings() -> list[Binding]:
    return [
        Binding(a.key, f"app.node_op('{a.op}')", a.footer or a.title, show=a.show, id=a.binding_id,
                tooltip=a.help)
        for a in node_actions()
    ]


KNOWN_OPERATIONS = {a.op for a in NODE_ACTIONS} | {"create-pod", "delete-pod", "scale", "rollout", "set-strategy"}


def extra_operations() -> list[str]:
    """Operations the engine offers that have no row above: palette entries with a target picker."""
    return [name for name in OPERATION_INFO if name not in KNOWN_OPERATIONS]


# Keys of the pod views (pods, pending).
POD_BINDINGS = [
    Binding("ctrl+d,delete", "app.delete_pod", "Delete pod", show=True, id="playground.pod.delete-pod",
            tooltip="Delete the selected pod (kubectl delete pod), with its grace period."),
    Binding("d", "app.describe", "Describe", show=False, id="playground.pod.describe",
            tooltip="kubectl describe pod, as k9s' d (v does the same in every view)"),
]

VIEW_ALIASES = {
    "no": "nodes", "node": "nodes", "nodes": "nodes",
    "po": "pods", "pod": "pods", "pods": "pods",
    "pe": "pending", "pending": "pending", "pend": "pending",
    "le": "leases", "lease": "leases", "leases": "leases",
    "ev": "events", "event": "events", "events": "events",
    "pdb": "pdbs", "pdbs": "pdbs", "poddisruptionbudgets": "pdbs",
    "deploy": "deployments", "deployment": "deployments", "deployments": "deployments",
}
