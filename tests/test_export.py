"""`playground export`: manifests a real API server accepts (kubernetes-validate, offline schemas of
every supported version), a kubectl timeline, and export -> import giving the scenario back."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes_validate import utils as kv

from playground.cli import main
from playground.manifests import import_texts
from playground.manifests.exporter import manifests, to_yaml
from playground.manifests.timeline import timeline_script
from playground.scenario import load_scenario
from playground.scenario.schema import Scenario

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios").glob("*.toml"))
VERSIONS = ("1.31", "1.32", "1.33", "1.34", "1.35")


def all_objects(scenario: Scenario) -> list[dict]:
    files = manifests(scenario)
    files.update(timeline_script(scenario)[1])
    return [obj for objs in files.values() for obj in objs]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_exports_manifests_every_supported_version_accepts(path):
    objects = all_objects(load_scenario(path))
    assert objects
    for version in VERSIONS:
        for obj in objects:
            kv.validate(obj, version, strict=True)  # raises on a field the API server would refuse


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_round_trips(path):
    scenario = load_scenario(path)
    back = import_texts([(f"{name}", to_yaml(objs)) for name, objs in manifests(scenario).items()]).scenario
    assert normal(back) == normal(scenario)


def pyyaml_own_emitter(objects: list[dict]) -> str:
    """The plain reference for to_yaml, which uses libyaml's emitter where PyYAML has it."""
    return yaml.dump_all(objects, Dumper=yaml.SafeDumper, sort_keys=False, default_flow_style=False)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_manifests_are_written_as_pyyaml_s_own_emitter_writes_them(path):
    scenario = load_scenario(path)
    files = manifests(scenario)
    files.update(timeline_script(scenario)[1])
    for objects in files.values():
        assert to_yaml(objects) == pyyaml_own_emitter(objects)


def test_kwok_nodes_carry_the_annotation_status_and_taints():
    scenario = load_scenario(Path("scenarios/zone-outage.toml"))
    nodes = manifests(scenario)["10-nodes.yaml"]
    first = nodes[0]
    assert first["metadata"]["annotations"]["kwok.x-k8s.io/node"] == "fake"
    assert first["metadata"]["labels"]["kubernetes.io/hostname"] == first["metadata"]["name"]
    assert set(first["status"]["allocatable"]) == {"cpu", "memory", "pods"}
    assert len(nodes) == len(scenario.node_names())


def test_cli_export_writes_manifests_and_an_executable_timeline(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["export", "scenarios/drain-pdb.toml", "-o", str(out), "--speed", "10"]) == 0
    written = capsys.readouterr().out.split()
    assert str(out / "timeline.sh") in written
    script = (out / "timeline.sh").read_text()
    assert 'SPEED="${SPEED:-10}"' in script
    assert (out / "timeline.sh").stat().st_mode & 0o111
    assert subprocess.run(["bash", "-n", str(out / "timeline.sh")]).returncode == 0
    assert main(["export", "scenarios/drain-pdb.toml", "-o", str(out), "--speed", "0"]) == 2


