"""The digest of what ``.ci/bounds`` checks: numba's version, every kernel module's source, the
test modules of the bounds-checked pass and that script. ``--modules`` prints the test modules
instead (one line, space-separated), so the pass and its digest name the same files."""

import hashlib
import sys
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the engine's and the learners' kernel tests; test_engine_uci_accuracy.py left out (large
# fits of kernels the other modules run on smaller data)
PATTERNS = ("tests/test_engine_*.py", "tests/test_random_growth.py", "tests/test_predict_walk.py",
            "tests/test_robustness_engine.py", "tests/test_learners_rotation.py",
            "tests/test_learners_stochastic.py", "tests/test_learners_mmdt.py",
            "tests/test_learners_cvdt.py", "tests/test_learners_prune.py",
            "tests/test_regression_trees.py", "tests/test_regression_missing.py")
LEFT_OUT = {"tests/test_engine_uci_accuracy.py"}


def modules() -> list[str]:
    found = {p.relative_to(ROOT).as_posix() for pattern in PATTERNS for p in ROOT.glob(pattern)}
    return sorted(found - LEFT_OUT)


def digest() -> str:
    h = hashlib.sha256(version("numba").encode())
    files = sorted((ROOT / "treelab" / "engine" / "kernels").glob("*.py"))
    files += [ROOT / m for m in modules()] + [ROOT / ".ci" / "bounds", Path(__file__).resolve()]
    for path in files:
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


if __name__ == "__main__":
    print(" ".join(modules()) if "--modules" in sys.argv else digest())
