"""A research grid of small data sets, end to end, against another source tree (not a test).

The grid: credit-a, sonar, vote and segmentation x Agg., Bag. and Subspace VR-Trees (100
trees) x alpha in {0, 0.1, ..., 1} x 5-fold stratified CV = 660 cells, run by
``treelab.experiment.run`` on the local backend (``--workers`` processes), each run in a fresh
interpreter, as a user's ``treelab run`` starts (imports, worker start-up, the numba cache
read), the result files left out (``write_result=False``).

``--old`` names another source tree (e.g. a worktree of an earlier commit): the two trees run
alternately, ``--pairs`` times (the order swapped every pair), and the script reports each
run's wall time, every pair's ratio new / old and their median, and whether every stored
value of every cell (all but the timings) is the same in both trees' stores. A run before the
timed ones (10 trees, 2 folds) warms each tree's numba cache. Run one after the other (not
``--together``), each run's CPU seconds (user + system) of its whole process tree (the run,
its fork server and workers, which the script adopts as their reaper on Linux) and their
ratios are reported too: on a shared machine the figure that the load moves least; and the
seconds from each run's start to its first stored cell (its start-up).

``--cli`` runs each grid as the command a user types instead, ``python -m treelab run
<grid>.toml --workers 2`` (the same cells; the result file and summary written too, and the
process ending as the command ends).

Usage::

    python benchmarks/bench_grid.py --old /work/wt/i44-base --pairs 3
    python benchmarks/bench_grid.py --old /work/wt/i44-base --pairs 3 --cli
    python benchmarks/bench_grid.py --profile /tmp/grid.prof   # this tree, serial, cProfile

Reads the UCI bundle that ships with treelab (``data/uci``; ``TREELAB_DATA`` points elsewhere).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DATASETS = ("credit-a", "sonar", "vote", "segmentation")
TIMING = ("fit_time", "predict_time", "eval_time")
ALPHAS = [round(0.1 * i, 1) for i in range(11)]

CHILD = """
import sys, time
started = time.perf_counter()
from treelab.experiment import run
from treelab.experiment.demo import spectrum_ensembles
config = dict(
    name="small-set grid", seed=0,
    datasets=[{{"uci": n}} for n in {datasets!r}],
    ensembles=spectrum_ensembles({trees}),
    alphas={alphas!r},
    protocol={{"name": "stratified_kfold", "n_splits": {folds}}},
)
run(config, out={out!r}, backend={backend!r}, n_workers={workers}, progress=False,
    write_result=False)
print("WALL", time.perf_counter() - started)
"""


def grid_toml(datasets: list[str], trees: int, folds: int) -> str:
    """The grid as the configuration file ``treelab run`` reads (``--cli``): the ensembles
    are ``spectrum_ensembles``', as the API child's (strings and numbers only, which JSON and
    TOML write alike)."""
    from treelab.experiment.demo import spectrum_ensembles

    lines = ['name = "small-set grid"', "seed = 0", 'backend = "local"',
             f"alphas = {ALPHAS}", "", "[protocol]", 'name = "stratified_kfold"',
             f"n_splits = {folds}", ""]
    for name in datasets:
        lines += ["[[datasets]]", f"uci = {json.dumps(name)}"]
    for ens in spectrum_ensembles(trees):
        params = ", ".join(f"{k} = {json.dumps(v)}" for k, v in ens["params"].items())
        lines += ["", "[[ensembles]]", f"name = {json.dumps(ens['name'])}",
                  f"estimator = {json.dumps(ens['estimator'])}", f"params = {{ {params} }}"]
    return "\n".join(lines) + "\n"


def start_tree(tree: Path, out: Path, args: argparse.Namespace, backend: str = "local",
               prefix: list[str] | None = None, warm: bool = False) -> subprocess.Popen:
    """The grid started in a fresh interpreter importing ``tree``'s treelab (with ``warm``, a
    small version of it: 10 trees, 2 folds; the same kernels); with ``args.cli``, as the
    command ``python -m treelab run <grid>.toml --workers N`` (the result file written too)."""
    shutil.rmtree(out, ignore_errors=True)
    trees, folds = (10, 2) if warm else (args.trees, args.folds)
    env = dict(os.environ, PYTHONPATH=str(tree))
    if args.cli:
        config = out.parent / f"grid-{trees}-trees-{folds}-folds.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(grid_toml(args.datasets.split(","), trees, folds))
        return subprocess.Popen([*(prefix or []), sys.executable, "-m", "treelab", "run",
                                 str(config), "--out", str(out), "--backend", backend,
                                 "--workers", str(args.workers), "--no-progress"],
                                env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL)
    code = CHILD.format(datasets=tuple(args.datasets.split(",")), trees=trees, folds=folds,
                        alphas=ALPHAS, out=str(out), backend=backend, workers=args.workers)
    return subprocess.Popen([*(prefix or []), sys.executable, "-c", code], env=env,
                            cwd=tempfile.gettempdir())


def adopt_descendants() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux's child subreaper), so
    that the CPU time of a run's fork server and workers, which outlive the run's process,
    reaches ``RUSAGE_CHILDREN`` once they are reaped. False where that is not available."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_descendants() -> None:
    """Wait for every child and adopted descendant of this process to end."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