def test_timeline_commands_mirror_the_operations():
    scenario = Scenario.model_validate({
        "scenario": {"name": "t"},
        "nodes": [{"name": "a", "capacity": {"cpu": "4", "memory": "8Gi"}},
                  {"name": "b", "capacity": {"cpu": "4", "memory": "8Gi"}}],
        "deployments": [{"name": "web", "replicas": 2, "template": {"labels": {"app": "web"}}}],
        "timeline": [
            {"at": "10s", "do": "drain", "node": "a", "ignoreDaemonsets": True, "deleteEmptydirData": True,
             "force": True, "gracePeriodSeconds": 5, "timeout": "2m", "disableEviction": True,
             "podSelector": "app=web", "skipWaitForDeleteTimeout": 3},
            {"at": "20s", "do": "cancel-drain", "node": "a"},
            {"at": "30s", "do": "power-off", "node": "b"},
            {"at": "1m", "do": "power-on", "node": "b"},
            {"at": "90s", "do": "taint", "node": "a", "taint": "dedicated=db:NoSchedule", "overwrite": True},
            {"at": "100s", "do": "untaint", "node": "a", "taint": "dedicated:NoSchedule"},
            {"at": "2m", "do": "delete-pod", "pod": "x", "namespace": "team", "gracePeriodSeconds": 0},
            {"at": "3m", "do": "scale", "deployment": "web", "replicas": 5},
            {"at": "4m", "do": "create-pod", "pod": "solo", "node": "b", "spec": {"priority": 7}},
            {"at": "5m", "do": "cordon", "node": "b"},
            {"at": "6m", "do": "rollout", "deployment": "web", "spec": {"requests": {"cpu": "1"}}},
            {"at": "7m", "do": "set-strategy", "deployment": "web", "strategy": {"type": "Recreate"}},
            {"at": "8m", "do": "shutdown", "node": "a"},
        ],
    })
    script, extra = timeline_script(scenario, speed=2)
    lines = script.splitlines()
    assert ("kubectl drain a --ignore-daemonsets --delete-emptydir-data --force --grace-period=5 --timeout=2m "
            "--disable-eviction --pod-selector=app=web --skip-wait-for-delete-timeout=3 &") in lines
    assert "at 10 'drain a'" in lines and "at 480 'shutdown a'" in lines
    assert 'kill "${DRAINS[a]}" 2>/dev/null || true  # interrupt the drain (Ctrl-C)' in lines
    assert "kubectl annotate node b kwok.x-k8s.io/node-" in lines
    assert "kubectl annotate --overwrite node b kwok.x-k8s.io/node=fake" in lines
    assert "kubectl taint nodes a dedicated=db:NoSchedule --overwrite" in lines
    assert "kubectl taint nodes a dedicated:NoSchedule-" in lines
    assert "kubectl delete pod x -n team --wait=false --grace-period=0" in lines
    assert "kubectl scale deployment/web -n default --replicas=5" in lines
    assert "kubectl cordon b" in lines
    assert any(line.startswith("kubectl patch deployment web -n default --type=merge -p") and '"cpu":"1"' in line
               for line in lines)
    assert any('"rollingUpdate":null' in line and '"type":"Recreate"' in line for line in lines)
    pod = extra["timeline/009-pod-solo.yaml"][0]
    assert pod["spec"]["nodeName"] == "b" and pod["spec"]["priorityClassName"] == "priority-7"
    assert "priority-7" in [o["metadata"]["name"] for o in manifests(scenario)["00-priorityclasses.yaml"]]
    for version in VERSIONS:
        kv.validate(pod, version, strict=True)


# ---------------------------------------------------------------- round trip, property-based


def normal(scenario: Scenario) -> dict:
    """What export -> import must keep: nodes (by name, with effective allocatable), workloads,
    PDBs, priority classes, bare pods; not the timeline, expectations or controller settings, nor an
    imported workload's existing pods (the workload's controller makes its pods in the cluster)."""
    nodes = {name: _node(spec) for name, spec in scenario.node_specs()}
    data = scenario.model_dump()
    return {
        "nodes": nodes,
        "priorityClasses": data["priorityClasses"],
        "deployments": data["deployments"],
        "daemonSets": data["daemonSets"],
        "statefulSets": data["statefulSets"],
        "podDisruptionBudgets": data["podDisruptionBudgets"],
        "pods": [p for p in data["pods"] if not p["at"] and not p["owner"]],
    }


def _node(spec) -> dict:
    return {"labels": {k: v for k, v in spec.labels.items() if k != "kubernetes.io/hostname"},
            "capacity": spec.capacity.model_dump(), "allocatable": (spec.allocatable or spec.capacity).model_dump(),
            "taints": sorted(spec.taints), "unschedulable": spec.unschedulable}


names = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)
label_values = st.from_regex(r"[a-z0-9]{1,5}", fullmatch=True)
labels = st.dictionaries(st.sampled_from(["app", "tier", "topology.kubernetes.io/zone", "example.com/team"]),
                         label_values, min_size=1, max_size=3)
