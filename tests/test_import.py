"""`playground import`: kubectl dumps of several kinds of cluster -> scenarios whose t=0 is the cluster
as it was (tests/data/dumps, see SOURCES.md there)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from playground.cli import main
from playground.engine import Simulation
from playground.engine.operations import Operation
from playground.manifests import ManifestError, import_files, import_texts, scenario_text
from playground.manifests.resources import pod_requests
from playground.scenario import load_scenario
from playground.units import parse_cpu, parse_memory

DUMPS = Path(__file__).parent / "data" / "dumps"
GI, MI, KI = 2**30, 2**20, 2**10

CLUSTERS = {
    "eks": [DUMPS / "eks-cluster.json"],
    "gke": [DUMPS / "gke-cluster.yaml"],
    "aks": [DUMPS / "aks-cluster.json"],
    "k3s": [DUMPS / "k3s-cluster.yaml"],
    "kind": [DUMPS / "kind-nodes.yaml", DUMPS / "kind-pods.yaml"],
}


def imported(kind: str):
    return import_files([str(p) for p in CLUSTERS[kind]])


def node(scenario, name):
    return next(n for n in scenario.nodes if n.name == name)


def pod(scenario, namespace, name):
    return next(p for p in scenario.pod_specs() if p.name == name and p.namespace == namespace)


# ---------------------------------------------------------------- quantities and requests


@pytest.mark.parametrize("text, millicores", [("3500m", 3500), ("2", 2000), ("0.25", 250), ("1e-1", 100),
                                              ("1930m", 1930), ("1k", 1_000_000)])
def test_cpu_quantities(text, millicores):
    assert parse_cpu(text) == millicores


@pytest.mark.parametrize("text, nbytes", [("7935872Ki", 7935872 * KI), ("16Gi", 16 * GI), ("256M", 256_000_000),
                                          ("17179869184", 16 * GI), ("1.5e8", 150_000_000), ("1e3", 1000),
                                          ("1Ti", 2**40), ("1G", 10**9)])
def test_memory_quantities(text, nbytes):
    assert parse_memory(text) == nbytes


def test_requests_sum_containers_and_take_the_largest_init_container():
    spec = {"containers": [{"resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
                           {"resources": {"requests": {"cpu": "200m"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "1", "memory": "32Mi"}}}]}
    assert pod_requests(spec) == (1000, 64 * MI)


def test_a_missing_request_defaults_to_the_limit():
    spec = {"containers": [{"resources": {"limits": {"cpu": "300m", "memory": "1Gi"}}}]}
    assert pod_requests(spec) == (300, GI)


def test_sidecars_add_to_the_steady_state_and_to_later_init_containers():
    # PodRequests: a sidecar (restartPolicy Always) keeps running, so it counts in the sum and beside
    # every init container after it.
    spec = {"containers": [{"resources": {"requests": {"cpu": "200m", "memory": "100Mi"}}}],
            "initContainers": [
                {"restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "50Mi"}}},
                {"resources": {"requests": {"cpu": "500m", "memory": "10Mi"}}}],
            "overhead": {"cpu": "10m", "memory": "1Mi"}}
    # steady state 300m / 150Mi; second init container 500m + 100m sidecar = 600m / 60Mi
    assert pod_requests(spec) == (600 + 10, 150 * MI + MI)


# ---------------------------------------------------------------- real cluster dumps


def test_eks_nodes_keep_names_zones_and_every_quantity_form():
    scenario = imported("eks").scenario
    n = node(scenario, "ip-10-0-1-11.ec2.internal")
    assert n.labels["topology.kubernetes.io/zone"] == "us-east-1b"
    assert n.labels["eks.amazonaws.com/nodegroup"] == "general"
    assert "kubernetes.io/hostname" not in n.labels  # the simulated kubelet sets it to the name
    assert (n.capacity.cpu, n.capacity.memory, n.capacity.pods) == (2000, 7910348 * KI, 29)
    assert (n.allocatable.cpu, n.allocatable.memory) == (1930, 7220172 * KI)


def test_eks_workload_pods_are_owned_and_keep_their_names_and_nodes():
    scenario = imported("eks").scenario
    coredns = pod(scenario, "kube-system", "coredns-789f8477df-km4n8")
    assert coredns.owner == "Deployment/coredns"
    assert coredns.nodeName == "ip-10-0-0-10.ec2.internal"
    aws_node = pod(scenario, "kube-system", "aws-node-ax7k2")
    assert aws_node.owner == "DaemonSet/aws-node"
    # 25m plus an init container of 25m is 25m, as in the template: the pod takes the template
    assert "requests" not in aws_node.model_fields_set
    assert next(d for d in scenario.daemonSets if d.name == "aws-node").template.requests.cpu == 25
    deployment = next(d for d in scenario.deployments if d.name == "coredns")
    assert deployment.namespace == "kube-system" and deployment.replicas == 2
    assert deployment.template.priorityClassName == "system-cluster-critical"
    assert deployment.template.requests.memory == 70 * MI
    assert deployment.strategy.rollingUpdate.maxUnavailable == 1
    pdb = next(p for p in scenario.podDisruptionBudgets if p.name == "checkout")
    assert (pdb.namespace, pdb.minAvailable, pdb.unhealthyPodEvictionPolicy) == ("shop", "66%", "AlwaysAllow")


def test_gke_taints_priority_classes_mirror_pods_and_statefulsets():
    result = imported("gke")
    scenario = result.scenario
    spot = node(scenario, "gke-prod-spot-pool-3f1c2a2-x2z")
    assert spot.taints == ["cloud.google.com/gke-spot=true:NoSchedule"]
    classes = {pc.name: pc for pc in scenario.priorityClasses}
    assert classes["business-critical"].value == 100000
    assert classes["batch-low"].preemptionPolicy == "Never"
    mirror = pod(scenario, "kube-system", "kube-proxy-gke-prod-default-pool-3f1c2a0-x0z")
    assert mirror.mirror and mirror.owner is None
    assert mirror.priorityClassName == "system-node-critical"
    postgres = next(s for s in scenario.statefulSets if s.name == "postgres")
    assert (postgres.replicas, postgres.volumeClaimTemplate, postgres.template.terminationGracePeriodSeconds) == \
        (2, "pgdata", 60)
    assert pod(scenario, "db", "postgres-1").owner == "StatefulSet/postgres"
    job_pod = pod(scenario, "batch", "report-28931040-7xk2p")
    assert job_pod.owner is None and job_pod.priorityClassName == "batch-low"
    assert job_pod.nodeSelector == {"cloud.google.com/gke-nodepool": "spot-pool"}
    assert [t.model_dump(exclude_none=True) for t in job_pod.tolerations][0] == {
        "key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    assert not any(p.name == "report-28931000-ab12c" for p in scenario.pod_specs())  # Succeeded: holds no capacity
    report = "\n".join(result.report.lines())
    assert "Pod in phase Succeeded (holds no capacity; not imported): 1 object" in report
    assert "Pod owned by a Job" in report
    assert "Pod volume hostPath" in report


def test_aks_items_without_kind_init_containers_overhead_and_a_pending_pod():
    scenario = imported("aks").scenario
    cordoned = node(scenario, "aks-nodepool1-26452158-vmss000002")
    assert cordoned.unschedulable and cordoned.taints == []  # the taint follows spec.unschedulable
    web = next(d for d in scenario.deployments if d.name == "web")
    # containers 250m + 50m and the sidecar 100m -> 400m; the init container `migrate` runs before the
    # sidecar starts -> 1000m; the larger, plus 10m overhead
    assert web.template.requests.cpu == 1010
    assert web.template.requests.memory == max(256_000_000 + 64 * MI + 128 * MI, GI) + 20 * MI
    required = web.template.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    assert required.nodeSelectorTerms[0].matchExpressions[0].key == "kubernetes.azure.com/mode"
    pending = pod(scenario, "default", "web-7c5ddbdf54-pend1")
    assert pending.nodeName is None and pending.owner == "Deployment/web"
    assert pending.nodeSelector == {"disktype": "ssd"}  # differs from the template: keeps its own spec


def test_aks_pending_pod_stays_pending_and_explains_itself():
    sim = Simulation(imported("aks").scenario)
    sim.run_until_ms(30_000)
    pending = sim.store.pods["default/web-7c5ddbdf54-pend1"]
    assert pending.phase == "Pending" and pending.node_name is None
    assert any(e.reason == "FailedScheduling" and "web-7c5ddbdf54-pend1" in e.object
               and "node(s) didn't match Pod's node affinity/selector" in e.message
               for e in sim.store.recorder.events)


def test_k3s_separate_documents_and_older_api_versions():
    result = imported("k3s")
    scenario = result.scenario
    assert {d.name for d in scenario.deployments} == {"traefik", "nginx"}  # extensions/v1beta1, apps/v1beta1
    assert scenario.daemonSets[0].name == "svclb-traefik-70ba3939"  # apps/v1beta2
    assert scenario.podDisruptionBudgets[0].minAvailable == 3  # policy/v1beta1
    nginx = next(d for d in scenario.deployments if d.name == "nginx")
    assert (nginx.template.requests.cpu, nginx.template.requests.memory) == (100, 150_000_000)
    assert nginx.template.emptyDir
    report = "\n".join(result.report.lines())
    assert "1 Service object: a kind the playground does not model" in report
    assert "Node k3s-agent-2 was Ready=Unknown in the dump" in report
    assert "Pod volume configMap" in report


def test_kind_static_pods_control_plane_taint_and_priority_classes():
    scenario = imported("kind").scenario
    control = node(scenario, "kind-control-plane")
    assert control.taints == ["node-role.kubernetes.io/control-plane:NoSchedule"]
    etcd = pod(scenario, "kube-system", "etcd-kind-control-plane")
    assert etcd.mirror and etcd.nodeName == "kind-control-plane"
    assert (etcd.requests.cpu, etcd.requests.memory) == (100, 100 * MI)
    assert [pc.name for pc in scenario.priorityClasses] == ["high"]  # system-node-critical is built in
    api = next(d for d in scenario.deployments if d.name == "api")
    seconds = {t.key: t.tolerationSeconds for t in api.template.tolerations}
    assert seconds == {"node.kubernetes.io/unreachable": 30, "node.kubernetes.io/not-ready": 30}
    assert {p.nodeName for p in scenario.pod_specs() if p.owner == "Deployment/api"} == \
        {"kind-worker", "kind-worker2", "kind-worker3"}


def test_identical_nodes_named_in_sequence_become_a_pool():
    node_text = "kind: Node\nmetadata: {{name: {name}, labels: {{zone: a}}}}\nstatus: {{capacity: {{cpu: 4, memory: 8Gi}}}}\n"
    text = "---\n".join(node_text.format(name=n) for n in ("w-1", "w-2", "w-3", "x-2", "x-3", "big"))
    scenario = import_texts([("d.yaml", text)]).scenario
    assert [(p.namePrefix, p.count, p.labels) for p in scenario.nodePools] == [("w-", 3, {"zone": "a"})]
    # x-2, x-3 would come back as x-1, x-2: kept as nodes so that every name survives
    assert [n.name for n in scenario.nodes] == ["x-2", "x-3", "big"]


def test_kind_workers_keep_their_names():
    scenario = imported("kind").scenario
    assert sorted(scenario.node_names()) == ["kind-control-plane", "kind-worker", "kind-worker2", "kind-worker3"]


@pytest.mark.parametrize("kind", sorted(CLUSTERS))
def test_imported_cluster_starts_as_it_was_and_survives_a_node_failure(kind):
    scenario = imported(kind).scenario
    sim = Simulation(scenario)
    sim.run_until_ms(5_000)
    # t=0 is the cluster as it was: every imported pod on its node, no replica created beside it
    for spec in scenario.pod_specs():
        live = sim.store.pods[f"{spec.namespace}/{spec.name}"]
        if spec.nodeName:
            assert live.node_name == spec.nodeName
    for d in scenario.deployments:
        owned = [p for p in scenario.pod_specs() if p.owner == f"Deployment/{d.name}" and p.namespace == d.namespace]
        created = [e for e in sim.store.recorder.events if e.reason == "SuccessfulCreate"
                   and e.object.startswith(f"ReplicaSet/{d.namespace}/{d.name}-")]
        assert len(created) == max(0, d.replicas - len(owned))
    victim = max(scenario.node_names(),
                 key=lambda n: sum(1 for p in sim.store.pods.values() if p.node_name == n and not p.mirror))
    sim.apply(Operation("power-off", node=victim))
    sim.run_until_ms(10 * 60_000)
    dead = sim.store.nodes[victim]
    assert dead.conditions["Ready"].status == "Unknown"
    assert any(t.key == "node.kubernetes.io/unreachable" and t.effect == "NoExecute" for t in dead.taints)
    evicted = [e for e in sim.store.recorder.events if e.reason == "TaintManagerEviction"]
    assert evicted, "the pods of the dead node are evicted after their tolerationSeconds"
    for d in scenario.deployments:  # replacements run elsewhere where they fit
        running = [p for p in sim.store.pods.values() if p.owner is not None and p.owner.kind == "ReplicaSet"
                   and p.owner.name.startswith(f"{d.name}-") and p.namespace == d.namespace
                   and p.node_name not in (None, victim) and p.phase == "Running"]
        assert running or d.replicas == 0 or kind == "aks"  # aks: the only other system node is cordoned


# ---------------------------------------------------------------- reading dumps


def test_multi_document_yaml_list_and_kindless_items():
    text = """
