"""[[ownedPods]]: the existing pods of a workload, one pod a line (name and node), as `playground import`
writes a cluster's pods. They run exactly as the [[pods]] entries they stand for, read and write back
as they were written, and a wrong line is named with its file line."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from playground.cli import main
from playground.engine import Operation, Simulation
from playground.engine.report import snapshot
from playground.manifests import import_files, scenario_text
from playground.scenario import load_scenario, parse_scenario
from playground.scenario.loader import ScenarioError, dump_scenario, save_scenario

from test_import import DUMPS

CLUSTER = """
[scenario]
name = "owned"
seed = 7

[[nodePools]]
namePrefix = "a-"
count = 3
labels = { "topology.kubernetes.io/zone" = "zone-a" }
capacity = { cpu = "8", memory = "16Gi" }

[[nodePools]]
namePrefix = "b-"
count = 3
labels = { "topology.kubernetes.io/zone" = "zone-b" }
capacity = { cpu = "8", memory = "16Gi" }

[[deployments]]
name = "web"
namespace = "apps"
replicas = 4
template = { labels = { app = "web" }, requests = { cpu = "500m", memory = "512Mi" } }

[[daemonSets]]
name = "agent"
namespace = "kube-system"
template = { labels = { app = "agent" }, requests = { cpu = "50m" } }

[[statefulSets]]
name = "db"
replicas = 2
template = { labels = { app = "db" }, requests = { cpu = "1" } }

[[pods]]
name = "lonely"
nodeName = "a-1"
requests = { cpu = "100m" }