cpu = st.integers(0, 16000).map(lambda m: f"{m}m")
memory = st.integers(0, 64).map(lambda n: f"{n * 256}Mi")
tolerations = st.lists(st.one_of(
    st.builds(lambda k, v, e: {"key": k, "operator": "Equal", "value": v, "effect": e},
              st.sampled_from(["dedicated", "example.com/gpu"]), label_values,
              st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"])),
    st.builds(lambda k, s: {"key": k, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": s},
              st.sampled_from(["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"]),
              st.integers(0, 600))), max_size=2)


@st.composite
def templates(draw, classes: list[str]):
    template = {"labels": draw(labels), "requests": {"cpu": draw(cpu), "memory": draw(memory)},
                "tolerations": draw(tolerations)}
    choice = draw(st.sampled_from(["none", "class", "priority"]))
    if choice == "class" and classes:
        template["priorityClassName"] = draw(st.sampled_from(classes))
    elif choice == "priority":
        template["priority"] = draw(st.integers(-1000, 1_000_000))
    if draw(st.booleans()):
        template["nodeSelector"] = draw(labels)
    if draw(st.booleans()):
        template["terminationGracePeriodSeconds"] = draw(st.integers(0, 300))
    if draw(st.booleans()):
        template["emptyDir"] = True
    if draw(st.booleans()):
        template["startDuration"] = f"{draw(st.integers(0, 60))}s"
    if draw(st.booleans()):
        template["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [draw(label_values)]}]}]}}}
    return template


@st.composite
def scenarios(draw):
    class_names = draw(st.lists(names, max_size=3, unique=True))
    classes = [{"name": n, "value": draw(st.integers(-100, 1_000_000)),
                "preemptionPolicy": draw(st.sampled_from(["PreemptLowerPriority", "Never"]))} for n in class_names]
    node_names = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    nodes = []
    for name in node_names:
        node = {"name": name, "labels": draw(labels),
                "capacity": {"cpu": draw(st.integers(1, 64)).__str__(), "memory": f"{draw(st.integers(1, 256))}Gi",
                             "pods": draw(st.integers(1, 250))},
                "taints": draw(st.lists(st.sampled_from(["dedicated=db:NoSchedule", "gpu:NoExecute",
                                                         "spot=true:PreferNoSchedule"]), unique=True, max_size=2)),
                "unschedulable": draw(st.booleans())}
        if draw(st.booleans()):
            node["allocatable"] = {"cpu": f"{draw(st.integers(100, 1000))}m", "memory": "1Gi", "pods": 10}
        nodes.append(node)
    pools = []
    if draw(st.booleans()):
        pools.append({"namePrefix": "pool-", "count": draw(st.integers(1, 4)), "labels": draw(labels),
                      "capacity": {"cpu": "8", "memory": "32Gi"}})
    class_list = [c["name"] for c in classes]
    workload_names = draw(st.lists(names, max_size=4, unique=True))
    deployments, daemonsets, statefulsets = [], [], []
    for i, name in enumerate(workload_names):
        namespace = draw(st.sampled_from(["default", "team"]))
        template = draw(templates(class_list))
        kind = i % 3
        if kind == 0:
            d = {"name": name, "namespace": namespace, "replicas": draw(st.integers(0, 5)), "template": template,
                 "minReadySeconds": draw(st.integers(0, 10)), "paused": draw(st.booleans())}
            if draw(st.booleans()):
                d["strategy"] = draw(st.sampled_from([{"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {
                    "maxSurge": 1, "maxUnavailable": "50%"}}]))
            if draw(st.booleans()):
                d["progressDeadlineSeconds"] = None
            deployments.append(d)
        elif kind == 1:
            daemonsets.append({"name": name, "namespace": namespace, "template": template})
        else:
            statefulsets.append({"name": name, "namespace": namespace, "replicas": draw(st.integers(0, 3)),
                                 "template": template, "volumeClaimTemplate": draw(st.sampled_from(["data", ""])),
                                 "podManagementPolicy": draw(st.sampled_from(["OrderedReady", "Parallel"]))})
    pdbs = []
    for name in draw(st.lists(names, max_size=2, unique=True)):
        pdb = {"name": name, "selector": draw(labels)}
        if draw(st.booleans()):
            pdb["minAvailable"] = draw(st.one_of(st.integers(0, 5), st.sampled_from(["50%", "100%"])))
        else:
            pdb["maxUnavailable"] = draw(st.one_of(st.integers(0, 5), st.sampled_from(["25%"])))
        pdbs.append(pdb)
    pods = [{"name": f"bare-{i}", "nodeName": draw(st.sampled_from(node_names)), **draw(templates(class_list))}
            for i in range(draw(st.integers(0, 2)))]
    return Scenario.model_validate({
        "scenario": {"name": "random"}, "priorityClasses": classes, "nodes": nodes, "nodePools": pools,
        "deployments": deployments, "daemonSets": daemonsets, "statefulSets": statefulsets,
        "podDisruptionBudgets": pdbs, "pods": pods})


# CI profile: 30 examples; a longer run: ROUND_TRIP_EXAMPLES=500 pytest tests/test_export.py -k round
EXAMPLES = int(os.environ.get("ROUND_TRIP_EXAMPLES", "30"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_export_then_import_gives_back_an_equivalent_scenario(scenario):
    files = manifests(scenario)
    text = [(name, to_yaml(objs)) for name, objs in files.items()]
    assert [written for _, written in text] == [pyyaml_own_emitter(objs) for objs in files.values()]
    back = import_texts(text).scenario
    assert normal(back) == normal(scenario)
    for objs in files.values():  # and the manifests are ones the API server takes (one of each file)
        kv.validate(yaml.safe_load(to_yaml(objs[:1])), "1.35", strict=True)
