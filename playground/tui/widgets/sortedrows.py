"""A table's sorted rows, kept in blocks: inserting or removing a row moves the rows of its block,
not the rows after it. A Python list of 150,000 rows moves ~75,000 pointers on each insert (~20 µs),
or is copied whole for a batch (~1.5–2 ms): in a zone outage at ×1000 that was half of what the
shown Pods table cost a frame. Rows are tuples sorted as tuples; a row is found by the prefix
(sort key, key) of its tuple, which sorts just before it. tests/tui/test_sortedrows.py compares every
operation with a plain sorted list."""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from itertools import accumulate, chain
from typing import Hashable, Iterable, Iterator

BLOCK = 512  # rows a block holds after a split (up to twice as many before one)


class SortedRows:
    """What the table needs of a sorted list of row tuples: length, index, slice, iteration, bisect,
    replacing a row in place (same sort key and key), inserting and removing rows."""

    __slots__ = ("_blocks", "_maxes", "_len", "_offsets", "_block")

    def __init__(self, rows: Iterable[tuple] = (), block: int = BLOCK) -> None:
        """`rows` sorted already (the table sorts them, or filters rows sorted already)."""
        rows = rows if isinstance(rows, list) else list(rows)
        self._block = block
        self._blocks = [rows[i:i + block] for i in range(0, len(rows), block)]
        self._maxes = [b[-1] for b in self._blocks]
        self._len = len(rows)
        self._offsets: list[int] | None = None

    # ---------------------------------------------------------------- reading

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[tuple]:
        return chain.from_iterable(self._blocks)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (SortedRows, list, tuple)):
            return NotImplemented
        return self._len == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SortedRows({list(self)!r})"

    def spread(self) -> list[tuple]:
        """The first row of each block: a few rows spread over the whole order."""
        return [block[0] for block in self._blocks]

    def _starts(self) -> list[int]:
        if self._offsets is None:
            self._offsets = [0, *accumulate(len(b) for b in self._blocks)]
        return self._offsets

    def _locate(self, index: int) -> tuple[int, int]:
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("row index out of range")
        starts = self._starts()
        b = bisect_right(starts, index) - 1
        return b, index - starts[b]

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(self._len)
            if step != 1:
                return list(self)[index]
            if start >= stop:
                return []
            b, i = self._locate(start)
            out: list[tuple] = []
            need = stop - start
            blocks = self._blocks
            while need > 0:
                part = blocks[b][i:i + need]
                out += part
                need -= len(part)
                b, i = b + 1, 0
            return out
        b, i = self._locate(index)
        return self._blocks[b][i]

    def bisect_left(self, row: tuple) -> int:
        """The index at which `row` would be inserted (before any equal row)."""
        b = bisect_left(self._maxes, row)
        if b == len(self._blocks):
            return self._len
        return self._starts()[b] + bisect_left(self._blocks[b], row)

    def _where(self, skey, key: Hashable) -> tuple[int, int] | None:
        """(block, place in it) of the row whose tuple starts with (skey, key), if there is one."""
        b = bisect_left(self._maxes, (skey, key))
        if b == len(self._blocks):
            return None
        block = self._blocks[b]
        i = bisect_left(block, (skey, key))
        return (b, i) if i < len(block) and block[i][1] == key else None

    def find(self, skey, key: Hashable) -> int | None:
        """The index of the row whose tuple starts with (skey, key), if there is one."""
        where = self._where(skey, key)
        return None if where is None else self._starts()[where[0]] + where[1]

    # ---------------------------------------------------------------- writing

    def __setitem__(self, index: int, row: tuple) -> None:
        """Replace a row by one that sorts in the same place (the same sort key and key)."""
        b, i = self._locate(index)
        block = self._blocks[b]
        block[i] = row
        if i == len(block) - 1:
            self._maxes[b] = row

    def replace(self, rows: dict[Hashable, tuple]) -> None:
        """Replace, in one pass, the rows whose key is in `rows` (each by one that sorts in its place)."""
        get = rows.get
        for b, block in enumerate(self._blocks):
            for i, row in enumerate(block):
                new = get(row[1])
                if new is not None:
                    block[i] = new
            self._maxes[b] = block[-1]

    def insert(self, rows: Iterable[tuple]) -> None:
        blocks, maxes = self._blocks, self._maxes
        for row in rows:
            if not blocks:
                blocks.append([row])
                maxes.append(row)
                self._len += 1
                continue
            b = bisect_left(maxes, row)
            if b == len(blocks):
                b -= 1
            block = blocks[b]
            insort(block, row)
            maxes[b] = block[-1]
            self._len += 1
            if len(block) > 2 * self._block:
                half = len(block) // 2
                blocks[b:b + 1] = [block[:half], block[half:]]
                maxes[b:b + 1] = [block[half - 1], block[-1]]
        self._offsets = None

    def remove(self, rows: Iterable[tuple]) -> None:
        """Remove the rows that start with each (sort key, key) of `rows`; absent ones are ignored."""
        blocks, maxes = self._blocks, self._maxes
        for row in rows:
            where = self._where(row[0], row[1])
            if where is None:
                continue
            b, i = where
            block = blocks[b]
            del block[i]
            self._len -= 1
            if block:
                maxes[b] = block[-1]
            else:
                del blocks[b]
                del maxes[b]
        self._offsets = None
