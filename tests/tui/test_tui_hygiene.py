"""The engine and the scenario format never import textual or rich (design rules 1 and 5)."""

import subprocess
import sys


def test_engine_and_scenario_do_not_import_textual_or_rich():
    code = ("import playground.engine, playground.scenario, playground.units, sys; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')); "
            "assert not bad, bad")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_ui_does_import_textual():
    """The check above would pass vacuously if the modules could not be found at all."""
    code = "import playground.tui.app, sys; assert 'textual' in sys.modules"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
