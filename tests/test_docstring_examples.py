"""Every Examples section in treelab's docstrings runs, so a documented pattern cannot break
silently (the equivalent of ``pytest --doctest-modules`` over the package, one test a module).

Examples are written to run in a few seconds at most, on small data; none is skipped.
"""

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import treelab  # noqa: E402

ROOT = Path(treelab.__file__).resolve().parent
# __main__ runs the command line when imported
MODULES = sorted(m.name for m in pkgutil.walk_packages(treelab.__path__, "treelab.")
                 if not m.name.endswith("__main__"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _examples(name):
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, name)
    return [t for t in tests if t.examples]


def test_the_examples_are_found():
    found = {name: len(_examples(name)) for name in MODULES}
    assert sum(found.values()) >= 20, found
    for name in ("treelab.plot.stack", "treelab.plot.export", "treelab.analysis.diversity"):
        assert found[name], name


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    import matplotlib.pyplot as plt

    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = []
    try:
        for test in _examples(name):
            runner.run(test, out=out.append)
    finally:
        plt.close("all")
    assert runner.failures == 0, "".join(out)


def test_no_example_is_skipped():
    skipped = [f"{p.relative_to(ROOT.parent)}:{i}"
               for p in sorted(ROOT.rglob("*.py"))
               for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"doctest:\s*\+SKIP", line)]
    assert not skipped, f"docstring examples that never run: {skipped}"


def _public_functions():
    import inspect

    import treelab.analysis
    import treelab.stats

    for package in (treelab.analysis, treelab.stats):
        for name in dir(package):
            obj = getattr(package, name)
            if inspect.isfunction(obj):
                yield f"{package.__name__}.{name}", obj


def test_every_measure_with_intervals_documents_one_set_of_options():
    import inspect

    from treelab.analysis._measure_intervals import CI_OPTIONS_DOC

    documented = []
    for name, fn in _public_functions():
        if "ci_method" not in inspect.signature(fn).parameters:
            continue
        doc = fn.__doc__ or ""
        assert "%(" not in doc, f"{name}'s docstring has an unfilled fragment"
        assert CI_OPTIONS_DOC in doc, f"{name} documents ci_method/n_boot/ci_seed its own way"
        assert "ci_resample" in inspect.signature(fn).parameters, f"{name} lacks ci_resample"
        documented.append(name)
    assert len(documented) >= 9, documented
