"""The README's test command: on every usable core by default, and the command CI runs."""

import os
import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_pytest_runs_on_every_usable_core_by_default():
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["addopts"].split()
    assert options[options.index("-n") + 1] == "auto"
    import conftest

    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count()
    assert conftest.pytest_xdist_auto_num_workers(None) == expected


def test_ci_runs_the_readmes_test_command():
    readme = (REPO / "README.md").read_text()
    (command,) = re.findall(r'pip install -e "\.\[dev\]" && (.+)\n', readme)
    assert command == "pytest"
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert "python -m pytest" in [line.strip() for line in ci]
