"""`--src=DIR`: a benchmark runs another checkout of the code (the base revision, for before / after
figures) instead of this one."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def use_checkout() -> None:
    """Put the checkout that --src=DIR names (else this one) first on sys.path, and this folder after
    it: call it before anything imports playground."""
    src = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--src=")), None)
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(Path(src).resolve() if src else HERE.parent))
