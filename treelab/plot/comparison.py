"""Critical-difference diagrams (Demsar 2006, figures 1 and 2) from rank tests, pairwise
Wilcoxon-Holm tests over data sets or any p-value matrix."""

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


#: stats functions whose result the diagram draws, and how it joins the methods
_KINDS = {
    "treelab.stats.nemenyi": "nemenyi",
    "treelab.stats.bonferroni_dunn": "dunn",
    "treelab.stats.pairwise_over_datasets": "pairwise",
    "treelab.stats.pairwise_p_values": "pairwise",
    "treelab.stats.holm_control": "control",
}
#: tests a raw result is compared with
RAW_TESTS = ("wilcoxon", "sign", "nemenyi")


def _as_test_result(result: Any, test: str, var: str) -> xr.Dataset:
    """A stats result as given, or the chosen test of a raw (dataset x method) result."""
    from treelab import stats

    if isinstance(result, xr.Dataset) and str(result.attrs.get("function", "")) in _KINDS:
        return result
    if isinstance(result, xr.Dataset) and str(result.attrs.get("function", "")).startswith(
            "treelab.stats."):
        raise ValueError("result must be a treelab.stats nemenyi, bonferroni_dunn, "
                         "pairwise_over_datasets, pairwise_p_values or holm_control result "
                         f"(got function={result.attrs['function']!r}); friedman() has no "
                         "critical difference")
    if not isinstance(result, xr.Dataset | xr.DataArray):
        raise TypeError(f"result must be an xarray Dataset or DataArray, got "
                        f"{type(result).__name__}")
    if test not in RAW_TESTS:
        raise ValueError(f"test must be one of {RAW_TESTS}, got {test!r}")
    if test == "nemenyi":
        return stats.nemenyi(result, var=var)
    return stats.pairwise_over_datasets(result, test=test, var=var)


@share_docs
def critical_difference(
    result: xr.Dataset | xr.DataArray,
    *,
    test: str = "wilcoxon",
    var: str = "ensemble_error",
    best_on_right: bool = True,
    ax: Any = None,
) -> Any:
    """Critical-difference diagram: average ranks, with the methods that do not differ joined.

    The top line is the axis of average ranks (by default turned so that the best, lowest
    ranks are on the right, as in Demsar 2006). Each method hangs from its average rank to
    its name. Thick bars join the groups (cliques) of methods no two of which differ
    significantly:

    * by default, given a raw result (an experiment result, or any values over ``dataset``
      and ``ensemble``), the pairs are tested with the Wilcoxon signed-rank test over the
      data sets and Holm's correction (:func:`treelab.stats.pairwise_over_datasets`), whose
      decisions do not depend on the other methods in the pool (Benavoli, Corani & Mangili
      2016); ``test="sign"`` uses the sign test, ``test="nemenyi"`` Nemenyi's test;
    * a :func:`treelab.stats.nemenyi` result is drawn with its critical difference CD (a bar
      above the axis) and the cliques of ranks closer than CD;
    * a :func:`treelab.stats.pairwise_over_datasets` or :func:`treelab.stats.pairwise_p_values`
      result (any p-value matrix) is drawn with the cliques of its ``significant`` matrix;
    * a :func:`treelab.stats.bonferroni_dunn` result gets a bar of one CD either side of the
      control; a :func:`treelab.stats.holm_control` result a bar from the control over the
      methods it does not differ from (those it differs from are named in italics).

    Parameters
    ----------
    result : xarray.Dataset or DataArray
        A result of one of the tests above, or raw values to test.
    test : {"wilcoxon", "sign", "nemenyi"}, default "wilcoxon"
        The test of a raw result (ignored for a test's result).
    var : str, default "ensemble_error"
        The variable of a raw Dataset.
    best_on_right : bool, default True
        Put rank 1 on the right.
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    if not isinstance(best_on_right, bool):
        raise TypeError(f"best_on_right must be True or False, got {best_on_right!r}")
    result = _as_test_result(result, test, var)
    kind = _KINDS[str(result.attrs["function"])]
    avg = result["average_rank"]
    dim = avg.dims[0]
    names = [str(v) for v in avg[dim].values]
    ranks = np.asarray(avg.values, dtype=np.float64)
    has_cd = kind in ("nemenyi", "dunn")
    cd = float(result["critical_difference"]) if has_cd else np.nan
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
    if has_cd:  # the CD bar above the axis, starting at the worst end
        start = hi if best_on_right else lo
        end = start - cd if best_on_right else start + cd
        ax.plot([start, end], [0.75, 0.75], color="k", linewidth=1.2, label="CD")
        ax.text((start + end) / 2, 0.85, f"CD = {cd:.2f}", ha="center", va="bottom",
                fontsize="small")
    else:
        ax.text((lo + hi) / 2, 0.6, str(result.attrs.get("test", "")), ha="center",
                va="bottom", fontsize="x-small", wrap=True, gid="test-name")
    differs = set()
    if kind == "control":
        sig = np.asarray(result["significant"].values, dtype=bool)
        differs = {names[i] for i in range(k) if sig[i]}

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
                fontsize="small", gid=f"method:{names[i]}",
                style="italic" if names[i] in differs else "normal")
    # groups
    sorted_ranks = ranks[order]
    if kind in ("nemenyi", "pairwise"):
        if kind == "nemenyi":
            groups = cliques(sorted_ranks, cd)
        else:
            from treelab.stats import significance_cliques

            sig = result["significant"].transpose(dim, ...).values
            groups = significance_cliques(ranks, sig)
        for n_bar, (a, b) in enumerate(groups):
            y = -0.15 - 0.12 * n_bar
            ax.plot([sorted_ranks[a] - 0.03, sorted_ranks[b] + 0.03], [y, y], color="k",
                    linewidth=3.0, solid_capstyle="butt", gid="clique")
    elif kind == "dunn":
        control = str(result.attrs.get("control", ""))
        c = names.index(control) if control in names else int(order[0])
        a, b = max(lo, ranks[c] - cd), min(hi, ranks[c] + cd)
        ax.plot([a, b], [-0.15, -0.15], color="k", linewidth=3.0, solid_capstyle="butt",
                gid="control-interval")
    else:
        control = str(result.attrs.get("control", ""))
        c = names.index(control)
        same = [ranks[i] for i in range(k) if names[i] not in differs]
        ax.plot([min(same) - 0.03, max(same) + 0.03], [-0.15, -0.15], color="k",
                linewidth=3.0, solid_capstyle="butt", gid="control-interval")
        ax.plot([ranks[c]], [-0.15], marker="o", color="k", markersize=4)
    bottom = -(max(half, k - half) + 1) * step - 0.3
    ax.set_ylim(bottom, 1.2)
    ax.set_axis_off()
    return ax
