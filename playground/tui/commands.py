"""The command palette (ctrl+p): every action by name, node operations with the node picked by name.

Typing an operation and a node ("power off b-2") offers the direct command; the plain "Power off
node…" entry opens a picker with every node. The entries come from `PlaygroundApp.palette_commands`,
the same table the keys use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from .app import PlaygroundApp


class PlaygroundCommands(Provider):
    @property
    def playground(self) -> "PlaygroundApp":
        return self.app  # type: ignore[return-value]

    async def discover(self) -> Hits:
        for command in self.playground.palette_commands(""):
            if command.discover:
                yield DiscoveryHit(command.title, command.callback, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.playground.palette_commands(query):
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), command.callback, help=command.help)
