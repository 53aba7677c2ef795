"""No test asserts that something ran within a few seconds of wall time.

A test suite must pass on a loaded machine: a bound of a second or two fails from the load
alone (three widget tests asserting ``< 1.0`` s took 1.3-2.0 s at load 10). Speeds are
measured in ``benchmarks/`` as ratios; tests check the work done (what is refit, what is
redrawn). This module scans every test module's syntax tree for an ``assert`` that compares
a timed quantity (a call of a clock from ``time`` or ``timeit``, a name assigned from one, or
a call of a helper of the module that reads a clock) with a bound below :data:`LIMIT_S`.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: A bound below this many seconds can fail from the machine's load alone.
LIMIT_S = 5.0
CLOCKS = {"perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns",
          "process_time", "process_time_ns", "thread_time", "default_timer", "timeit",
          "repeat"}
CLOCK_MODULES = {"time", "timeit"}


def _clock_call(node: ast.AST, imported: set[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id in CLOCK_MODULES and func.attr in CLOCKS
    return isinstance(func, ast.Name) and func.id in imported


def _mentions(node: ast.AST, imported: set[str], timed_funcs: set[str],
              timed_names: set[str]) -> bool:
    for sub in ast.walk(node):
        if _clock_call(sub, imported):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) \
                and sub.func.id in timed_funcs:
            return True
        if isinstance(sub, ast.Name) and sub.id in timed_names:
            return True
    return False


def _assigned(node: ast.AST) -> tuple[list[str], ast.AST | None]:
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets, value = [node.target], node.value
    else:
        return [], None
    names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names, value


def timed_asserts(source: str, limit: float = LIMIT_S) -> list[int]:
    """Line numbers of the asserts in ``source`` that bound a timed quantity below ``limit``.

    Parameters
    ----------
    source : str
        Python source of a test module.
    limit : float
        Bounds (in seconds) below this are reported.

    Returns
    -------
    list of int
    """
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module in CLOCK_MODULES
                for alias in node.names if alias.name in CLOCKS}
    constants = {}
    for node in tree.body:
        names, value = _assigned(node)
        if isinstance(value, ast.Constant) and isinstance(value.value, int | float):
            constants.update(dict.fromkeys(names, float(value.value)))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.Lambda)]
    # a helper that reads a clock (or calls one that does) times whatever it is given
    timed_funcs: set[str] = set()
    timed_names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for fn in functions:
            if isinstance(fn, ast.FunctionDef) and fn.name not in timed_funcs and _mentions(
                    fn, imported, timed_funcs, timed_names):
                timed_funcs.add(fn.name)
                changed = True
        for node in ast.walk(tree):
            names, value = _assigned(node)
            if value is not None and _mentions(value, imported, timed_funcs, timed_names):
                new = set(names) - timed_names
                if new:
                    timed_names |= new
                    changed = True

    def bound(node: ast.AST) -> float | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            return constants.get(node.id)
        return None

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            sides = [cmp.left, *cmp.comparators]
            timed = [_mentions(s, imported, timed_funcs, timed_names) for s in sides]
            # a clock on one side, a bound of seconds below the limit on another
            bounds = [bound(s) for s, t in zip(sides, timed, strict=True) if not t]
            if any(timed) and any(b is not None and b < limit for b in bounds):
                found.append(node.lineno)
                break
    return found


def test_the_scan_finds_timed_asserts():
    examples = {
        "helper": """
            import time
            def best_time(fn):
                start = time.perf_counter()
                fn()
                return time.perf_counter() - start
            def test_fast():
                assert best_time(lambda: None) < 1.0
        """,
        "elapsed": """
            from time import perf_counter as clock
            LIMIT = 2
            def test_fast():
                start = clock()
                work()
                elapsed = clock() - start
                assert elapsed <= LIMIT, elapsed
        """,
        "timeit": """
            import timeit
            def test_fast():
                assert 0.5 > min(timeit.repeat(work, number=1, repeat=3))
        """,
    }
    for name, source in examples.items():
        assert timed_asserts(textwrap.dedent(source)), name
    untimed = """
        import time
        def test_hang_guard():
            start = time.perf_counter()
            work()
            assert time.perf_counter() - start < 600  # a hang, not a speed
            assert work() < 1.0  # not a time
    """
    assert timed_asserts(textwrap.dedent(untimed)) == []


def test_no_test_asserts_a_wall_time_of_a_few_seconds():
    found = {str(path.relative_to(TESTS)): lines for path in sorted(TESTS.rglob("*.py"))
             if (lines := timed_asserts(path.read_text(encoding="utf-8")))}
    assert found == {}, (f"tests that bound a time below {LIMIT_S} s (measure speed in "
                         f"benchmarks/, check the work done in tests): {found}")
