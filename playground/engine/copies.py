"""Copies of one object with a few fields changed, made in one call: a ReplicaSet's batch of pods
and their entries in the scheduling queue (`_copies.c`).

Where the C module is not built, `copy_each` is None and the callers construct each object as
before (the same objects; tests/test_copies.py compares the two)."""

from __future__ import annotations

try:
    from ._copies import copy_each
except ImportError:  # not built: each object is constructed
    copy_each = None

__all__ = ["copy_each"]
