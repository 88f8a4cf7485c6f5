"""Painted lines hold no reference to themselves (playground/tui/strips.py): Strip.divide and
Strip.crop_extend answer as Textual's own methods do, and a line divided or cropped to its own width
is freed without the cyclic garbage collector."""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

import playground.tui.app  # noqa: F401  (installs the wrappers, as the app does)
from playground.tui import strips

BOLD, RED = Style(bold=True), Style(color="red")


def line() -> Strip:
    return Strip([Segment("node-", BOLD), Segment("a-1", RED), Segment("  Ready   ", None)])


def plain(strip: Strip) -> list[tuple]:
    return [(s.text, s.style) for s in strip]


def test_the_wrappers_are_installed_once() -> None:
    wrapped = Strip.divide, Strip.crop_extend
    strips.install()
    assert (Strip.divide, Strip.crop_extend) == wrapped
    assert Strip.divide.__name__ == "divide_without_self"
    assert Strip.crop_extend.__name__ == "crop_extend_without_self"


@pytest.mark.parametrize("cuts", [[18], [18, 30], [5, 18], [5, 8, 18], [3], [0, 18], [30], [], [18, 18]])
def test_divide_answers_as_textual_does(cuts: list[int]) -> None:
    """Textual's own method (the wrapped one) on a fresh strip, and the wrapper, give the same pieces;
    at the strip's own width, the strip itself."""
    original = Strip.divide.__closure__  # the wrapped method is Textual's, kept in the wrapper
    textual_divide = next(c.cell_contents for c in original if callable(c.cell_contents))
    strip = line()
    assert strip.cell_length == 18
    want = [plain(piece) for piece in textual_divide(line(), iter(cuts))]
    got = strip.divide(iter(cuts))
    assert [plain(piece) for piece in got] == want
    if [c for c in cuts if c <= 18] == [18]:
        assert got == [strip] and got[0] is strip


@pytest.mark.parametrize("start, end, style", [(0, 18, None), (-2, 18, None), (0, 10, None), (4, 18, None),
                                               (0, 25, RED), (3, 25, None), (20, 25, BOLD), (0, 0, None)])
def test_crop_extend_answers_as_textual_does(start: int, end: int, style) -> None:
    wrapper = Strip.crop_extend
    textual_crop_extend = next(c.cell_contents for c in wrapper.__closure__ if callable(c.cell_contents))
    strip = line()
    want = textual_crop_extend(line(), start, end, style)
    got = strip.crop_extend(start, end, style)
    assert (plain(got), got.cell_length) == (plain(want), want.cell_length)
    if start <= 0 and end == 18:
        assert got is strip


def test_a_line_at_its_own_width_is_freed_without_the_collector() -> None:
    """What the compositor does to every painted line of a table: divided into one piece and
    cropped to its width. Nothing of it is left for the cyclic collector."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(200):
            strip = line()
            strip.divide([18])
            strip.crop_extend(0, 18, None)
            strip.crop(2, 9)  # (a cache of another strip: no cycle either)
            del strip
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
