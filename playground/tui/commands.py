"""The command palette (ctrl+p): every action by name, node operations with the node picked by name.

Typing an operation and a node ("power off b-2") offers the direct command; the plain "Power off
node…" entry opens a picker with every node. The entries come from `palette_commands`, built from the
same tables the keys use (timecontrol.py, actions.py, the views).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..engine.operations import OPERATION_INFO
from .actions import extra_operations, node_actions
from .flows import ZONE_OPERATIONS

if TYPE_CHECKING:
    from .app import PlaygroundApp


class PaletteCommand(NamedTuple):
    title: str
    help: str
    callback: Callable[[], Any]
    discover: bool = True


def palette_commands(app: "PlaygroundApp", query: str) -> list[PaletteCommand]:
    from .widgets.deployments import palette_commands as deployment_palette_commands
    from .widgets.tableview import natural_key

    commands = app.timecontrol.palette_commands()
    for name in app.views:
        commands.append(PaletteCommand(f"View: {app.view_title(name)}", f"Show the {name} view",
                                       lambda n=name: app.action_view(n)))
    commands += [
        PaletteCommand("Filter the current view", "/ then text; !text inverts", app.action_filter),
        PaletteCommand("Load a scenario…", "Open a scenario file (ctrl+o)", app.action_load),
        PaletteCommand("Save the scenario…", "Save with this session's operations (ctrl+s)", app.action_save),
        PaletteCommand("Keys (help)", "Every key and binding id (?)", app.action_help),
    ]
    for action in node_actions():
        commands.append(PaletteCommand(f"{action.title} node…", action.help,
                                       lambda op=action.op: app.pick_node_then(op)))
    for action in node_actions():
        if action.op in ZONE_OPERATIONS:
            commands.append(PaletteCommand(f"{action.title} zone…", f"Every node of a zone: {action.help}",
                                           lambda op=action.op: app.pick_zone_then(op)))
    if "create-pod" in OPERATION_INFO:
        commands.append(PaletteCommand("Create pod…", OPERATION_INFO["create-pod"].help, app.action_create_pod))
    if "delete-pod" in OPERATION_INFO:
        commands.append(PaletteCommand("Delete pod…", OPERATION_INFO["delete-pod"].help,
                                       app.pick_pod_then_delete))
    if "scale" in OPERATION_INFO:
        commands.append(PaletteCommand("Scale deployment…", OPERATION_INFO["scale"].help, app.action_scale))
    commands += deployment_palette_commands(app)
    for name in extra_operations():
        info = OPERATION_INFO[name]
        commands.append(PaletteCommand(f"{info.title}…", info.help, lambda n=name: app.generic_operation(n)))
    # "power off b-2": direct commands for the nodes the query names (bounded, whatever the cluster size).
    words = query.lower().split()
    if words:
        nodes = app.sim.store.nodes

        def named_in_query(name: str) -> bool:
            lower = name.lower()
            return any(lower.startswith(w) or (len(w) >= 2 and w in lower) for w in words)
        named = [n for n in sorted(nodes, key=natural_key) if named_in_query(n)][:12]
        selected = app.selected_node()
        if selected and selected not in named:
            named.append(selected)
        for node in sorted(named, key=natural_key):
            for action in node_actions():
                commands.append(PaletteCommand(f"{action.title} {node}", action.help,
                                               lambda op=action.op, n=node: app.node_op(op, n), discover=False))
    return commands


class PlaygroundCommands(Provider):
    @property
    def playground(self) -> "PlaygroundApp":
        return self.app  # type: ignore[return-value]

    async def discover(self) -> Hits:
        for command in palette_commands(self.playground, ""):
            if command.discover:
                yield DiscoveryHit(command.title, command.callback, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in palette_commands(self.playground, query):
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), command.callback, help=command.help)