kind: Node
apiVersion: v1
metadata: {name: a}
status: {capacity: {cpu: "2", memory: 4Gi}}
---
items:
- metadata: {name: b}
  status: {capacity: {cpu: 2, memory: 4Gi}, nodeInfo: {}}
- metadata: {name: p, namespace: x}
  spec: {containers: [{name: c}], nodeName: b}
"""
    scenario = import_texts([("dump.yaml", text)]).scenario
    assert scenario.node_names() == ["a", "b"]
    spec = scenario.pod_specs()[0]
    assert (spec.namespace, spec.nodeName) == ("x", "b")


def test_json_and_yaml_give_the_same_scenario():
    import json

    import yaml

    data = yaml.safe_load((DUMPS / "gke-cluster.yaml").read_text())
    from_yaml = import_texts([("a.yaml", (DUMPS / "gke-cluster.yaml").read_text())]).scenario
    from_json = import_texts([("a.json", json.dumps(data))]).scenario
    from_json.scenario.description = from_yaml.scenario.description
    assert from_yaml.model_dump() == from_json.model_dump()


@pytest.mark.parametrize("text, message", [
    ("kind: Node\nmetadata: {name: a\n", "dump.yaml:3: not valid YAML or JSON"),
    ('{"kind": "Node", "metadata": {"name": "a"}', "dump.yaml"),
    ("kind: Node\nmetadata: {}\n", "dump.yaml: Node without metadata.name"),
    ("kind: Node\nmetadata: {name: a}\n", "dump.yaml: Node a: status.capacity is missing"),
    ("kind: Pod\nmetadata: {name: p}\nspec: {}\n", "dump.yaml: Pod default/p: spec.containers is missing"),
    ("kind: Deployment\napiVersion: apps/v9\nmetadata: {name: d}\n", "apiVersion 'apps/v9' is not one"),
    ("kind: Node\nmetadata: {name: a}\nstatus: {capacity: {cpu: lots, memory: 1Gi}}\n",
     "dump.yaml: Node a: status.capacity.cpu: 'lots' is not a Kubernetes quantity"),
    ("metadata: {name: x}\nfoo: 1\n", "an object without `kind`"),
    ("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  tolerations: [{key: a, operator: Exists, "
     "value: b}]\n", "dump.yaml: Pod default/p: tolerations[0]: value must be empty when `operator` is 'Exists'"),
])
def test_bad_dumps_name_the_file_the_object_and_the_field(text, message):
    with pytest.raises(ManifestError) as info:
        import_texts([("dump.yaml", text)])
    assert message in str(info.value)


def test_a_mistyped_file_name_is_said_before_any_file_is_read(tmp_path, monkeypatch):
    """Files are read one after another, each file's bytes let go before its objects are built; a
    name that is no file or is a folder is said first, not after the files before it were read."""
    from playground.manifests import reader

    read: list[str] = []
    documents = reader._documents
    monkeypatch.setattr(reader, "_documents", lambda text, source: read.append(source) or documents(text, source))
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n")
    for wrong, message in ((tmp_path / "nope.yaml", "no such file"), (tmp_path, "is a folder")):
        with pytest.raises(ManifestError) as info:
            import_files([str(good), str(wrong)])
        assert str(info.value).startswith(f"{wrong}: {message}")
        assert read == []
    dump = reader.read_files([str(good), str(good)])
    assert read == [str(good), str(good)] and len(dump.items) == 2


def test_cli_import_writes_a_scenario_with_the_report_on_top(tmp_path, capsys):
    out = tmp_path / "eks.toml"
    assert main(["import", str(DUMPS / "eks-cluster.json"), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Imported by `playground import`.\n# Imported 3 nodes, 11 pods")
    assert "Not represented" in capsys.readouterr().err
    assert load_scenario(out).model_dump() == imported("eks").scenario.model_dump()


def test_cli_import_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO((DUMPS / "k3s-cluster.yaml").read_text()))
    assert main(["import", "-"]) == 0
    out = capsys.readouterr().out
    assert 'name = "k3s-server-0"' in out and 'namePrefix = "k3s-agent-"' in out


@pytest.mark.parametrize("command", ["import", "validate", "sim", "check"])
def test_cli_a_bad_dump_exits_2_without_a_traceback(command, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: p}\nspec: {}\n")
    assert main([command, str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml: Pod default/p: spec.containers is missing" in err and "Traceback" not in err
    assert main([command, str(tmp_path / "missing.yaml")]) == 2


def test_an_owner_must_exist(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[scenario]\nname = "x"\n[[nodes]]\nname = "a"\ncapacity = { cpu = "1", memory = "1Gi" }\n'
                    '[[pods]]\nname = "p"\nowner = "Deployment/web"\n')
    from playground.scenario import ScenarioError

    with pytest.raises(ScenarioError, match="no Deployment named 'web' in namespace 'default'"):
        load_scenario(path)


def test_scenario_text_loads_back():
    result = imported("gke")
    from playground.scenario.loader import parse_scenario

    assert parse_scenario(scenario_text(result)).model_dump() == result.scenario.model_dump()


def test_tui_opens_a_dump_directly(monkeypatch):
    opened = {}

    class FakeApp:
        def __init__(self, scenario, path, paused):
            opened.update(scenario=scenario, path=path)

        def run(self):
            opened["ran"] = True

    import playground.tui.app as app_module

    monkeypatch.setattr(app_module, "PlaygroundApp", FakeApp)
    assert main([str(DUMPS / "k3s-cluster.yaml")]) == 0
    assert opened["ran"] and opened["path"] == DUMPS / "k3s-cluster.toml"
    assert "k3s-agent-1" in opened["scenario"].node_names()


SPREAD_AND_ANTI_AFFINITY = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
  status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Pod
  metadata: {name: x-1, namespace: default, labels: {app: x}}
  spec:
    nodeName: n1
    containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
    affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:
      [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: x}}}]}}
  status: {phase: Running}
- kind: Pod
  metadata: {name: x-2, namespace: default, labels: {app: x}}
  spec:
    containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
    affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:
      [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: x}}}]}}
    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone,
      whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: x}}}]
  status: {phase: Pending}
"""


