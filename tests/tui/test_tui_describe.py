"""kubectl describe's text (tui/describe.py): Go's tabwriter layout and the fields in kubectl's order."""

from __future__ import annotations

from playground.engine import Operation, Simulation
from playground.scenario import load_scenario
from playground.tui.describe import describe_node, describe_pod, rfc1123z, tabwrite

from tui_helpers import HERE, SMALL


def test_tabwriter_aligns_blocks_of_consecutive_lines_as_go_does():
    text = "Name:\tb-1\nRoles:\t<none>\nLease:\n  HolderIdentity:\tb-1\n  AcquireTime:\t<unset>\nUnschedulable:\tfalse"
    # Go's tabwriter: a column block is every consecutive line with a cell in that column, so the
    # line after the lease's fields aligns with them (as in kubectl's real output).
    assert tabwrite(text) == ("Name:   b-1\n"
                              "Roles:  <none>\n"
                              "Lease:\n"
                              "  HolderIdentity:  b-1\n"
                              "  AcquireTime:     <unset>\n"
                              "Unschedulable:     false")
    # An empty cell is a column of its padding; the last cell of a line is not aligned.
    assert tabwrite("  A\tB\t\tC\n  aa\tbbbb\t\tc\nx") == "  A   B       C\n  aa  bbbb    c\nx"


def test_times_are_rfc1123z_at_the_scenario_epoch():
    assert rfc1123z(70_000) == "Thu, 01 Jan 2026 00:01:10 +0000"


def test_describe_node_and_pod_follow_kubectl():
    sim = Simulation(load_scenario(SMALL))
    sim.run_until(5)
    sim.apply(Operation("cordon", node="a-1"))
    sim.run_until(8)
    node = describe_node(sim, "a-1")
    assert "Unschedulable:      true" in node
    assert "Taints:             node.kubernetes.io/unschedulable:NoSchedule" in node
    assert "Non-terminated Pods:          (1 in total)" in node
    assert "  cpu                500m (25%)   0 (0%)" in node
    assert "  Normal  NodeNotSchedulable  3s    kubelet" in node
    assert describe_node(sim, "nope") == 'Error from server (NotFound): nodes "nope" not found'
    key = next(k for k, p in sim.store.pods.items() if p.node_name == "a-1")
    pod = describe_pod(sim, key)
    lines = pod.splitlines()
    assert lines[0].startswith("Name:") and lines[1] == "Namespace:            default"
    assert "Node:                 a-1/" in lines and "Controlled By:        ReplicaSet/" + key.split("/")[1].rsplit(
        "-", 1)[0] in lines
    assert "    State:          Running" in lines and "QoS Class:          Burstable" in lines
    assert "Tolerations:        node.kubernetes.io/not-ready:NoExecute op=Exists for 300s" in lines


def test_describe_a_daemonset_pod_and_a_terminating_pod():
    sim = Simulation(load_scenario(HERE / "scenarios" / "daemonset.toml"))
    sim.run_until(5)
    key = next(k for k, p in sim.store.pods.items() if p.owner is not None and p.owner.kind == "DaemonSet")
    text = describe_pod(sim, key)
    assert "Controlled By:" in text and "DaemonSet/node-exporter" in text
    web = next(k for k in sim.store.pods if "/web-" in k)
    sim.apply(Operation("delete-pod", pod=web.split("/")[1], namespace="default"))
    sim.run_until(6)
    assert "Status:                    Terminating (lasts " in describe_pod(sim, web)
