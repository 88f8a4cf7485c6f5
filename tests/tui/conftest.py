"""Fixtures of the TUI tests; the helpers live in tui_helpers.py (a unique module name, since
tests/conftest.py exists too)."""

from __future__ import annotations

import pytest

from tui_helpers import make_app


@pytest.fixture
def app():
    return make_app()
