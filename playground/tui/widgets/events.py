"""The Events view: the event recorder's log, following its tail. A refused operation is the user's
message (a notification), not a cluster event: the view leaves it out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable

from rich.text import Text

from ...engine.objects import Event
from ...engine.store import ChangeSet
from ...units import format_age
from .. import format as fmt
from .tableview import Source, TableView, sort_bindings
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ..app import PlaygroundApp


class EventSource(Source):
    sort_key_is_key = True

    def sort_key(self, key: Hashable):
        return key

    def cells(self, key: Hashable):
        event = self.view.events.get(key)  # type: ignore[attr-defined]
        if event is None:
            return ["", Text("dropped", style="dim")]
        now = self.sim.clock.now
        return [
            format_age(now - event.last_time),
            fmt.sim_time(event.last_time),
            Text(event.type, style="bold yellow" if event.type == "Warning" else "", end=""),
            fmt.plain(event.reason, "bold" if event.type == "Warning" else ""),
            fmt.plain(event.object),
            Text(str(event.count), style="bold" if event.count > 1 else "dim", end=""),
            format_age(now - event.time),
            fmt.plain(event.message),
        ]

    def sort_value(self, column: str, key: Hashable):
        event = self.view.events.get(key)  # type: ignore[attr-defined]
        if event is None:
            return (1,)
        if column == "last":
            return (0, -event.last_time)  # the youngest first, as ages sort
        if column == "count":
            return (0, -event.count)
        if column in ("type", "reason", "object"):
            return (0, getattr(event, column))
        return NotImplemented

    def match_text(self, key: Hashable) -> str:
        event = self.view.events.get(key)  # type: ignore[attr-defined]
        if event is None:
            return ""
        return f"{event.type} {event.reason} {event.object} {event.message} {event.source}"


class EventsView(TableView):
    TITLE = "Events"
    FILTER_HINT = "filter events by type, reason, object, message or source"
    FOLLOW_TAIL = True
    SORTS = (("A", "last", "LAST SEEN"), ("T", "type", "TYPE"), ("R", "reason", "REASON"), ("O", "object", "OBJECT"),
             ("N", "count", "COUNT"))
    BINDINGS = sort_bindings(SORTS)

    def __init__(self, playground: "PlaygroundApp", *, id: str) -> None:
        self.events: dict[int, Event] = {}
        self.keys: dict[int, int] = {}  # id(Event) -> its row key, to refresh a counted repeat
        self.seen = 0
        # While another view is shown, rows to add (or refresh) and to drop are only noted: at ×1000
        # thousands of events come and go per frame, and the table catches up when it is shown.
        self._upsert: dict[int, None] = {}
        self._drop: set[int] = set()
        super().__init__(playground, id=id)

    def on_virtual_table_activated(self, message: VirtualTable.Activated) -> None:
        """Enter on an event: go to the instant it was recorded at (time travel)."""
        event = self.events.get(message.key)  # type: ignore[arg-type]
        if event is not None:
            message.stop()
            self.playground.timecontrol.jump_to_event(event.time, message.key)

    def columns(self) -> list[Column]:
        return [
            Column("last", "LAST SEEN", 9, 9, "right", timed=True),
            Column("at", "AT", 7, 10, "right"),
            Column("type", "TYPE", 7, 7),
            Column("reason", "REASON", 12, 28),
            Column("object", "OBJECT", 12, 48),
            Column("count", "COUNT", 5, 6, "right"),
            Column("first", "FIRST SEEN", 10, 10, "right", timed=True),
            Column("message", "MESSAGE", 20, 600, flex=True),
        ]

    def make_source(self) -> Source:
        return EventSource(self)

    def load(self) -> None:
        recorder = self.sim.store.recorder
        recorder.take_repeated()  # rows built now show the current counts
        self.events = {}
        kept = list(recorder.events)
        first = recorder.total - len(kept) + 1
        for offset, event in enumerate(kept):
            if fmt.is_cluster_event(event):
                self.events[first + offset] = event
        self.keys = {id(event): key for key, event in self.events.items()}
        self.seen = recorder.total
        self._upsert, self._drop = {}, set()
        self.table.replace_all(self.events)
        self.table.action_last()

    def apply(self, changes: ChangeSet) -> None:
        recorder = self.sim.store.recorder
        repeated = recorder.take_repeated()
        if repeated is None:  # more repeats than the log holds went untaken: rebuild
            self.load()
            return
        counted = [k for event in repeated if (k := self.keys.get(id(event))) is not None and k in self.events]
        self._upsert.update(dict.fromkeys(counted))
        if recorder.total == self.seen:
            self.catch_up()
            return
        new = recorder.since(self.seen)
        first = recorder.total - len(new) + 1
        keys = []
        for offset, event in enumerate(new):
            if fmt.is_cluster_event(event):
                self.events[first + offset] = event
                self.keys[id(event)] = first + offset
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
        self._upsert.update(dict.fromkeys(keys))
        table = self.table
        for k in dropped:  # what is noted stays bounded by the log and the table, however long hidden
            self.keys.pop(id(self.events.pop(k)), None)
            self._upsert.pop(k, None)
            if k in table:
                self._drop.add(k)
        self.catch_up()

    def catch_up(self) -> None:
        """Bring the table in step with `events` while it is shown (one pass for what was noted)."""
        if self.playground.current_view != self.id or not (self._upsert or self._drop):
            return
        drop, upsert = list(self._drop), list(self._upsert)
        self._upsert, self._drop = {}, set()
        if len(drop) > len(self.events) // 2:
            # Most of the log went while hidden (at x1000, all of it in a few seconds): building the
            # table again costs a tenth of taking out and putting in each row.
            self.table.replace_all(self.events, keep_widths=True)
            self.table.invalidate(upsert)  # repeats counted on rows that stayed
            return
        if drop:
            self.table.remove(drop)
        if upsert:
            self.table.upsert(upsert)

    def live_count(self) -> int:
        return len(self.events)

    def title_extra(self) -> Text | None:
        """The log is bounded (the app's event_limit): once it dropped events, say how many it keeps
        of how many were recorded, as a big cluster records 300,000 while it opens."""
        recorder = self.sim.store.recorder
        kept = len(recorder.events)
        if recorder.total <= kept:
            return None
        return Text(f"the newest {kept:,} of {recorder.total:,} events are kept (playground sim lists all)",
                    style="dim")

    def frame(self, time_moved: bool) -> None:
        self.catch_up()
        super().frame(time_moved)
