"""`--src=DIR` (or `--src DIR`): a benchmark runs another checkout of the code (the base revision,
for before / after figures) instead of this one."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def use_checkout() -> None:
    """Put the checkout that --src=DIR names (else this one) first on sys.path, and this folder after
    it: call it before anything imports playground."""
    src = _src_argument(sys.argv[1:])
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(Path(src).resolve() if src else HERE.parent))


def _src_argument(argv: list[str]) -> str | None:
    """DIR of `--src=DIR` or `--src DIR` (the second form ran this checkout until session 51, silently:
    argparse took DIR, nothing imported from it)."""
    for i, arg in enumerate(argv):
        if arg.startswith("--src="):
            return arg.split("=", 1)[1]
        if arg == "--src" and i + 1 < len(argv):
            return argv[i + 1]
    return None
