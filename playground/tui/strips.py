"""Textual's painted lines (`Strip`) without a reference to themselves, so that each one is freed the
moment the screen lets go of it instead of waiting for the garbage collector.

A Strip keeps what it made in caches of its own. Two of its methods can answer with the strip
itself, and Textual 8 caches that answer too: `divide` at the strip's own width (the compositor
divides every line it paints, and a table's line is one piece) and `crop_extend` to exactly its
width. The strip then holds itself: a reference cycle, which only the cyclic garbage collector can
free. At x1000 on 150,000 pods those lines were most of what the collector walked: its young
collections found them by the thousand, and each one that survived a young collection (the lines
on screen) waited for the next middle-generation collection, which took 145-310 ms every ~17-20 s
in the TUI and was the slowest key of a run (benchmarks/tui_frames.py).

`install` wraps the two methods so that this one answer, which costs nothing to make again, is
returned without being cached; every other answer goes to Textual's own method and its caches.
The answers hold the same strips as before, though `divide` makes a new list each time
(tests/tui/test_tui_strips.py compares them)."""

from __future__ import annotations

from textual.strip import Strip

_INSTALLED = "_playground_no_self_cache"


def install() -> None:
    """Wrap Strip.divide and Strip.crop_extend (once a process)."""
    if getattr(Strip, _INSTALLED, False):
        return
    divide, crop_extend = Strip.divide, Strip.crop_extend

    def divide_without_self(self: Strip, cuts):
        cell_length = self.cell_length
        cuts = [cut for cut in cuts if cut <= cell_length]  # (as Textual's divide filters them)
        if cuts == [cell_length]:
            return [self]
        return divide(self, cuts)

    def crop_extend_without_self(self: Strip, start: int, end: int, style):
        if start <= 0 and end == self.cell_length:  # extended to its own width and cropped to it: itself
            return self
        return crop_extend(self, start, end, style)

    divide_without_self.__doc__ = divide.__doc__
    crop_extend_without_self.__doc__ = crop_extend.__doc__
    Strip.divide = divide_without_self  # type: ignore[method-assign]
    Strip.crop_extend = crop_extend_without_self  # type: ignore[method-assign]
    setattr(Strip, _INSTALLED, True)
