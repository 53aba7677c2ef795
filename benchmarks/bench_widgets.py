"""How long one interaction of each explorer takes (``treelab.widgets``).

Target: an interaction (a move of a slider, a new choice in a dropdown) well under a second on
a quiet machine, so that an explorer follows its controls. The tests check the work an
interaction does (one view call, one refit, one picture, no layout engine); the time is
measured here, because a wall time depends on the machine's load.

Each interaction is timed against the floor every redraw pays: rendering a figure of the same
size with nothing on it to PNG (``render_png``). Both run alternately in one process
(``--pairs`` pairs after a warm-up), and the medians of wall and CPU time and of their ratios
are printed (interaction / blank render; on a loaded machine the CPU ratio is the figure to
quote, the wall times grow with the load).

Run: ``python benchmarks/bench_widgets.py`` (``--pairs 3`` for a quick check).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - wall, time.process_time() - cpu


def blank_render(size):
    from matplotlib.figure import Figure

    from treelab.widgets._common import render_png

    def draw():
        render_png(Figure(figsize=size))
    return draw


def measure(name, interact, size, pairs):
    floor = blank_render(size)
    interact(), floor()  # warm-up: compiled kernels, font caches
    rows = []
    for i in range(pairs):
        if i % 2:
            tf, ti = timed(floor), timed(interact)
        else:
            ti, tf = timed(interact), timed(floor)
        rows.append((ti[0], ti[1], tf[0], tf[1], ti[0] / tf[0], ti[1] / max(tf[1], 1e-6)))
    wall, cpu, floor_wall, floor_cpu, ratio, cpu_ratio = np.median(np.array(rows), axis=0)
    print(f"{name:<38} {wall:7.3f} {cpu:7.3f} {floor_wall:8.3f} {floor_cpu:8.3f} "
          f"{ratio:7.1f} {cpu_ratio:7.1f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7)
    args = parser.parse_args(argv)
    from test_plot import fake_result

    from treelab import widgets
    from treelab.datasets import concepts

    result = fake_result(seed=1)
    print(f"{'interaction':<38} {'wall s':>7} {'CPU s':>7} {'blank s':>8} {'blank CPU':>8} "
          f"{'ratio':>7} {'CPU ratio':>7}")
    spectrum = widgets.SpectrumExplorer(result)
    alphas = itertools.cycle([0.0, 0.25, 1.0, 0.5])
    measure("spectrum: move alpha", lambda: setattr(spectrum.alpha, "value", next(alphas)),
            spectrum.figure.get_size_inches(), args.pairs)
    surface = widgets.DecisionSurfaceExplorer(concepts("A", 256, random_state=0),
                                              n_estimators=12)
    moves = itertools.cycle([0.1, 0.55, 0.35, 0.8])
    measure("surface: move alpha (refit 12 trees)",
            lambda: setattr(surface.alpha, "value", next(moves)),
            surface.figure.get_size_inches(), args.pairs)
    diversity = widgets.DiversityExplorer(result)
    names = list(result.dataset.values)
    names = itertools.cycle(names[1:] + names[:1])  # each pick a change
    measure("diversity: pick a data set", lambda: setattr(diversity.dataset, "value",
                                                         next(names)),
            diversity.figure.get_size_inches(), args.pairs)


if __name__ == "__main__":
    main()
