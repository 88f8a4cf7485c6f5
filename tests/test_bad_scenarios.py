"""Bad input is answered, never crashed on: every file in tests/data/bad-scenarios/ names on its first
line (`# expect: <text>`) what `validate` and `sim` must print after the file name, with exit status 2
and no traceback. In-process through the CLI's entry function (fast), a few in a subprocess (the real
exit status), and the inputs a repository cannot hold (a FIFO, a symlink to /dev/zero, a folder, a
huge file) made on the spot.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.cli import main
from playground.scenario import load_scenario, parse_scenario
from playground.scenario.validation import MAX_FILE_BYTES

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "tests" / "data" / "bad-scenarios").glob("*.toml"))


def expected(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode()
    assert first.startswith("# expect: "), path.name
    return first[len("# expect: "):]


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 60


@pytest.mark.parametrize("command", ["validate", "sim"])
@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_every_bad_file_gets_a_clean_answer(path, command, capsys):
    status = main([command, str(path)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    assert f"{path}{expected(path)}" in err, err


@pytest.mark.parametrize("name", ["cpu-inf", "nesting-arrays-deep", "deployment-replicas-huge", "not-utf8"])
def test_a_subprocess_exits_2_without_a_traceback(name):
    path = ROOT / "tests" / "data" / "bad-scenarios" / f"{name}.toml"
    result = subprocess.run([sys.executable, "-m", "playground", "validate", str(path)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{path}{expected(path)}" in result.stderr


def test_a_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "scenario.toml"
    os.mkfifo(fifo)
    assert main(["validate", str(fifo)]) == 2
    assert f"{fifo}: cannot read: not a regular file" in capsys.readouterr().err


def test_a_symlink_to_dev_zero_is_refused_without_reading(tmp_path, capsys):
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    assert main(["sim", str(link)]) == 2
    assert f"{link}: cannot read: not a regular file" in capsys.readouterr().err


def test_a_folder_and_a_missing_file(tmp_path, capsys):
    assert main(["validate", str(tmp_path)]) == 2
    assert f"{tmp_path}: cannot read: a directory" in capsys.readouterr().err
    assert main(["validate", str(tmp_path / "nope.toml")]) == 2
    assert f"{tmp_path / 'nope.toml'}: no such file" in capsys.readouterr().err


def test_a_file_over_the_size_limit_is_refused(tmp_path, capsys):
    big = tmp_path / "big.toml"
    big.write_text('[scenario]\nname = "x"\n' + "#" * MAX_FILE_BYTES)
    assert main(["validate", str(big)]) == 2
    assert f"{big}: file too large" in capsys.readouterr().err


def test_until_beyond_the_limit_is_refused(capsys):
    assert main(["sim", str(ROOT / "scenarios" / "node-failure.toml"), "--until", "999h"]) == 2
    assert "--until: must be at most 168h" in capsys.readouterr().err


# ---------------------------------------------------------------- accepted


GOOD = '''[scenario]
name = "ok"

[[nodes]]
name = "n-1"
capacity = { cpu = "2", memory = "4Gi" }
taints = [{ key = "dedicated", value = "db", effect = "NoSchedule" }, "gpu:NoExecute"]

[[nodePools]]
namePrefix = "pool-a."
count = 2
capacity = { cpu = "2", memory = "4Gi" }
taints = [{ key = "example.com/spot", effect = "PreferNoSchedule" }]

[[expect]]
at = "1s"
node = "n-1"
taints = [{ key = "dedicated", value = "db", effect = "NoSchedule" }]
noTaints = [{ key = "gpu", effect = "NoSchedule" }]
'''


def test_taints_in_kubernetes_object_shape_are_accepted_everywhere(tmp_path, capsys):
    scenario = parse_scenario(GOOD)
    assert scenario.nodes[0].taints == ["dedicated=db:NoSchedule", "gpu:NoExecute"]
    assert scenario.nodePools[0].taints == ["example.com/spot:PreferNoSchedule"]
    path = tmp_path / "ok.toml"
    path.write_text(GOOD)
    assert main(["check", str(path)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert load_scenario(path).scenario.name == "ok"

