"""The package layout the architecture promises: one engine home, no import circles."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "treelab"


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """treelab modules that ``path`` imports anywhere (top level or inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("treelab"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    modules = _module_names()
    graph = {name: _imports(path, modules) for name, path in modules.items()}
    # a package's __init__ re-exporting its own modules is not a circle: drop those edges
    for name in graph:
        graph[name] = {m for m in graph[name] if not m.startswith(name + ".")
                       or name not in modules or modules[name].name != "__init__.py"}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_numba_kernels_live_only_in_the_engine():
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text()
        if "from numba import" in text or "@njit" in text:
            assert rel.startswith("engine/kernels/"), rel


def test_the_engine_is_the_only_home_below_the_estimators():
    # a checkout that had the old layout may keep an ignored __pycache__ there: look at sources
    assert not list((PACKAGE / "_kernels").glob("*.py"))
    for loose in ("_forest.py", "_forest_learners.py", "_pruning.py"):
        assert not (PACKAGE / loose).exists()
    doc = (PACKAGE / "engine" / "__init__.py").read_text()
    assert "grow_tree" in doc and "bit-identical" in doc
