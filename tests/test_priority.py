"""PriorityClass: built-ins, validation, globalDefault, preemptionPolicy, admission of pods."""

from __future__ import annotations

import textwrap

import pytest
from conftest import events, make_sim, nodes_toml

from playground.engine import Operation, Simulation
from playground.engine.objects import Deployment, PodTemplate
from playground.scenario import ScenarioError, parse_scenario
from playground.scenario.schema import Scenario

CLASSES = """
[[priorityClasses]]
name = "default-priority"
value = 1000
globalDefault = true

[[priorityClasses]]
name = "waits"
value = 50000
preemptionPolicy = "Never"
description = "Never preempts."
"""


def test_builtin_classes():
    sim = make_sim("")
    classes = sim.store.priority_classes
    assert classes["system-cluster-critical"].value == 2_000_000_000
    assert classes["system-node-critical"].value == 2_000_001_000
    assert classes["system-node-critical"].description == (
        "Used for system critical pods that must not be moved from their current node.")
    assert all(c.preemption_policy == "PreemptLowerPriority" and not c.global_default
               for c in classes.values())


@pytest.mark.parametrize("body,message", [
    ('name = "too-high"\nvalue = 1000000001',
     "priorityClasses[0]: user priority classes may have a value of at most 1000000000, got 1000000001"),
    ('name = "system-mine"\nvalue = 1', 'priorityClasses[0]: priority class names starting with "system-" are reserved'),
    ('name = "low"\nvalue = -2147483649', "priorityClasses[0].value: Input should be greater than or equal to -2147483648"),
    ('name = "x"\nvalue = 1\npreemptionPolicy = "Sometimes"',
     "priorityClasses[0].preemptionPolicy: Input should be 'PreemptLowerPriority' or 'Never'"),
])
def test_user_classes_are_validated(body, message):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(f'[scenario]\nname = "x"\n\n[[priorityClasses]]\n{body}\n', "bad.toml")
    assert any(message in p.format("bad.toml") for p in info.value.problems)


def test_highest_user_definable_value_is_accepted():
    scenario = parse_scenario('[scenario]\nname = "x"\n[[priorityClasses]]\nname = "top"\nvalue = 1000000000\n')
    assert scenario.priorityClasses[0].value == 1_000_000_000


def test_pods_get_priority_and_policy_from_their_class_or_the_global_default():
    body = nodes_toml("n-", 1) + CLASSES + """
[[pods]]
name = "plain"

[[pods]]
name = "patient"
priorityClassName = "waits"

[[pods]]
name = "critical"
priorityClassName = "system-cluster-critical"

[[pods]]
name = "shortcut"
priority = 7
"""
    sim = make_sim(body)
    sim.run_until(0)
    pods = sim.store.pods
    plain = pods["default/plain"]
    assert (plain.priority, plain.priority_class_name, plain.preemption_policy) == (1000, "default-priority",
                                                                                    "PreemptLowerPriority")
    patient = pods["default/patient"]
    assert (patient.priority, patient.preemption_policy) == (50000, "Never")
    assert pods["default/critical"].priority == 2_000_000_000
    # The simulation's `priority` shortcut stands for a class of that value and wins over the default.
    shortcut = pods["default/shortcut"]
    assert (shortcut.priority, shortcut.priority_class_name) == (7, "")


def test_without_a_global_default_pods_have_priority_zero():
    sim = make_sim(nodes_toml("n-", 1) + '\n[[pods]]\nname = "p"\n')
    sim.run_until(0)
    pod = sim.store.pods["default/p"]
    assert (pod.priority, pod.priority_class_name, pod.preemption_policy) == (0, "", "PreemptLowerPriority")


def test_creating_a_pod_with_an_unknown_class_is_refused_without_an_event_or_history():
    sim = make_sim(nodes_toml("n-", 1))
    result = sim.apply(Operation("create-pod", pod="p", template=PodTemplate(labels={}, priority_class_name="nope")))
    assert not result.ok
    assert result.message == 'pods "p" is forbidden: no PriorityClass with name nope was found'
    # refused by validation, as a saved timeline entry would be: no event, no history
    assert events(sim, "OperationRefused") == [] and sim.operations.history == []
    assert "default/p" not in sim.store.pods


def test_a_replicaset_whose_class_is_missing_reports_failed_create():
    sim = make_sim(nodes_toml("n-", 1))
    template = PodTemplate(labels={"app": "web"}, priority_class_name="gone")
    sim.workloads.add_deployment(Deployment("web", "default", 2, template))
    sim.run_until(0)
    rs = sim.workloads.replicasets_of("web")[0].name
    failed = events(sim, "FailedCreate", f"ReplicaSet/default/{rs}")
    assert failed and failed[0].type == "Warning"
    assert failed[0].message.startswith(f'Error creating: pods "{rs}-')
    assert failed[0].message.endswith('" is forbidden: no PriorityClass with name gone was found')
    assert not sim.store.owned_pods("ReplicaSet", rs)


def test_scenario_files_name_unknown_classes_before_running():
    text = textwrap.dedent("""
        [scenario]
        name = "x"

        [[pods]]
        name = "p"
        priorityClassName = "wiats"

        [[priorityClasses]]
        name = "waits"
        value = 1
        """)
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, "bad.toml")
    assert "unknown PriorityClass 'wiats'; did you mean \"waits\"?" in info.value.format()
    # Built without the file checks, the same pod is refused by admission at run time.
    scenario = Scenario.model_validate({"scenario": {"name": "x"}, "nodes": [
        {"name": "n-1", "capacity": {"cpu": "1", "memory": "1Gi"}}], "pods": [{"name": "p", "priorityClassName": "nope"}]})
    sim = Simulation(scenario)
    sim.run_until(0)
    assert "default/p" not in sim.store.pods
    assert events(sim, "OperationRefused")[0].message.endswith("no PriorityClass with name nope was found")


def test_a_never_class_is_still_ordered_by_priority_in_the_queue():
    body = nodes_toml("n-", 1, cpu="1", memory="1Gi") + CLASSES + """
[[pods]]
name = "ordinary"
requests = { cpu = "1" }

[[pods]]
name = "patient"
priorityClassName = "waits"
requests = { cpu = "1" }
"""
    sim = make_sim(body)
    sim.run_until(0)
    assert sim.store.pods["default/patient"].node_name == "n-1"
    assert sim.store.pods["default/ordinary"].node_name is None
