"""Generated 300-1,500-node scenarios (tests/scale_scenarios.py: taints, cordons, selectors,
preferred affinity, priorities, a PDB, a scale-up that preempts, a node failure) give the same
`playground sim --json` output on this revision and on the base revision without the columnar
scheduler (623d08f, taken from git history, or PLAYGROUND_BASE_SRC), byte for byte once the
documented changes of the rollout work are accounted for: a ReplicaSet is named after its pod
template's hash (623d08f hashed the Deployment's name), the deployment controller records
ScalingReplicaSet events, and the document gained `deployments`. Skipped where git history is
missing. The 800- and 1,500-node cases run only with PLAYGROUND_SCALE_FULL=1 (minutes on the base)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scale_scenarios import scale_scenario

BASE_REVISION = "623d08f"
ROOT = Path(__file__).resolve().parent.parent
CASES = [(300, 2)] + ([(800, 2), (1500, 3)] if os.environ.get("PLAYGROUND_SCALE_FULL") else [])
# 623d08f's pod-template-hash: the Deployment's "namespace/name", hashed (workloads.template_hash there).
OLD_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@pytest.fixture(scope="module")
def base_tree(tmp_path_factory) -> Path:
    given = os.environ.get("PLAYGROUND_BASE_SRC")
    if given:
        return Path(given)
    tree = tmp_path_factory.mktemp("base-src")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASE_REVISION, "playground"],
                             capture_output=True)
    if archive.returncode != 0:
        pytest.skip(f"no git history with {BASE_REVISION}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


# PodTopologySpread's system default constraints (a documented fidelity fix of issue 10) move a
# Deployment's pods; the comparison runs this revision without them.
WITHOUT_DEFAULT_SPREAD = ("import sys; from playground.engine.scheduler import podtopologyspread as p; "
                          "p.SYSTEM_DEFAULT_CONSTRAINTS = (); from playground.cli import main; "
                          "sys.exit(main(sys.argv[1:]))")


def sim_json(src: Path, scenario: Path, cwd: Path, without_default_spread: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = ["-c", WITHOUT_DEFAULT_SPREAD] if without_default_spread else ["-m", "playground"]
    out = subprocess.run([sys.executable, *command, "sim", str(scenario), "--json"], cwd=cwd, env=env,
                         check=True, capture_output=True).stdout
    return json.loads(out)


def old_replicaset_name(namespace: str, name: str) -> str:
    digest = hashlib.sha256(f"{namespace}/{name}".encode()).digest()
    return f"{name}-" + "".join(OLD_NAME_ALPHABET[b % len(OLD_NAME_ALPHABET)] for b in digest[:10])


def as_base_revision(document: dict) -> str:
    """This revision's document as 623d08f would print it: without what the rollout work added, with
    each ReplicaSet under its old name."""
    renames = {rs["name"]: old_replicaset_name(d["namespace"], d["name"])
               for d in document.pop("deployments", []) for rs in d["replicaSets"]}
    document.pop("kubernetesVersion", None)
    document["events"] = [e for e in document["events"] if e["reason"] != "ScalingReplicaSet"]
    text = json.dumps(document)
    for new, old in renames.items():
        text = text.replace(f'"{new}', f'"{old}').replace(f"/{new}", f"/{old}").replace(f" {new}", f" {old}")
    return text


@pytest.mark.parametrize("nodes,seed", CASES)
def test_generated_scenario_matches_the_base_revision(tmp_path, base_tree, nodes, seed):
    scenario = tmp_path / "scale.toml"
    scenario.write_text(scale_scenario(nodes, seed))
    # cwd outside both trees, so that PYTHONPATH decides which playground runs.
    ours = sim_json(ROOT, scenario, tmp_path, without_default_spread=True)
    base = sim_json(base_tree, scenario, tmp_path)
    assert ours["deployments"], "the generated scenario has Deployments"
    assert as_base_revision(ours) == json.dumps(base)
