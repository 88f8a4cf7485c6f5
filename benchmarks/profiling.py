"""What the benchmarks' --profile flag prints: a cProfile summary of one call."""

from __future__ import annotations

import cProfile
import pstats
from typing import Callable


def print_profile(call: Callable[[], object], sort: str = "tottime", lines: int = 25) -> None:
    """Run `call` once under cProfile and print its `lines` costliest functions by `sort`."""
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        call()
    finally:
        profiler.disable()
    pstats.Stats(profiler).sort_stats(sort).print_stats(lines)
