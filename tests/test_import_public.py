"""Import of objects published by other projects (tests/data/dumps/public, Apache-2.0; see
tests/data/dumps/SOURCES.md): a minikube node and pod, a GKE pod and DaemonSet, a kind pod with a
sidecar (derailed/k9s test data) and kwok's example node (kubernetes-sigs/kwok)."""

from __future__ import annotations

from pathlib import Path

from playground.engine import Simulation
from playground.engine.operations import Operation
from playground.manifests import import_files

PUBLIC = Path(__file__).parent / "data" / "dumps" / "public"
MI, KI = 2**20, 2**10


def files(*names: str) -> list[str]:
    return [str(PUBLIC / n) for n in names]


def test_minikube_node_and_pod_with_an_init_container():
    result = import_files(files("k9s-minikube-node.json", "k9s-minikube-pod-init.json"))
    node = result.scenario.nodes[0]
    assert node.name == "minikube" and node.labels["node-role.kubernetes.io/master"] == ""
    assert (node.capacity.cpu, node.capacity.memory, node.capacity.pods) == (4000, 8165556 * KI, 110)
    assert (node.allocatable.cpu, node.allocatable.memory) == (4000, 8063156 * KI)
    pod = result.scenario.pods[0]
    # 100m / 70Mi in the container and the same in the init container: the larger is the same
    assert (pod.name, pod.nodeName, pod.requests.cpu, pod.requests.memory) == ("nginx", "minikube", 100, 70 * MI)
    assert pod.terminationGracePeriodSeconds == 0
    report = "\n".join(result.report.lines())
    assert "Pod volume persistentVolumeClaim" in report and "Node status.capacity.ephemeral-storage" in report


def test_minikube_runs_ten_minutes_with_its_only_node_failing():
    scenario = import_files(files("k9s-minikube-node.json", "k9s-minikube-pod-init.json")).scenario
    sim = Simulation(scenario)
    sim.run_until_ms(30_000)
    assert sim.store.pods["default/nginx"].phase == "Running"
    sim.apply(Operation("power-off", node="minikube"))
    sim.run_until_ms(10 * 60_000)
    node = sim.store.nodes["minikube"]
    assert node.conditions["Ready"].status == "Unknown"
    # its only zone is fully disrupted: the node lifecycle controller evicts nothing
    assert sim.nodelifecycle.zone_states[""] == "FullDisruption"
    assert not any(e.reason == "TaintManagerEviction" for e in sim.store.recorder.events)
    assert sim.store.pods["default/nginx"].deletion_timestamp is None


def test_gke_pod_and_daemonset_and_a_kind_pod_with_a_sidecar():
    result = import_files(files("k9s-gke-pod.json", "k9s-gke-daemonset.json", "k9s-kind-pod-sidecar.json"))
    pods = {p.name: p for p in result.scenario.pods}
    sleep = pods["sleep"]
    # PodRequests: the init container (333m / 333Mi) runs before the sidecar (20m / 40Mi, restartPolicy
    # Always) starts; the steady state is 30m + 20m: the larger wins
    assert (sleep.requests.cpu, sleep.requests.memory) == (333, 333 * MI)
    gke = pods["nginx-7fb78fb6d8-2w75j"]
    assert gke.owner is None and gke.nodeName is None  # its ReplicaSet and node are not in the dump
    assert {t.key: t.tolerationSeconds for t in gke.tolerations} == {
        "node.kubernetes.io/not-ready": 300, "node.kubernetes.io/unreachable": 300}
    fluentd = result.scenario.daemonSets[0]
    assert (fluentd.name, fluentd.namespace) == ("fluentd-gcp-v3.2.0", "kube-system")
    assert fluentd.template.priorityClassName == "system-node-critical"
    assert fluentd.template.nodeSelector == {"beta.kubernetes.io/fluentd-ds-ready": "true"}
    report = "\n".join(result.report.lines())
    assert "Pod on a node that is not in the dump (imported as Pending): 2 objects" in report
    assert "Pod owned by a ReplicaSet that is not in the dump" in report


def test_kwok_node_with_workloads_runs_ten_minutes_with_a_node_failure():
    result = import_files(files("kwok-node.yaml", "k9s-deployment.json", "k9s-statefulset.json", "k9s-pdb.json"))
    scenario = result.scenario
    node = scenario.nodes[0]
    assert (node.name, node.labels["type"], node.capacity.cpu, node.capacity.memory) == ("kwok-node-0", "kwok", 32000,
                                                                                          256 * 2**30)
    assert scenario.statefulSets[0].volumeClaimTemplate == "www"
    assert scenario.podDisruptionBudgets[0].minAvailable == 2
    sim = Simulation(scenario)
    sim.run_until_ms(60_000)
    assert sum(1 for p in sim.store.pods.values() if p.phase == "Running") >= 2
    sim.apply(Operation("power-off", node="kwok-node-0"))
    sim.run_until_ms(10 * 60_000)
    assert sim.store.nodes["kwok-node-0"].conditions["Ready"].status == "Unknown"
