"""The event recorder's log (store.EventRecorder): Events in the order they were recorded, some of them
kept as the parts they are made of until they are read.

Opening 150,000 pods binds them in runs of equivalent pods, each pod with its Scheduled event: 150,000
Events that the terminal UI's bounded log (the newest 5,000) drops unread, and that cost a sixth of the
open to make. A run's Events are kept as one `EventRun` (what they share, and per Event its object,
message arguments and uid) and made into Events, once each, when something reads them. What reads
the log sees the same Events either way: `EventLog` reads like the deque of Events it replaces
(iteration in order and reversed, len, maxlen, indexing, dropping the oldest when bounded).
"""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import Iterator

from .objects import Event


class EventRun:
    """Events recorded at one instant, one after another, that differ only in their object, message
    and uid (EventRecorder.record_once_run, record_run): Event `i` has the
    object `object_format` and the message `message_format` filled with `arguments[k][i]` for each
    k, the uid `uids[i]` and the number `first_seq + i`. `start`: the Events before it were dropped
    from a bounded log."""

    __slots__ = ("time", "type", "reason", "source", "first_seq", "object_format", "message_format",
                 "arguments", "uids", "counted", "start", "made", "_positions")

    def __init__(self, time: int, type_: str, reason: str, source: str, first_seq: int, object_format: str,
                 message_format: str, arguments: tuple[list, ...], uids: list[int], counted: tuple | None = None) -> None:
        self.time = time
        self.type = type_
        self.reason = reason
        self.source = source
        self.first_seq = first_seq
        self.object_format = object_format
        self.message_format = message_format
        self.arguments = arguments
        self.uids = uids
        # Its Events are counted again when repeated (EventRecorder.record_run): the rest of their key
        # (source, instance, object, uid, type, reason); None: they are never repeated (record_once_run).
        self.counted = counted
        self.start = 0
        self.made: list[Event | None] | None = None  # the Events made so far, by position
        self._positions: dict | None = None

    def position(self, argument) -> int | None:
        """The position of the Event made with `argument` (a run of one argument column)."""
        if self._positions is None:
            self._positions = {value: i for i, value in enumerate(self.arguments[0])}
        return self._positions.get(argument)

    def __len__(self) -> int:
        return len(self.uids) - self.start

    def event(self, i: int) -> Event:
        """Event `i` of the run (counting those dropped), made once: the same object on every read."""
        made = self.made
        if made is None:
            made = self.made = [None] * len(self.uids)
        event = made[i]
        if event is None:
            values = [column[i] for column in self.arguments]
            event = made[i] = Event(self.time, self.type, self.reason, self.object_format.format(*values),
                                    self.message_format.format(*values), self.source, 1, self.time,
                                    self.uids[i], "", self.first_seq + i)
        return event

    def all_made(self) -> list[Event]:
        """Every Event of the run from `start` on, made (once) in one pass: a read of the whole log."""
        made = self.made
        if made is None:
            made = self.made = [None] * len(self.uids)
        start = self.start
        if None in islice(made, start, None):
            time, type_, reason, source, seq = self.time, self.type, self.reason, self.source, self.first_seq
            object_of, message_of, uids = self.object_format.format, self.message_format.format, self.uids
            for i, values in enumerate(islice(zip(*self.arguments), start, None), start):
                if made[i] is None:
                    made[i] = Event(time, type_, reason, object_of(*values), message_of(*values), source, 1, time,
                                    uids[i], "", seq + i)
        return made[start:]

    def drop_first(self, count: int) -> None:
        if self.made is not None:
            self.made[self.start:self.start + count] = [None] * count
        self.start += count


class EventLog:
    """Events and EventRuns in the order they were recorded, read as the Events they are; at most
    `maxlen` Events when bounded (the oldest go first, a run's first Events included)."""

    __slots__ = ("maxlen", "_items", "_len")

    def __init__(self, maxlen: int | None = None) -> None:
        self.maxlen = maxlen
        self._items: deque[Event | EventRun] = deque()
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def append(self, event: Event) -> None:
        items = self._items
        items.append(event)
        if self.maxlen is not None and self._len >= self.maxlen:  # full: the oldest Event goes
            if type(items[0]) is not EventRun:
                items.popleft()
                return
            self._len += 1
            self._trim()
            return
        self._len += 1

    def append_run(self, run: EventRun) -> None:
        self._items.append(run)
        self._len += len(run)
        if self.maxlen is not None and self._len > self.maxlen:
            self._trim()

    def _trim(self) -> None:
        excess = self._len - self.maxlen
        items = self._items
        while excess > 0:
            item = items[0]
            if type(item) is EventRun:
                size = len(item)
                if size > excess:
                    item.drop_first(excess)
                    self._len -= excess
                    return
                items.popleft()
                self._len -= size
                excess -= size
            else:
                items.popleft()
                self._len -= 1
                excess -= 1

    def __iter__(self) -> Iterator[Event]:
        for item in self._items:
            if type(item) is EventRun:
                yield from item.all_made()
            else:
                yield item

    def __reversed__(self) -> Iterator[Event]:
        for item in reversed(self._items):
            if type(item) is EventRun:
                for i in range(len(item.uids) - 1, item.start - 1, -1):
                    yield item.event(i)
            else:
                yield item

    def __getitem__(self, index: int) -> Event:
        if not isinstance(index, int):
            raise TypeError("an EventLog is indexed by an int")
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("EventLog index out of range")
        if index >= self._len // 2:
            return next(islice(reversed(self), self._len - 1 - index, None))
        return next(islice(iter(self), index, None))

    def plain(self) -> list[Event]:
        """The Events kept as Events, not in runs."""
        return [item for item in self._items if type(item) is not EventRun]

    def runs(self) -> list[EventRun]:
        return [item for item in self._items if type(item) is EventRun]