#: CPU seconds (user + system) of each timed run's whole process tree, in run order
CPU: list[float] = []
#: seconds from each timed run's start to its first stored cell, in run order
FIRST: list[float] = []


def run_tree(tree: Path, out: Path, args: argparse.Namespace, backend: str = "local",
             prefix: list[str] | None = None, warm: bool = False) -> float:
    """Wall seconds of the grid in a fresh interpreter importing ``tree``'s treelab; the CPU
    seconds of its process, fork server and workers go to ``CPU`` (after
    ``adopt_descendants``: every process of the run reaped first), the seconds until its
    first cell was stored (polled every 20 ms) to ``FIRST``."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = start_tree(tree, out, args, backend, prefix, warm)
    first = None
    cells = out / "cells.jsonl"
    while proc.poll() is None:  # the start-up: until the first cell's line is stored
        if first is None and cells.exists() and cells.stat().st_size:
            first = time.perf_counter() - started
        time.sleep(0.02)
    if proc.returncode != 0:
        raise RuntimeError(f"the grid failed with {tree}")
    wall = time.perf_counter() - started
    FIRST.append(wall if first is None else first)
    reap_descendants()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def run_together(trees: dict[str, Path], args: argparse.Namespace) -> dict[str, float]:
    """Wall seconds of each tree's grid, the runs started at the same moment (on a machine
    whose load moves, both see the same load; the one that ends first leaves the other the
    whole machine for its end, which favours the slower)."""
    started = time.perf_counter()
    procs = {name: start_tree(tree, args.out / name, args) for name, tree in trees.items()}
    walls = {}
    while procs:
        for name, proc in list(procs.items()):
            if proc.poll() is not None:
                if proc.returncode != 0:
                    raise RuntimeError(f"the grid failed with {trees[name]}")
                walls[name] = time.perf_counter() - started
                del procs[name]
        time.sleep(0.2)
    return walls


def stored(out: Path) -> dict[str, dict]:
    """Every cell's stored line less its timings (and the line's digest, a hash of the line
    with its timings), by cell key."""
    cells = {}
    with open(out / "cells.jsonl") as f:
        for line in f:
            rec = json.loads(line)
            rec.pop("digest", None)
            for name in TIMING:
                rec.get("vars", {}).pop(name, None)
            cells[rec["key"]] = rec
    return cells


def kernel_share(collapsed: Path, top: int = 25) -> dict:
    """The share of a py-spy profile's samples (collapsed stacks, ``--format raw``) taken
    inside compiled kernels: samples whose innermost Python frame is a line calling a numba
    dispatcher (py-spy attributes the time of native code to the Python line that called
    it; the dispatcher's own argument typing is native too and counts with the kernel).
    Also the top innermost frames outside the kernels, and samples by outermost treelab
    function."""
    import importlib
    import linecache
    import re

    from numba.core.registry import CPUDispatcher

    def calls_kernel(filename: str, line: int) -> bool:
        text = linecache.getline(filename, line)
        match = re.search(r"(treelab/.*)\.py$", filename)
        if not text or not match:
            return False
        module = importlib.import_module(match.group(1).replace("/", "."))
        names = re.findall(r"([A-Za-z_][A-Za-z_0-9.]*)\s*\(", text)
        for name in names:
            obj: object = module
            for part in name.split("."):
                obj = getattr(obj, part, None)
            if isinstance(obj, CPUDispatcher):
                return True
        return False

    frame = re.compile(r"^(?P<fn>.*) \((?P<file>.*):(?P<line>\d+)\)$")
    total = kernel = 0
    outside: dict[str, int] = {}
    known: dict[tuple[str, int], bool] = {}
    for raw in collapsed.read_text().splitlines():
        stack, _, count = raw.rpartition(" ")
        n = int(count)
        total += n
        leaf = frame.match(stack.split(";")[-1])
        if leaf is not None:
            key = (leaf["file"], int(leaf["line"]))
            if key not in known:
                known[key] = calls_kernel(*key)
            if known[key]:
                kernel += n
                continue
        name = stack.split(";")[-1]
        outside[name] = outside.get(name, 0) + n
    worst = sorted(outside.items(), key=lambda kv: -kv[1])[:top]
    return {"samples": total, "kernel_share": round(kernel / max(total, 1), 3),
            "top_outside": {k: round(v / max(total, 1), 4) for k, v in worst}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, help="the other source tree (a checkout's root)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--together", action="store_true",
                    help="each pair's two runs side by side, started at once (a loaded machine)")
    ap.add_argument("--no-warm", action="store_true", help="the numba caches are warm")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "bench-grid")
    ap.add_argument("--cli", action="store_true",
                    help="run the grid as the command 'treelab run' does (the result written, "
                         "the process's exit as the command's)")
    ap.add_argument("--profile", type=Path,
                    help="run this tree once on the serial backend under cProfile, to here")
    args = ap.parse_args()
    if args.profile is not None:
        run_tree(HERE, args.out / "warm-new", args, warm=True)  # the numba cache written
        wall = run_tree(HERE, args.out / "profile", args, backend="serial", prefix=[
            shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy",
            "record", "--rate", "50", "--format", "raw", "--nonblocking",
            "--output", str(args.profile), "--"])
        print(json.dumps({"serial_wall_s": round(wall, 2), **kernel_share(args.profile)},
                         indent=1))
        return
    trees = {"new": HERE}
    if args.old is not None:
        trees["old"] = args.old.resolve()
    for name, tree in trees.items():  # warm each tree's numba cache (not timed)
        if not args.no_warm:
            run_tree(tree, args.out / f"warm-{name}", args, warm=True)
    walls: dict[str, list[float]] = {name: [] for name in trees}
    cpus: dict[str, list[float]] = {name: [] for name in trees}
    firsts: dict[str, list[float]] = {name: [] for name in trees}
    ratios, cpu_ratios = [], []
    adopted = adopt_descendants()
    for i in range(args.pairs):
        if args.together:
            for name, wall in run_together(trees, args).items():
                walls[name].append(wall)
        else:
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            for name in order:
                walls[name].append(run_tree(trees[name], args.out / name, args))
                cpus[name].append(CPU[-1])
                firsts[name].append(FIRST[-1])
        if "old" in trees:
            ratios.append(walls["new"][-1] / walls["old"][-1])
            if not args.together:
                cpu_ratios.append(cpus["new"][-1] / cpus["old"][-1])
        print(json.dumps({k: round(v[-1], 2) for k, v in walls.items()}), flush=True)
    report: dict = {"cells": len(stored(args.out / "new")), "workers": args.workers,
                    "wall_s": {k: [round(x, 2) for x in v] for k, v in walls.items()}}
    if not args.together:
        report["first_cell_s"] = {k: [round(x, 2) for x in v] for k, v in firsts.items()}
    if adopted and not args.together:  # the runs' whole process trees, one after the other
        report["cpu_s"] = {k: [round(x, 2) for x in v] for k, v in cpus.items()}
    if "old" in trees:
        new, old = stored(args.out / "new"), stored(args.out / "old")
        report["ratios_new_over_old"] = [round(r, 3) for r in ratios]
        report["median_ratio"] = round(statistics.median(ratios), 3)
        if adopted and cpu_ratios:
            report["cpu_ratios_new_over_old"] = [round(r, 3) for r in cpu_ratios]
            report["median_cpu_ratio"] = round(statistics.median(cpu_ratios), 3)
        report["identical_values"] = new == old
        report["cells_compared"] = len(new)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