[[timeline]]
at = "2m"
do = "power-off"
node = "a-2"
"""

# (owner, namespace, [(pod, node)]) in the order the lists are written
LISTS = [
    ("Deployment/web", "apps", [("web-5d8f7c9b4-aaaaa", "a-1"), ("web-5d8f7c9b4-bbbbb", "a-2"),
                                ("web-5d8f7c9b4-ccccc", "b-1"), ("web-5d8f7c9b4-ddddd", "b-3")]),
    ("DaemonSet/agent", "kube-system", [(f"agent-{node}", node) for node in ("a-1", "a-2", "a-3", "b-1", "b-2", "b-3")]),
    ("StatefulSet/db", "default", [("db-0", "a-2"), ("db-1", "b-2")]),
]


def as_lists() -> str:
    out = []
    for owner, namespace, pods in LISTS:
        lines = "".join(f"{pod} {node}\n" for pod, node in pods)
        out.append(f'\n[[ownedPods]]\nowner = "{owner}"\nnamespace = "{namespace}"\npods = \'\'\'\n{lines}\'\'\'\n')
    return CLUSTER + "".join(out)


def as_pod_entries() -> str:
    out = []
    for owner, namespace, pods in LISTS:
        for pod, node in pods:
            out.append(f'\n[[pods]]\nname = "{pod}"\nnamespace = "{namespace}"\nnodeName = "{node}"\nowner = "{owner}"\n')
    return CLUSTER + "".join(out)


def run(text: str) -> tuple:
    sim = Simulation(parse_scenario(text))
    sim.run_until(10 * 60)
    pods = [(key, pod.uid, pod.node_name, pod.phase, pod.owner) for key, pod in sim.store.pods.items()]
    return (json.dumps(snapshot(sim), sort_keys=True), [e.as_dict() for e in sim.store.recorder.events],
            pods, sim.rng.getstate(), sim.clock.now)


def test_lists_run_exactly_as_the_pod_entries_they_stand_for():
    compact, entries = parse_scenario(as_lists()), parse_scenario(as_pod_entries())
    assert [p.model_dump() for p in compact.pod_specs()] == [p.model_dump() for p in entries.pod_specs()]
    assert len(compact.pods) == 1 and len(compact.ownedPods) == 3
    outcome = run(as_lists())
    assert outcome == run(as_pod_entries())
    state = json.loads(outcome[0])
    pods = {p["name"]: p for p in state["pods"]}
    # the pods were adopted, not re-created: the names are the lists', on their nodes (a-2 went down)
    assert pods["web-5d8f7c9b4-ccccc"]["node"] == "b-1" and pods["db-1"]["node"] == "b-2"
    assert len([name for name in pods if name.startswith("web-")]) >= 4


def test_a_save_writes_the_lists_as_they_were_read(tmp_path):
    scenario = parse_scenario(as_lists())
    text = dump_scenario(scenario)
    assert "pods = '''\nweb-5d8f7c9b4-aaaaa a-1\n" in text and "[[pods]]" not in text.split("[[ownedPods]]")[1]
    assert parse_scenario(text) == scenario
    path = tmp_path / "copy.toml"
    save_scenario(scenario, path)
    assert load_scenario(path) == scenario


def test_a_saved_session_keeps_the_lists_and_replays_what_was_seen(tmp_path):
    sim = Simulation(parse_scenario(as_lists()))
    sim.run_until(30)
    assert sim.apply(Operation("cordon", node="b-2")).ok
    sim.run_until(5 * 60)
    saved = sim.save(tmp_path / "session.toml")
    again = load_scenario(saved)
    assert again.ownedPods == sim.scenario.ownedPods
    replay = Simulation(again)
    replay.run_until(5 * 60)
    assert json.dumps(snapshot(replay), sort_keys=True) == json.dumps(snapshot(sim), sort_keys=True)


def problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, "copy.toml")
    return [p.format("copy.toml") for p in info.value.problems]


def line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize("wrong, message", [
    ("web-5d8f7c9b4-bbbbb x-9", "pod 'web-5d8f7c9b4-bbbbb': unknown node 'x-9'"),
    ("web-5d8f7c9b4-aaaaa a-2", "duplicate pod name 'web-5d8f7c9b4-aaaaa'"),
    ("Web-5d8f7c9b4-bbbbb a-2", "'Web-5d8f7c9b4-bbbbb' is not a valid pod name"),
    ("web-5d8f7c9b4-bbbbb", "'web-5d8f7c9b4-bbbbb': expected a pod name and its node name, separated by spaces"),
    ("web-5d8f7c9b4-bbbbb a-2 b-1", "expected a pod name and its node name"),
    ("web-5d8f7c9b4-bbbbb a_2", "'a_2' is not a valid node name"),
])
def test_a_wrong_line_is_named_with_its_file_line(wrong, message):
    text = as_lists().replace("web-5d8f7c9b4-bbbbb a-2", wrong)
    (problem,) = problems(text)
    assert problem.startswith(f"copy.toml:{line_of(text, wrong)}: ownedPods[0].pods: ")
    assert message in problem


def test_a_list_that_starts_on_the_key_line_counts_its_lines_from_there():
    text = as_lists().replace("pods = '''\nweb-5d8f7c9b4-aaaaa a-1\n", "pods = '''web-5d8f7c9b4-aaaaa a-1\n")
    text = text.replace("web-5d8f7c9b4-ccccc b-1", "web-5d8f7c9b4-ccccc b-9")
    (problem,) = problems(text)
    assert problem.startswith(f"copy.toml:{line_of(text, 'b-9')}: ownedPods[0].pods: pod 'web-5d8f7c9b4-ccccc'")


def test_an_unknown_owner_and_a_name_taken_by_a_pod_entry():
    text = as_lists().replace('owner = "StatefulSet/db"', 'owner = "StatefulSet/dbx"')
    text = text.replace("db-1 b-2", "lonely b-2")
    assert problems(text) == [
        f"copy.toml:{line_of(text, 'StatefulSet/dbx')}: ownedPods[2].owner: no StatefulSet named 'dbx' in namespace "
        "'default'",
        f"copy.toml:{line_of(text, 'lonely b-2')}: ownedPods[2].pods: duplicate pod name 'lonely'"]


def test_a_list_of_many_wrong_nodes_says_the_first_few_and_how_many_more():
    lines = "".join(f"web-{i} gone-{i}\n" for i in range(40))
    text = CLUSTER + f"\n[[ownedPods]]\nowner = \"Deployment/web\"\nnamespace = \"apps\"\npods = '''\n{lines}'''\n"
    found = problems(text)
    assert len(found) == 6
    assert found[0].startswith(f"copy.toml:{line_of(text, 'web-0 gone-0')}: ownedPods[0].pods: pod 'web-0': unknown node")
    assert found[-1].endswith("ownedPods[0].pods: ... and 35 more pods of this list with problems")


def test_lines_inside_a_multi_line_string_are_not_taken_for_keys():
    text = CLUSTER.replace('name = "owned"', 'name = "owned"\ndescription = """\n[[deployments]]\nreplicas = 1\n"""')
    text = text.replace("replicas = 4", "replicas = -4")
    (problem,) = problems(text)
    assert problem.startswith(f"copy.toml:{line_of(text, 'replicas = -4')}: deployments[0].replicas: ")


def test_the_command_line_refuses_a_wrong_list_cleanly(tmp_path, capsys):
    path = tmp_path / "copy.toml"
    path.write_text(as_lists().replace("db-0 a-2", "db-0"))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "ownedPods[2].pods: 'db-0': expected a pod name and its node name" in err
    assert "Traceback" not in err


def test_an_import_writes_the_pods_of_workloads_as_lists(tmp_path, capsys):
    """`playground import`: the pods that say only who they are and where they run go to one list per
    owner; the others (a bare pod, a pod with fields of its own) stay [[pods]] entries."""
    dump = DUMPS / "eks-cluster.json"
    imported = import_files([str(dump)])
    text = scenario_text(imported)
    scenario = parse_scenario(text)
    owned = {g.owner: [name for _i, name, _node in g.entries()] for g in scenario.ownedPods}
    assert owned["Deployment/checkout"] == ["checkout-5d9c7b8f6-pv2b6", "checkout-5d9c7b8f6-qv2b6",
                                             "checkout-5d9c7b8f6-rv2b6"]
    assert "aws-node-ax7k2" in owned["DaemonSet/aws-node"]
    # coredns's pods run a spec of their own (not their Deployment's as it is now): entries
    assert "Deployment/coredns" not in owned
    assert {p.name for p in scenario.pods if p.owner == "Deployment/coredns"} == {"coredns-789f8477df-km4n8",
                                                                                "coredns-789f8477df-lm4n8"}
    assert all(not p.owner or set(p.model_fields_set) - {"name", "namespace", "nodeName", "owner"}
               for p in scenario.pods)
    assert [p.model_dump() for p in scenario.pod_specs()] == [p.model_dump() for p in imported.scenario.pod_specs()]
    assert text.count("[[ownedPods]]") == len(scenario.ownedPods) and "pods = '''\n" in text


def test_only_the_first_unknown_nodes_get_a_suggestion():
    """Finding the closest node name compares it with every node's (~0.2 s among 5,000): a file naming
    thousands of wrong nodes gets "did you mean" for the first MAX_SUGGESTIONS only."""
    from playground.scenario.loader import MAX_SUGGESTIONS

    pods = "".join(f'\n[[pods]]\nname = "p{i}"\nnodeName = "a-{i + 10}"\n' for i in range(MAX_SUGGESTIONS + 5))
    found = problems(CLUSTER + pods)
    unknown = [p for p in found if "unknown node" in p]
    assert len(unknown) == MAX_SUGGESTIONS + 5
    assert all('did you mean "a-' in p for p in unknown[:MAX_SUGGESTIONS])
    assert not any("did you mean" in p for p in unknown[MAX_SUGGESTIONS:])


def test_a_list_holds_at_most_a_workloads_replicas():
    from playground.scenario.validation import MAX_REPLICAS

    lines = "".join(f"web-{i} a-1\n" for i in range(MAX_REPLICAS + 1))
    text = CLUSTER + f"\n[[ownedPods]]\nowner = \"Deployment/web\"\nnamespace = \"apps\"\npods = '''\n{lines}'''\n"
    (problem,) = problems(text)
    assert problem == (f"copy.toml:{line_of(text, 'pods = ')}: ownedPods[0].pods: {MAX_REPLICAS + 1} pods: at most "
                       f"{MAX_REPLICAS} a list, as a workload has at most that many replicas")


def test_a_name_taken_by_another_list_of_the_namespace_is_a_duplicate_and_in_another_namespace_is_not():
    text = as_lists() + "\n[[ownedPods]]\nowner = \"Deployment/web\"\nnamespace = \"other\"\npods = '''\ndb-0 a-1\n'''\n"
    assert [p for p in problems(text) if "duplicate" in p] == []
    text = text.replace("db-0 a-1\n'''", "db-0 a-1\nweb-5d8f7c9b4-ccccc a-3\n'''").replace('"other"', '"apps"')
    assert [p.split(": ", 1)[1] for p in problems(text) if "duplicate" in p] == [
        "ownedPods[3].pods: duplicate pod name 'web-5d8f7c9b4-ccccc'"]


NAME_PARTS = ["a", "b-1", "x.y", "-", ".", "..", "9", "A", "_", "é"]
LINE_PARTS = [" ", "\t", "\r", "  "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(NAME_PARTS), min_size=0, max_size=3),
                          st.sampled_from(LINE_PARTS),
                          st.lists(st.sampled_from(NAME_PARTS), min_size=0, max_size=3),
                          st.sampled_from(["", "\r", " ", " extra"])), max_size=8),
       st.sampled_from(["", "\n", "\n\n", " \n"]))
@example([(["a"], " ", ["a"], "\r")], " \n")  # the last line "a a\r " is wrong: it is not trimmed first
def test_a_list_read_at_once_is_read_as_line_by_line(lines, end):
    """The quick reading of a whole list (`playground import`'s lists) gives the entries, or the first
    wrong line and its message, that reading it a line at a time gives."""
    from playground.scenario.schema import OwnedLineError, _owned_entries_by_line, owned_pod_entries

    text = "\n".join("".join(name) + gap + "".join(node) + tail for name, gap, node, tail in lines) + end

    def read(function):
        try:
            return function(text)
        except OwnedLineError as exc:
            return exc.index, str(exc)

    assert read(owned_pod_entries) == read(_owned_entries_by_line)
