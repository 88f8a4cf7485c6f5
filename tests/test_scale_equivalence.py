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
    # issue 10's events: MarkPodsNotReady's event on each pod, the kubelet's Rebooted; and counted
    # repeats (count, firstTimestamp, lastTimestamp): the base's events are folded to compare
    document["events"] = [
        {k: v for k, v in e.items() if k not in ("count", "firstTimestamp", "lastTimestamp")}
        for e in document["events"] if e["reason"] not in ("ScalingReplicaSet", "Rebooted")
        and not (e["reason"] == "NodeNotReady" and e["object"].startswith("Pod/"))]
    text = json.dumps(document)
    for new, old in renames.items():
        text = text.replace(f'"{new}', f'"{old}').replace(f"/{new}", f"/{old}").replace(f" {new}", f" {old}")
    return text


def folded(document: dict) -> dict:
    """The base's events as this revision counts them: a repeat of an earlier event's key (type,
    reason, object, message, source) is folded into it (the scale scenario restarts no kubelet and
    re-creates no pod under a name, so the key needs nothing more)."""
    seen: set[tuple] = set()
    events = []
    for e in document["events"]:
        key = (e["type"], e["reason"], e["object"], e["message"], e["source"])
        if key not in seen:
            seen.add(key)
            events.append(e)
    document["events"] = events
    return document


@pytest.mark.parametrize("nodes,seed", CASES)
def test_generated_scenario_matches_the_base_revision(tmp_path, base_tree, nodes, seed):
    scenario = tmp_path / "scale.toml"
    text = scale_scenario(nodes, seed)
    scenario.write_text(text)
    # Kubernetes 1.32's texts and queue are the base's (1.33 pops backoffQ early and preempts
    # asynchronously; 1.35 words TaintToleration's reason and PostFilter anew)
    ours_scenario = tmp_path / "scale-1.32.toml"
    ours_scenario.write_text(text.replace("[scenario]\n", '[scenario]\nkubernetesVersion = "1.32"\n', 1))
    # cwd outside both trees, so that PYTHONPATH decides which playground runs.
    ours = sim_json(ROOT, ours_scenario, tmp_path, without_default_spread=True)
    base = sim_json(base_tree, scenario, tmp_path)
    assert ours["deployments"], "the generated scenario has Deployments"
    mine, theirs = as_base_revision(ours), json.dumps(folded(base))
    same = mine == theirs  # (not in the assert: pytest would diff two 25 MB texts for minutes)
    assert same, first_difference(mine, theirs)


def first_difference(mine: str, theirs: str, context: int = 400) -> str:
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    start = max(0, at - context)
    return (f"the documents differ at character {at} of {len(mine)} / {len(theirs)}:\n"
            f"this revision: ...{mine[start:at + context]}...\nthe base:      ...{theirs[start:at + context]}...")
