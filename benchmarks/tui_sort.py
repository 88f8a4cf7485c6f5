"""What a k9s-style column sort costs in the virtual table: the one-off sort of 150,000 rows, and the
upsert of rows whose sort value changed (they move) in a sorted 150,000-row table.

    .venv/bin/python benchmarks/tui_sort.py [--rows 150000] [--changed 1000]

Prints CPU time (time.process_time), min and median of 3 runs; asserts nothing about timing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult  # noqa: E402

from playground.tui.widgets.vtable import Column, VirtualTable  # noqa: E402


class Source:
    """Pod-like rows: a key and a cpu request that changes."""

    stable_match_text = True

    def __init__(self, rows: int) -> None:
        self.cpu = {f"ns/pod-{i:06d}": (i * 7919) % 4000 for i in range(rows)}

    def readable(self) -> bool:
        return True

    sort_key_is_key = True  # as the Pods view's source

    def sort_key(self, key):
        return key

    def cells(self, key):
        return [key, str(self.cpu[key])]

    def match_text(self, key):
        return key

    def sort_value(self, column, key):
        return (0, self.cpu[key]) if column == "cpu" else (0, key)

    def sort_values(self, column, keys):
        """The values of many rows at once, as the Pods view's source gives them (a revision without
        this method in VirtualTable reads them row by row)."""
        cpu = self.cpu
        if column == "cpu":
            return ((key, (0, cpu[key])) for key in keys)
        return ((key, (0, key)) for key in keys)


class TableApp(App):
    def __init__(self, source: Source) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield VirtualTable([Column("name", "NAME", 8, 40), Column("cpu", "CPU", 4, 8)], self.source, id="t")


def figures(label: str, seconds: list[float]) -> None:
    print(f"{label}: CPU s min {min(seconds):.3f}  median {statistics.median(seconds):.3f}")


async def run(rows: int, changed: int) -> None:
    source = Source(rows)
    app = TableApp(source)
    async with app.run_test(size=(100, 30)):
        table = app.query_one(VirtualTable)
        table.replace_all(source.cpu)
        # From the table's own order to cpu ascending, then descending, then to the name column: each a
        # one-off pass over every row from another order.
        steps = (("cpu", False, "by cpu, ascending"), ("cpu", True, "by cpu, descending"),
                 ("name", False, "by name, from cpu"))
        sorts: dict[str, list[float]] = {label: [] for _, _, label in steps}
        for _ in range(3):
            table.sort_by(None)
            for column, descending, label in steps:
                start = time.process_time()
                table.sort_by(column, descending)
                sorts[label].append(time.process_time() - start)
        for label, seconds in sorts.items():
            figures(f"sort {rows:,} rows {label}", seconds)
        table.sort_by("cpu", False)
        keys = list(source.cpu)
        upserts = []
        for run in range(3):
            moved = keys[run * changed:(run + 1) * changed]
            for key in moved:
                source.cpu[key] = (source.cpu[key] + 1234) % 4000
            start = time.process_time()
            table.upsert(moved)
            upserts.append(time.process_time() - start)
        figures(f"upsert {changed:,} rows that move, in a sorted {rows:,}-row table", upserts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=150_000)
    parser.add_argument("--changed", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(run(args.rows, args.changed))


if __name__ == "__main__":
    main()
