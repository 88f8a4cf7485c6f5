"""[[nodeShapes]]: nodes alike in all but their name, written once, each node a name and its shape, as
`playground import` writes a big cluster. A node of a shape is the node the shape's keys would make
in a [[nodes]] entry of its own, in its place among the others; the file reads back as written, and a
wrong reference or a node that gives both is named with its line."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.cli import main
from playground.engine import Simulation
from playground.engine.report import snapshot
from playground.manifests import import_texts, scenario_text
from playground.manifests.exporter import manifests
from playground.scenario import load_scenario, parse_scenario
from playground.scenario.loader import dump_scenario, save_scenario

HEAD = """
[scenario]
name = "shapes"
seed = 3

[[deployments]]
name = "web"
replicas = 9
template = { labels = { app = "web" }, requests = { cpu = "500m", memory = "256Mi" } }

[[timeline]]
at = "20s"
do = "power-off"
node = "n1"
"""

zones = st.sampled_from(["zone-a", "zone-b"])
shapes = st.fixed_dictionaries({
    "labels": st.fixed_dictionaries({"topology.kubernetes.io/zone": zones},
                                    optional={"tier": st.sampled_from(["web", "db"])}),
    "capacity": st.fixed_dictionaries({"cpu": st.sampled_from(["2", "4"]), "memory": st.sampled_from(["4Gi", "8Gi"])}),
}, optional={
    "taints": st.sampled_from([["dedicated=db:NoSchedule"], ["spot:PreferNoSchedule"]]),
    "unschedulable": st.booleans(),
    "kubelet": st.just({"shutdownGracePeriod": "20s", "shutdownGracePeriodCriticalPods": "5s"}),
})


def toml_value(value) -> str:
    return json.dumps(value) if not isinstance(value, dict) else \
        "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def table(header: str, fields: dict) -> str:
    return f"\n[[{header}]]\n" + "".join(f"{key} = {toml_value(value)}\n" for key, value in fields.items())


def texts(shape_list: list[dict], nodes: list[tuple[int, bool]]) -> tuple[str, str]:
    """The cluster with shapes, and the same nodes each written out in full. `nodes`: (shape index,
    whether this node is written whole in both files)."""
    shaped, whole = HEAD, HEAD
    for i, shape in enumerate(shape_list):
        shaped += table("nodeShapes", {"name": f"shape-{i}", **shape})
    for n, (index, alone) in enumerate(nodes, start=1):
        fields = shape_list[index % len(shape_list)]
        whole += table("nodes", {"name": f"n{n}", **fields})
        shaped += table("nodes", {"name": f"n{n}", **fields} if alone else
                        {"name": f"n{n}", "shape": f"shape-{index % len(shape_list)}"})
    return shaped, whole


def run(text: str) -> dict:
    sim = Simulation(parse_scenario(text))
    sim.run_until(90)
    return snapshot(sim)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(shapes, min_size=1, max_size=3),
       st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=2, max_size=7))
def test_nodes_of_a_shape_run_as_the_same_nodes_written_whole(shape_list, nodes):
    shaped, whole = texts(shape_list, nodes)
    scenario = parse_scenario(shaped)
    assert [name for name, _spec in scenario.node_specs()] == [f"n{n}" for n in range(1, len(nodes) + 1)]
    assert run(shaped) == run(whole)
    assert manifests(scenario) == manifests(parse_scenario(whole))  # export writes each node whole
    again = parse_scenario(dump_scenario(scenario))
    assert again == scenario


def test_a_saved_scenario_with_shapes_reads_back_and_keeps_one_table_a_node(tmp_path):
    shaped, _whole = texts([{"labels": {"topology.kubernetes.io/zone": "zone-a"},
                             "capacity": {"cpu": "4", "memory": "8Gi"}}], [(0, False), (0, True), (0, False)])
    scenario = parse_scenario(shaped)
    path = tmp_path / "saved.toml"
    save_scenario(scenario, path)
    text = path.read_text()
    assert load_scenario(path) == scenario
    assert text.count("[[nodes]]") == 3 and 'name = "n1"\nshape = "shape-0"\n' in text
    assert "nodes = [" not in text  # not one inline array at the top of the file


def test_a_scenario_without_shapes_saves_as_before():
    text = HEAD + table("nodes", {"name": "n1", "capacity": {"cpu": "4", "memory": "8Gi"}})
    dumped = dump_scenario(parse_scenario(text))
    assert "[[nodes]]" not in dumped and "nodes = [" in dumped  # tomli-w's own form, unchanged


def problems(text: str, tmp_path, capsys) -> list[str]:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["sim", str(path)]) == 2
    return capsys.readouterr().err.strip().splitlines()


SHAPE = table("nodeShapes", {"name": "big", "capacity": {"cpu": "4", "memory": "8Gi"}})


def line_of(text: str, line: str, after: int = 0) -> int:
    return text.splitlines().index(line, after) + 1


def test_an_unknown_shape_is_named_with_its_line_and_the_closest_name(tmp_path, capsys):
    text = HEAD + SHAPE + table("nodes", {"name": "n1", "shape": "bgi"}) + table("nodes", {"name": "n2", "shape": "other"})
    out = problems(text, tmp_path, capsys)
    first, second = line_of(text, 'shape = "bgi"'), line_of(text, 'shape = "other"')
    assert out[1:] == [f"{tmp_path}/bad.toml:{first}: nodes[0].shape: unknown node shape 'bgi'; did you mean "
                       '"big"?',
                       f"{tmp_path}/bad.toml:{second}: nodes[1].shape: unknown node shape 'other'; define it under "
                       "[[nodeShapes]]"]


def test_a_node_gives_its_shape_or_its_keys_not_both(tmp_path, capsys):
    text = HEAD + SHAPE + table("nodes", {"name": "n1", "shape": "big", "labels": {"a": "b"}}) \
        + table("nodes", {"name": "n2"})
    out = problems(text, tmp_path, capsys)
    first = line_of(text, "[[nodes]]")
    assert out[1] == (f"{tmp_path}/bad.toml:{first}: nodes[0]: a node with `shape` takes labels from its "
                      "[[nodeShapes]] entry: give them there, or drop `shape` and give every key here")
    assert out[2] == f"{tmp_path}/bad.toml:{line_of(text, '[[nodes]]', first)}: nodes[1].capacity: missing required key"


def test_shape_names_are_unique_and_their_kubelet_settings_checked(tmp_path, capsys):
    text = HEAD + SHAPE + SHAPE + table("nodes", {"name": "n1", "shape": "big"})
    second = line_of(text, 'name = "big"', line_of(text, 'name = "big"'))
    assert problems(text, tmp_path, capsys) == [f"{tmp_path}/bad.toml:{second}: nodeShapes[1].name: duplicate name 'big'"]
    # the cluster-wide [kubelet] table and the shape's own, together
    text = HEAD + '[kubelet]\nshutdownGracePeriod = "10s"\n' + table(
        "nodeShapes", {"name": "big", "capacity": {"cpu": "4", "memory": "8Gi"},
                       "kubelet": {"shutdownGracePeriodCriticalPods": "20s"}}) + table("nodes", {"name": "n1", "shape": "big"})
    out = problems(text, tmp_path, capsys)
    assert len(out) == 1 and "nodeShapes[0].kubelet: shutdownGracePeriodCriticalPods (20s) must not exceed " \
        "shutdownGracePeriod (10s) once the cluster-wide [kubelet] settings are applied" in out[0]


def node_yaml(name: str, zone: str, cpu: str = "8", group: str = "general") -> str:
    return (f"---\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n    kubernetes.io/hostname: {name}\n"
            f"    topology.kubernetes.io/zone: {zone}\n    node.kubernetes.io/instance-type: m5.large\n"
            f"    eks.amazonaws.com/nodegroup: {group}\n"
            f"status:\n  capacity: {{cpu: '{cpu}', memory: 32Gi, pods: '110'}}\n")


def test_import_writes_alike_nodes_as_shapes_in_the_dumps_order():
    dump = "".join([node_yaml("ip-1", "us-east-1a"), node_yaml("ip-2", "us-east-1b"), node_yaml("ip-3", "us-east-1a"),
                    node_yaml("ip-4", "us-east-1a", cpu="16"), node_yaml("ip-5", "us-east-1b"),
                    node_yaml("ip-6", "us-east-1a", group="batch")])
    imported = import_texts([("nodes.yaml", dump)])
    scenario = imported.scenario
    assert [(s.name, s.labels["topology.kubernetes.io/zone"]) for s in scenario.nodeShapes] == [
        ("general-m5-large-us-east-1a", "us-east-1a"), ("general-m5-large-us-east-1b", "us-east-1b")]
    assert [(n.name, n.shape) for n in scenario.nodes] == [
        ("ip-1", "general-m5-large-us-east-1a"), ("ip-2", "general-m5-large-us-east-1b"),
        ("ip-3", "general-m5-large-us-east-1a"), ("ip-4", None), ("ip-5", "general-m5-large-us-east-1b"),
        ("ip-6", None)]  # a node alike to no other stays whole
    text = scenario_text(imported)
    assert "# Imported 6 nodes (4 of them in 2 shapes), 0 pods" in text
    assert parse_scenario(text) == scenario
    assert text.index("[[nodeShapes]]") < text.index("[[nodes]]")
    whole = [(name, spec.labels, spec.capacity) for name, spec in scenario.node_specs()]
    assert whole[3] == ("ip-4", scenario.nodes[3].labels, scenario.nodes[3].capacity)
    assert whole[0][1]["eks.amazonaws.com/nodegroup"] == "general" and whole[0][2].cpu == 8000


def test_a_shape_is_named_validly_whatever_the_labels_hold_and_uniquely():
    odd = [node_yaml(f"n{i}", zone, group=group) for i, (zone, group) in enumerate(
        [("Zone..A_1", "G_1"), ("Zone..A_1", "G_1"), ("zone-a-1", "g-1"), ("zone-a-1", "g-1")])]
    dump = "".join(odd).replace("    node.kubernetes.io/instance-type: m5.large\n", "")
    scenario = import_texts([("nodes.yaml", dump)]).scenario
    assert [s.name for s in scenario.nodeShapes] == ["g-1-zone-a-1", "g-1-zone-a-1-2"]


def test_a_wrong_shape_on_thousands_of_nodes_is_told_in_six_lines(tmp_path, capsys):
    text = HEAD + SHAPE + "".join(table("nodes", {"name": f"n{i}", "shape": "bgi"}) for i in range(1, 3001))
    out = problems(text, tmp_path, capsys)
    assert out[0] == f"{tmp_path}/bad.toml: 6 problems"
    assert all("nodes[" in line and "unknown node shape 'bgi'; did you mean \"big\"?" in line for line in out[1:6])
    assert out[6].endswith("nodes: ... and 2995 more nodes of the unknown shape 'bgi'")