def test_pod_affinity_and_spread_constraints_are_kept_and_enforced():
    result = import_texts([("dump.yaml", SPREAD_AND_ANTI_AFFINITY)])
    second = pod(result.scenario, "default", "x-2")
    [term] = second.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution
    assert term.topologyKey == "kubernetes.io/hostname" and term.labelSelector.matchLabels == {"app": "x"}
    [constraint] = second.topologySpreadConstraints
    assert (constraint.maxSkew, constraint.topologyKey, constraint.whenUnsatisfiable) == (
        1, "topology.kubernetes.io/zone", "DoNotSchedule")
    assert "topologySpreadConstraints" not in scenario_text(result).split("[scenario]")[0]  # not in the report
    sim = Simulation(result.scenario)
    sim.run_until(10)
    assert sim.store.pods["default/x-2"].node_name is None
    [failed] = [e for e in sim.store.recorder.events if e.reason == "FailedScheduling"]
    assert failed.message.startswith("0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.")


def test_every_command_opens_a_dump_as_the_tui_does(tmp_path, capsys):
    """validate, sim, check and export read a kubectl dump (by its suffix) through the same import
    as `playground FILE`, the import's report on stderr; the run is the imported scenario's."""
    dump = DUMPS / "eks-cluster.json"
    scenario_file = tmp_path / "eks.toml"
    assert main(["import", str(dump), "-o", str(scenario_file)]) == 0
    capsys.readouterr()

    assert main(["validate", str(dump)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{dump}: ok (eks-cluster: 3 nodes, 2 deployments")
    assert "Imported 3 nodes, 11 pods" in captured.err

    assert main(["sim", str(dump), "--until", "2m", "--json"]) == 0
    from_dump = capsys.readouterr()
    assert "Not represented" in from_dump.err
    assert main(["sim", str(scenario_file), "--until", "2m", "--json"]) == 0
    assert from_dump.out == capsys.readouterr().out  # the same run as the imported scenario's

    assert main(["check", str(dump)]) == 0
    assert f"{dump}: no [[expect]] entries to check" in capsys.readouterr().out

    out = tmp_path / "export"
    assert main(["export", str(dump), "-o", str(out)]) == 0
    assert (out / "10-nodes.yaml").exists() and (out / "20-workloads.yaml").exists()
