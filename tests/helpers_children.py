"""A fresh interpreter for tests of what a process imports, collects or prints at its start
and its exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import treelab

#: the source tree under test (the folder holding the ``treelab`` package)
REPO = os.path.dirname(os.path.dirname(treelab.__file__))


def run_child(code: str) -> str:
    """The last line ``code`` prints in a fresh interpreter, started in this source tree and
    importing it, that reads the kernel cache this process uses (what the parent fitted loads
    instead of compiling); a failure of the child fails the test with its standard error."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]
