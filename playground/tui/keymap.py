"""User keymaps: binding id -> keys, read from a TOML file.

    # ~/.config/cluster-playground/keymap.toml (or the file named by $PLAYGROUND_KEYMAP)
    [keymap]
    "playground.node.power-off" = "P"
    "playground.step" = "n,right"

`?` lists every binding id. A missing file is fine; a broken one is reported, not fatal.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

ENV = "PLAYGROUND_KEYMAP"


def default_keymap_path() -> Path:
    env = os.environ.get(ENV)
    if env:
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "cluster-playground" / "keymap.toml"


class KeymapError(ValueError):
    pass


def load_keymap(path: Path | None) -> dict[str, str]:
    if path is None or not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KeymapError(f"{path}: {exc}") from None
    table = data.get("keymap", data)
    if not isinstance(table, dict):
        raise KeymapError(f"{path}: [keymap] must be a table of binding id = \"keys\"")
    out: dict[str, str] = {}
    for binding_id, keys in table.items():
        if not isinstance(keys, str) or not keys.strip():
            raise KeymapError(f"{path}: {binding_id!r} must map to keys such as \"P\" or \"ctrl+x,f5\"")
        out[str(binding_id)] = keys.strip()
    return out
