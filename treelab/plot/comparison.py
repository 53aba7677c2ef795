"""Critical-difference diagrams of rank tests (Demsar 2006, figures 1 and 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab.plot._common import get_ax
from treelab.plot._docstrings import share_docs

__all__ = ["cliques", "critical_difference"]


def cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs of methods (in rank order) whose ranks differ by less than ``cd``.

    ``ranks`` must be sorted ascending; returns (first, last) index pairs of runs of at least
    two methods, none contained in another. These are the groups Demsar's diagram joins with a
    thick line: no pair inside a group differs significantly.
    """
    runs: list[tuple[int, int]] = []
    n = len(ranks)
    for i in range(n):
        j = i
        while j + 1 < n and ranks[j + 1] - ranks[i] < cd - 1e-12:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


@share_docs
def critical_difference(
    result: xr.Dataset,
    *,
    best_on_right: bool = True,
    ax: Any = None,
) -> Any:
    """Critical-difference diagram of a Nemenyi or Bonferroni-Dunn result.

    The top line is the axis of average ranks (by default turned so that the best, lowest
    ranks are on the right, as in Demsar 2006). Each method hangs from its average rank to
    its name. A bar above the axis shows the critical difference CD. For a Nemenyi result,
    thick lines join groups of methods that are not significantly different; for a
    Bonferroni-Dunn result, a thick line marks the interval of one CD either side of the
    control, outside which a method differs from it.

    Parameters
    ----------
    result : xarray.Dataset
        A :func:`treelab.stats.nemenyi` or :func:`treelab.stats.bonferroni_dunn` result.
    best_on_right : bool, default True
        Put rank 1 on the right.
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    if not isinstance(result, xr.Dataset):
        raise TypeError(f"result must be an xarray.Dataset, got {type(result).__name__}")
    function = str(result.attrs.get("function", ""))
    kinds = {"treelab.stats.nemenyi": "nemenyi", "treelab.stats.bonferroni_dunn": "dunn"}
    if function not in kinds or "critical_difference" not in result:
        raise ValueError("result must be a treelab.stats.nemenyi or bonferroni_dunn result "
                         f"(got function={function!r}); friedman() has no critical difference")
    if not isinstance(best_on_right, bool):
        raise TypeError(f"best_on_right must be True or False, got {best_on_right!r}")
    kind = kinds[function]
    avg = result["average_rank"]
    dim = avg.dims[0]
    names = [str(v) for v in avg[dim].values]
    ranks = np.asarray(avg.values, dtype=np.float64)
    cd = float(result["critical_difference"])
    k = len(ranks)
    order = np.argsort(ranks, kind="stable")
    ax = get_ax(ax, figsize=(6.0, 1.2 + 0.28 * k))

    lo, hi = 1.0, float(k)
    ax.set_xlim((hi + 0.05 * k, lo - 0.05 * k) if best_on_right else (lo - 0.05 * k,
                                                                        hi + 0.05 * k))
    # the rank axis at y = 0, ticks upwards, values above
    ax.plot([lo, hi], [0, 0], color="k", linewidth=1.0)
    for t in range(1, k + 1):
        ax.plot([t, t], [0, 0.12], color="k", linewidth=1.0)
        ax.text(t, 0.2, str(t), ha="center", va="bottom", fontsize="small")
    # the CD bar above the axis, starting at the worst end
    start = hi if best_on_right else lo
    end = start - cd if best_on_right else start + cd
    ax.plot([start, end], [0.75, 0.75], color="k", linewidth=1.2, label="CD")
    ax.text((start + end) / 2, 0.85, f"CD = {cd:.2f}", ha="center", va="bottom",
            fontsize="small")

    # methods: the better half to the right edge (or left), the rest to the other edge
    half = (k + 1) // 2
    step = 0.45
    right_x = ax.get_xlim()[1]
    left_x = ax.get_xlim()[0]
    for pos, i in enumerate(order):
        better = pos < half
        row = pos if better else k - 1 - pos
        y = -(row + 1) * step - 0.3
        edge = right_x if better else left_x
        ax.plot([ranks[i], ranks[i], edge], [0, y, y], color="k", linewidth=0.9)
        ha = "left" if (edge == right_x) else "right"
        ax.text(edge, y, f" {names[i]} ({ranks[i]:.2f}) ", ha=ha, va="center",
                fontsize="small", gid=f"method:{names[i]}")
    # groups
    sorted_ranks = ranks[order]
    if kind == "nemenyi":
        for n_bar, (a, b) in enumerate(cliques(sorted_ranks, cd)):
            y = -0.15 - 0.12 * n_bar
            ax.plot([sorted_ranks[a] - 0.03, sorted_ranks[b] + 0.03], [y, y], color="k",
                    linewidth=3.0, solid_capstyle="butt", gid="clique")
    else:
        control = str(result.attrs.get("control", ""))
        c = names.index(control) if control in names else int(order[0])
        a, b = max(lo, ranks[c] - cd), min(hi, ranks[c] + cd)
        ax.plot([a, b], [-0.15, -0.15], color="k", linewidth=3.0, solid_capstyle="butt",
                gid="control-interval")
    bottom = -(max(half, k - half) + 1) * step - 0.3
    ax.set_ylim(bottom, 1.2)
    ax.set_axis_off()
    return ax
