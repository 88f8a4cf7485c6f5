"""Generated 300-1,500-node scenarios (tests/scale_scenarios.py: taints, cordons, selectors,
preferred affinity, priorities, a PDB, a scale-up that preempts, a node failure) give byte-identical
`playground sim --json` output on this revision and on a base revision without the columnar
scheduler. Needs the base tree: PLAYGROUND_BASE_SRC (default /tmp/base-src); skipped without it.
The 800- and 1,500-node cases run only with PLAYGROUND_SCALE_FULL=1 (minutes on the base)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scale_scenarios import scale_scenario

BASE = Path(os.environ.get("PLAYGROUND_BASE_SRC", "/tmp/base-src"))
ROOT = Path(__file__).resolve().parent.parent
CASES = [(300, 2)] + ([(800, 2), (1500, 3)] if os.environ.get("PLAYGROUND_SCALE_FULL") else [])


def sim_json(src: Path, scenario: Path, cwd: Path) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, "-m", "playground", "sim", str(scenario), "--json"], cwd=cwd, env=env,
                          check=True, capture_output=True).stdout


@pytest.mark.skipif(not (BASE / "playground").is_dir(), reason="no base revision tree")
@pytest.mark.parametrize("nodes,seed", CASES)
def test_generated_scenario_matches_the_base_revision(tmp_path, nodes, seed):
    scenario = tmp_path / "scale.toml"
    scenario.write_text(scale_scenario(nodes, seed))
    # cwd outside both trees, so that PYTHONPATH decides which playground runs.
    assert sim_json(ROOT, scenario, tmp_path) == sim_json(BASE, scenario, tmp_path)
