"""Scenario files: clear errors for bad input, exact round trips, atomic saves."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from playground.scenario import ScenarioError, dump_scenario, load_scenario, parse_scenario, save_scenario

ROOT = Path(__file__).resolve().parent.parent
GOOD = """\
[scenario]
name = "ok"

[[priorityClasses]]
name = "high"
value = 1000

[[nodes]]
name = "n-1"
capacity = { cpu = "2", memory = "4Gi" }

[[deployments]]
name = "web"
replicas = 2
template = { priorityClassName = "high", labels = { app = "web" }, requests = { cpu = "100m" } }
"""


def problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(textwrap.dedent(text), "bad.toml")
    return [p.format("bad.toml") for p in info.value.problems]


def test_good_file_loads():
    scenario = parse_scenario(GOOD)
    assert scenario.nodes[0].capacity.cpu == 2000
    assert scenario.deployments[0].template.requests.cpu == 100


def test_unknown_key_suggests_the_close_spelling_with_line():
    text = GOOD.replace('capacity = { cpu = "2"', 'capcity = { cpu = "2"')
    out = problems(text)
    assert 'bad.toml:10: nodes[0].capcity: unknown key; did you mean "capacity"?' in out
    assert "bad.toml:8: nodes[0].capacity: missing required key" in out


def test_unknown_controller_manager_flag():
    out = problems(GOOD + '\n[controllerManager]\nnode-monitor-grace-perid = "40s"\n')
    assert out == ['bad.toml:18: controllerManager.node-monitor-grace-perid: unknown key; '
                   'did you mean "node-monitor-grace-period"?']


def test_bad_quantity_and_duration_name_the_key():
    out = problems(GOOD.replace('cpu = "2"', 'cpu = "two"') + '\n[kubelet]\nshutdownGracePeriod = "30 seconds"\n')
    assert any(o.startswith("bad.toml:10: nodes[0].capacity.cpu: 'two' is not a Kubernetes quantity") for o in out)
    assert any(o.startswith("bad.toml:18: kubelet.shutdownGracePeriod: '30 seconds' is not a duration") for o in out)


def test_unknown_priority_class_is_a_cross_reference_error():
    out = problems(GOOD.replace('priorityClassName = "high"', 'priorityClassName = "hihg"'))
    assert out == ['bad.toml:15: deployments[0].template.priorityClassName: unknown PriorityClass \'hihg\'; '
                   'did you mean "high"?']


def test_unknown_node_in_timeline_and_duplicate_names():
    out = problems(GOOD + textwrap.dedent("""
        [[nodes]]
        name = "n-1"
        capacity = { cpu = "2", memory = "4Gi" }

        [[timeline]]
        at = "1m"
        do = "power-off"
        node = "n-2"
        """))
    assert "bad.toml:18: nodes[1].name: duplicate node name 'n-1'" in out
    assert "bad.toml:24: timeline[0].node: unknown node 'n-2'; did you mean \"n-1\"?" in out


def test_unknown_operation_suggests():
    out = problems(GOOD + '\n[[timeline]]\nat = "1m"\ndo = "poweroff"\nnode = "n-1"\n')
    assert out == ['bad.toml:17: timeline[0]: unknown operation \'poweroff\'; did you mean "power-off"?']


def test_shutdown_critical_longer_than_total_is_refused():
    out = problems(GOOD + '\n[kubelet]\nshutdownGracePeriod = "10s"\nshutdownGracePeriodCriticalPods = "20s"\n')
    assert len(out) == 1 and "shutdownGracePeriodCriticalPods (20s) must not exceed shutdownGracePeriod (10s)" in out[0]
    assert out[0].startswith("bad.toml:17: kubelet:")


def test_toml_syntax_error_has_a_line():
    out = problems('[scenario]\nname = "x"\nseed = \n')
    assert out[0].startswith("bad.toml:3: invalid TOML")


def test_missing_scenario_table_and_wrong_types():
    out = problems('[[nodes]]\nname = "Bad_Name"\ncapacity = { cpu = "1", memory = "1Gi", pods = "many" }\n')
    assert "bad.toml: scenario: missing required key" in out
    assert any("nodes[0].name: 'Bad_Name' is not a valid name" in o for o in out)
    assert any("nodes[0].capacity.pods" in o for o in out)


def test_reserved_names_and_user_priority_limit():
    out = problems(GOOD + '\n[[priorityClasses]]\nname = "system-mine"\nvalue = 3\n'
                   + '\n[[priorityClasses]]\nname = "huge"\nvalue = 1000000001\n')
    assert any('priorityClasses[1]: priority class names starting with "system-" are reserved' in o for o in out)
    assert any("priorityClasses[2]: user priority classes may have a value of at most 1000000000" in o for o in out)


def test_expectation_must_check_something():
    out = problems(GOOD + '\n[[expect]]\nat = "1m"\n')
    assert out == ["bad.toml:17: expect[0]: an expectation must check something: e.g. conditions, taints, zones, "
                   "event, pods or phase"]


def test_missing_file():
    with pytest.raises(ScenarioError) as info:
        load_scenario("/nonexistent/x.toml")
    assert info.value.format() == "/nonexistent/x.toml: no such file"


def test_round_trip_of_every_scenario(tmp_path):
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        scenario = load_scenario(path)
        target = tmp_path / path.name
        save_scenario(scenario, target)
        again = load_scenario(target)
        assert again == scenario, path.name
        assert dump_scenario(again) == dump_scenario(scenario)


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path, monkeypatch):
    target = tmp_path / "s.toml"
    target.write_text("original")
    scenario = parse_scenario(GOOD)

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_scenario(scenario, target)
    assert target.read_text() == "original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]
    monkeypatch.undo()
    save_scenario(scenario, target)
    assert load_scenario(target) == scenario


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True, cwd=ROOT)


def test_cli_bad_file_exits_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("replicas = 2", "replicas = -1"))
    for command in ("validate", "sim", "check"):
        result = _cli(command, str(bad))
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        assert f"{bad}:14: deployments[0].replicas: Input should be greater than or equal to 0" in result.stderr


def test_cli_bad_until_exits_2():
    result = _cli("sim", "scenarios/node-failure.toml", "--until", "soon")
    assert result.returncode == 2 and "--until" in result.stderr and "Traceback" not in result.stderr


def test_only_one_global_default():
    out = problems(GOOD + textwrap.dedent("""
        [[priorityClasses]]
        name = "a"
        value = 1
        globalDefault = true

        [[priorityClasses]]
        name = "b"
        value = 2
        globalDefault = true
        """))
    assert out == ["bad.toml:25: priorityClasses[2].globalDefault: only one PriorityClass may be the globalDefault"]
