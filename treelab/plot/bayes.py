"""Posterior plots of the Bayesian comparisons (Benavoli, Corani, Demsar & Zaffalon 2017).

* :func:`posterior_simplex`: the draws of the signed-rank test's (a better, rope, b better)
  probabilities in the probability simplex, a triangle split into the three regions where
  each is the most probable (their shares are the reported posterior probabilities);
* :func:`posterior_t`: the Student posterior density of the mean difference of the
  correlated t test, with the rope shaded.

Both are made at a journal's single-column width (:data:`treelab.plot.export.WIDTHS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.stats
import xarray as xr

from treelab.plot._common import get_ax, place_legend
from treelab.plot._docstrings import share_docs
from treelab.plot.export import WIDTHS

__all__ = ["posterior_simplex", "posterior_t", "simplex_xy"]

_SQRT3_2 = float(np.sqrt(3.0) / 2.0)


def simplex_xy(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Barycentric (a better, rope, b better) -> (x, y) in the triangle with vertices a better
    at (0, 0), b better at (1, 0) and rope at (0.5, sqrt(3)/2)."""
    p = np.asarray(p, dtype=np.float64)
    return p[..., 2] + 0.5 * p[..., 1], _SQRT3_2 * p[..., 1]


def _check_function(result: Any, function: str) -> None:
    if not isinstance(result, xr.Dataset):
        raise TypeError(f"result must be an xarray.Dataset, got {type(result).__name__}")
    got = str(result.attrs.get("function", ""))
    if got != f"treelab.stats.{function}":
        raise ValueError(f"result must be a treelab.stats.{function} result, got "
                         f"function={got!r}")


def _names(result: xr.Dataset) -> tuple[str, str]:
    import json

    params = json.loads(result.attrs.get("params", "{}"))
    return str(params.get("a", "a")), str(params.get("b", "b"))


@share_docs
def posterior_simplex(result: xr.Dataset, *, max_points: int = 20_000, ax: Any = None) -> Any:
    """The signed-rank test's posterior in the probability simplex.

    Every draw (theta_a, theta_rope, theta_b) of :func:`treelab.stats.bayesian_signed_rank`
    is a point of the triangle; the lines from the centre to the edges' midpoints split it into
    the regions where each of the three is the largest, and the share of points in a region is
    the posterior probability printed at its vertex (Benavoli et al. 2017, figure 6).

    Parameters
    ----------
    result : xarray.Dataset
        A :func:`treelab.stats.bayesian_signed_rank` result.
    max_points : int, default 20000
        At most this many draws are drawn (the first ones), to keep vector files small.
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    _check_function(result, "bayesian_signed_rank")
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 1:
        raise ValueError(f"max_points must be a positive int, got {max_points!r}")
    width = WIDTHS["single"]
    ax = get_ax(ax, figsize=(width, width * 0.9))
    samples = np.asarray(result["samples"].transpose("draw", "region").values)[:max_points]
    x, y = simplex_xy(samples)
    ax.scatter(x, y, s=2, alpha=0.15, color="C0", linewidths=0, rasterized=True,
               gid="posterior-draws")
    ax.plot([0, 1, 0.5, 0], [0, 0, _SQRT3_2, 0], color="k", linewidth=0.9)
    cx, cy = simplex_xy(np.array([1 / 3, 1 / 3, 1 / 3]))
    for mid in ([0.5, 0.0, 0.5], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]):
        mx, my = simplex_xy(np.array(mid))
        ax.plot([cx, mx], [cy, my], color="0.4", linewidth=0.7, linestyle="--")
    a, b = _names(result)
    pa, pr, pb = (float(result[v]) for v in ("p_a_better", "p_rope", "p_b_better"))
    ax.text(0.0, -0.04, f"{a} better\np = {pa:.3f}", ha="center", va="top", fontsize="small")
    ax.text(1.0, -0.04, f"{b} better\np = {pb:.3f}", ha="center", va="top", fontsize="small")
    ax.text(0.5, _SQRT3_2 + 0.03, f"rope\np = {pr:.3f}", ha="center", va="bottom",
            fontsize="small")
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.22, _SQRT3_2 + 0.2)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return ax


@share_docs
def posterior_t(result: xr.Dataset, *, at: dict | None = None, ax: Any = None) -> Any:
    """The correlated t test's posterior density of the mean difference, rope shaded.

    Draws the Student density t(df, mean_difference, scale) of
    :func:`treelab.stats.bayesian_correlated_t` over its 0.1%%-99.9%% range (widened to show the
    rope), shades the rope [-rope, rope] and fills the mass on either side in the colour of
    the method it favours; the legend gives the three posterior probabilities.

    Parameters
    ----------
    result : xarray.Dataset
        A :func:`treelab.stats.bayesian_correlated_t` result.
    at : dict, optional
        The coordinate to draw when the result holds several tests (e.g.
        ``{"dataset": "iris"}``).
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    import json

    _check_function(result, "bayesian_correlated_t")
    one = result
    if at is not None:
        if not isinstance(at, dict):
            raise TypeError(f"at must be a dict of dim -> coordinate, got {type(at).__name__}")
        one = result.sel(at)
    if one["mean_difference"].ndim != 0:
        raise ValueError(f"result holds several tests (dims {one['mean_difference'].dims}); "
                         "choose one with at={dim: coordinate}")
    params = json.loads(result.attrs.get("params", "{}"))
    rope = float(params.get("rope", 0.0))
    mean, scale, df = float(one["mean_difference"]), float(one["scale"]), float(one["df"])
    a, b = _names(result)
    greater = bool(params.get("greater_is_better", False))
    width = WIDTHS["single"]
    ax = get_ax(ax, figsize=(width, width * 0.68))
    if scale > 0:
        lo, hi = scipy.stats.t.ppf([0.001, 0.999], df, mean, scale)
    else:
        lo, hi = mean - rope - 1e-3, mean + rope + 1e-3
    span = max(hi, 1.1 * rope) - min(lo, -1.1 * rope)
    xs = np.linspace(min(lo, -1.1 * rope) - 0.02 * span, max(hi, 1.1 * rope) + 0.02 * span, 400)
    ys = scipy.stats.t.pdf(xs, df, mean, scale) if scale > 0 else np.zeros_like(xs)
    left_name, right_name = (b, a) if greater else (a, b)
    p_left = float(one["p_b_better" if greater else "p_a_better"])
    p_right = float(one["p_a_better" if greater else "p_b_better"])
    ax.fill_between(xs, ys, where=xs < -rope, color="C0", alpha=0.35, linewidth=0,
                    label=f"{left_name} better: {p_left:.3f}")
    ax.fill_between(xs, ys, where=(xs >= -rope) & (xs <= rope), color="0.6", alpha=0.5,
                    linewidth=0, label=f"rope: {float(one['p_rope']):.3f}")
    ax.fill_between(xs, ys, where=xs > rope, color="C1", alpha=0.35, linewidth=0,
                    label=f"{right_name} better: {p_right:.3f}")
    ax.plot(xs, ys, color="k", linewidth=1.0)
    if scale == 0:
        ax.axvline(mean, color="k", linewidth=1.0)
    for edge in (-rope, rope):
        ax.axvline(edge, color="0.3", linewidth=0.8, linestyle="--")
    ax.set_xlabel(f"{a} - {b} (mean difference)")
    ax.set_ylabel("posterior density")
    place_legend(ax, below=True, fontsize="x-small")  # under the axes: never over the density
    return ax
