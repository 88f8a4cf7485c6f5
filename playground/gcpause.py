"""The cyclic garbage collector paused while millions of objects that all stay are made (a scenario
file or a kubectl dump read, a cluster opened): it would walk them again and again, for nothing.
Whatever cyclic garbage is made meanwhile is collected once it runs again."""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def no_gc():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
