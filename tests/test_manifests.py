"""Live objects in Kubernetes' shape (engine/manifests.py), as `kubectl get -o yaml` prints them."""

from __future__ import annotations

from pathlib import Path

from playground.engine import Operation, Simulation
from playground.engine.manifests import node_manifest, pod_manifest, timestamp, to_yaml
from playground.units import format_cpu as cpu_quantity, format_memory as memory_quantity
from playground.scenario import load_scenario

SMALL = Path(__file__).parent / "tui" / "scenarios" / "small.toml"


def outage() -> Simulation:
    sim = Simulation(load_scenario(SMALL))
    sim.run_until(5)
    sim.apply(Operation("power-off", node="b-1"))
    sim.run_until(70)
    return sim


def test_quantities_and_times_as_the_api_serialises_them():
    assert cpu_quantity(500) == "500m" and cpu_quantity(4000) == "4" and cpu_quantity(2500) == "2500m"
    assert memory_quantity(8 << 30) == "8Gi" and memory_quantity(256 << 20) == "256Mi"
    assert memory_quantity(1000) == "1000" and memory_quantity(0) == "0"
    assert timestamp(70_000) == "2026-01-01T00:01:10Z"


def test_node_after_an_outage_has_kubernetes_shape():
    sim = outage()
    node = node_manifest(sim, "b-1")
    assert list(node) == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert node["apiVersion"] == "v1" and node["kind"] == "Node"
    assert node["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-b"
    assert node["spec"]["taints"] == [
        {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:55Z"},
        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-01-01T00:01:00Z"},
    ]
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "Unknown" and ready["reason"] == "NodeStatusUnknown"
    assert node["status"]["allocatable"] == {"cpu": "2", "memory": "4Gi", "pods": "110"}
    assert node_manifest(sim, "nope") is None


def test_pod_has_kubernetes_shape():
    sim = outage()
    key = next(k for k, p in sim.store.pods.items() if p.node_name == "b-1")
    pod = pod_manifest(sim, key)
    assert pod["kind"] == "Pod" and pod["metadata"]["namespace"] == "default"
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
    assert pod["spec"]["nodeName"] == "b-1" and pod["spec"]["priorityClassName"] == "high"
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "500m", "memory": "512Mi"}}
    assert {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 300} in pod["spec"]["tolerations"]
    assert pod["status"]["phase"] == "Running" and pod["status"]["qosClass"] == "Burstable"
    huge = pod_manifest(sim, "default/huge")
    assert "nodeName" not in huge["spec"] and huge["status"]["phase"] == "Pending"


def test_yaml_layout_is_kubectls():
    text = to_yaml({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a", "labels": {}},
                    "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}],
                             "tolerations": [{"operator": "Exists"}], "nodeSelector": {}},
                    "status": {"conditions": [{"type": "Ready", "status": "True", "lastProbeTime": None}]}})
    assert text == (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  labels: {}\n"
        "  name: a\n"
        "spec:\n"
        "  containers:\n"
        "  - name: app\n"
        "    resources:\n"
        "      requests:\n"
        "        cpu: 500m\n"
        "  nodeSelector: {}\n"
        "  tolerations:\n"
        "  - operator: Exists\n"
        "status:\n"
        "  conditions:\n"
        "  - lastProbeTime: null\n"
        "    status: \"True\"\n"
        "    type: Ready\n"
    )


def test_yaml_quotes_what_yaml_would_read_as_something_else():
    text = to_yaml({"a": "true", "b": "110", "c": "2026-01-01T00:00:00Z", "d": "", "e": "x: y", "f": "no",
                    "g": "plain text", "h": "1.5", "i": "-", "j": "dedicated=db:NoSchedule", "k": "#x"})
    lines = dict(line.split(": ", 1) for line in text.splitlines())
    assert lines == {"a": '"true"', "b": '"110"', "c": '"2026-01-01T00:00:00Z"', "d": '""', "e": '"x: y"',
                     "f": '"no"', "g": "plain text", "h": '"1.5"', "i": '"-"', "j": "dedicated=db:NoSchedule",
                     "k": '"#x"'}


def test_every_pod_and_node_of_a_shipped_scenario_renders():
    sim = Simulation(load_scenario(Path(__file__).parent.parent / "scenarios" / "drain-pdb.toml"))
    sim.run_until(80)
    for name in sim.store.nodes:
        assert to_yaml(node_manifest(sim, name)).startswith("apiVersion: v1\nkind: Node\n")
    for key in sim.store.pods:
        assert "\nkind: Pod\n" in to_yaml(pod_manifest(sim, key))
