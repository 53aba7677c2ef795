"""Error ratio against error correlation and against gain ties (Ali & Pazzani 1995)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab.plot._common import (
    RESAMPLING,
    axis_label,
    check_result,
    finished_cells,
    get_ax,
    interval_title,
    only_whole,
    palette_for,
    place_legend,
)
from treelab.plot._docstrings import share_docs

__all__ = ["error_ratio_vs_gain_ties", "error_ratio_vs_phi", "scatter_points"]


def scatter_points(result: xr.Dataset, x: str, y: str, hue: str | None) -> dict[Any, tuple]:
    """The plotted points: (x, y) means over repeats and folds, grouped by ``hue``.

    Every other coordinate (data set, ensemble, alpha, ...) is one point; points where x or y
    is NaN are left out. Returns {hue value (or None): (x array, y array, labels)}.
    """
    pair = result[[x, y]]
    dims = [d for d in RESAMPLING if d in pair.dims]
    if dims:
        # a point one of whose cells failed is left out, as a NaN point is (only_whole)
        done = finished_cells(result)
        pair = pair.mean(dims).map(lambda v: only_whole(v, done, dims))
    groups = [None] if hue is None else list(pair[hue].values)
    out = {}
    for g in groups:
        part = pair if g is None else pair.sel({hue: g})
        frame = part.to_dataframe()[[x, y]]
        frame = frame[np.isfinite(frame[x]) & np.isfinite(frame[y])]
        labels = [" / ".join(map(str, i if isinstance(i, tuple) else (i,)))
                  for i in frame.index] if len(frame) else []
        out[g] = (frame[x].to_numpy(), frame[y].to_numpy(), labels)
    return out


def interval_errors(ds: xr.Dataset, x: str, y: str, hue: str | None,
                    points: dict) -> dict[Any, tuple]:
    """(xerr, yerr) per group from ``<x>_lower/upper`` and ``<y>_lower/upper``
    (:func:`treelab.analysis.diagnose` with ``ci``), aligned with ``points``; a variable
    without intervals gets no bar, and a result with resamples gets none (those intervals
    are of one test set each)."""
    if any(d in ds.dims for d in RESAMPLING):
        return {}
    bounds = {v: (f"{v}_lower", f"{v}_upper") for v in (x, y)
              if f"{v}_lower" in ds and f"{v}_upper" in ds}
    if not bounds:
        return {}
    out = {}
    for g in points:
        part = ds if g is None else ds.sel({hue: g})
        frame = part[[x, y, *[b for pair in bounds.values() for b in pair]]].to_dataframe()
        frame = frame[np.isfinite(frame[x]) & np.isfinite(frame[y])]
        errs = []
        for v in (x, y):
            if v not in bounds:
                errs.append(None)
                continue
            lo, hi = frame[bounds[v][0]].to_numpy(), frame[bounds[v][1]].to_numpy()
            mid = frame[v].to_numpy()
            errs.append(np.nan_to_num(np.abs(np.stack([mid - lo, hi - mid]))))
        out[g] = tuple(errs)
    return out


def _scatter_fit(result: Any, x: str, y: str, hue: str | None, fit: Any, palette: Any,
                 ax: Any, annotate: bool) -> Any:
    ds = check_result(result, "result", [x, y])
    if hue is not None and hue not in ds.dims:
        raise ValueError(f"hue={hue!r} is not a dim of result ({tuple(ds.dims)})")
    if fit not in (True, False, "hue"):
        raise ValueError(f"fit must be True, False or 'hue', got {fit!r}")
    if fit == "hue" and hue is None:
        raise ValueError("fit='hue' needs a hue dim")
    points = scatter_points(ds, x, y, hue)
    colours = palette_for(list(points), palette)
    ax = get_ax(ax)
    markers = {}
    bars = interval_errors(ds, x, y, hue, points)
    title = None
    if bars:  # the legend says what the bars are
        title = interval_title(ds[f"{y}_lower"] if f"{y}_lower" in ds else ds[f"{x}_lower"])
    for g, (xerr, yerr) in bars.items():
        # bootstrap intervals of diagnose(ci=...), where the result has them
        ax.errorbar(points[g][0], points[g][1], xerr=xerr, yerr=yerr, fmt="none",
                    ecolor=colours[g], elinewidth=0.7, alpha=0.7, zorder=2,
                    gid=f"interval:{g}")
    for g, (xs, ys, _) in points.items():
        markers[g] = ax.scatter(xs, ys, s=28, color=colours[g], edgecolors="white",
                                linewidths=0.5, label=None if g is None else str(g), zorder=3)
    entries = []  # with one line per group: one legend entry (marker on line) per group
    if fit:
        from treelab.stats import fit_error_ratio

        groups = list(points) if fit == "hue" else [None]
        for g in groups:
            if fit == "hue":
                xs, ys = points[g][0], points[g][1]
            else:
                xs = np.concatenate([p[0] for p in points.values()])
                ys = np.concatenate([p[1] for p in points.values()])
            res = fit_error_ratio(xs, ys)
            line_x = np.linspace(xs.min(), xs.max(), 50)
            line_y = float(res.intercept) + float(res.slope) * line_x
            colour = "0.2" if fit is True else colours[g]
            label = f"OLS, $r^2$ = {float(res.r_squared):.2f}"
            if fit == "hue":
                label = f"{g}: {label}"
            (line,) = ax.plot(line_x, line_y, "-", color=colour, linewidth=1.2, label=label,
                              zorder=2)
            if fit == "hue":
                entries.append(((markers[g], line), label))
            if annotate and fit is True:
                # the fitted variable by its own name: E_r only where y is the error ratio
                lhs = "$E_r$" if y == "error_ratio" else y
                slope = float(res.slope)
                ax.text(0.98, 0.04, f"{lhs} = {float(res.intercept):.2f} "
                        f"{'-' if slope < 0 else '+'} {abs(slope):.2f} x, n = {int(res.n)}",
                        transform=ax.transAxes, ha="right", va="bottom", fontsize="small",
                        gid="fit-equation")
    ax.set_xlabel(axis_label(x, ds[x]))
    ax.set_ylabel(axis_label(y, ds[y]))
    if entries:
        place_legend(ax, handles=[h for h, _ in entries], labels=[t for _, t in entries],
                     title=title)
    elif hue is not None or fit:
        place_legend(ax, title=title)
    return ax


@share_docs
def error_ratio_vs_phi(
    result: xr.Dataset,
    *,
    x: str = "phi_e",
    y: str = "error_ratio",
    hue: str | None = "ensemble",
    fit: bool | str = True,
    annotate: bool = True,
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """Error ratio E_r against error correlation phi_e, with the OLS line and r^2.

    One point per data set (and per other coordinate: ensemble, alpha, ...), at the means over
    repeats and folds; Ali & Pazzani (1995, section 5.1) report the r^2 of such fits and their
    95%% intervals for the four combination functions
    (``treelab.reproduce.paper_table("alipazzani1995_figure1")``; treelab's beside them in
    docs/reproductions/alipazzani1995.md).
    The line is :func:`treelab.stats.fit_error_ratio` of the plotted points.

    Parameters
    ----------
    %(result)s
    x, y : str, default "phi_e", "error_ratio"
        Variables on the axes.
    hue : str or None, default "ensemble"
        Dim whose coordinates colour the points (ignored if None; must be a dim otherwise).
    fit : bool or "hue", default True
        Draw one OLS line over all points, one per hue group ("hue"), or none.
    annotate : bool, default True
        Write the fitted line (intercept, slope, number of points) in the corner, with
        ``fit=True``; r^2 is in the legend.
    %(palette)s
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    if hue is not None and hue not in getattr(result, "dims", ()):
        hue = None if hue == "ensemble" else hue
    return _scatter_fit(result, x, y, hue, fit, palette, ax, annotate)


@share_docs
def error_ratio_vs_gain_ties(
    result: xr.Dataset,
    *,
    x: str = "mean_g",
    y: str = "error_ratio",
    hue: str | None = "ensemble",
    fit: bool | str = True,
    annotate: bool = True,
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """Error ratio E_r against gain ties per decision node g (Ali & Pazzani 1995, section 5.2).

    Where many tests tie for the best gain, a stochastic learner has many equally good
    choices, its trees differ more, and the ensemble's error falls further below the single
    tree's. Points and line as in :func:`error_ratio_vs_phi`.

    Parameters
    ----------
    %(result)s
    x, y : str, default "mean_g", "error_ratio"
        Variables on the axes (``pooled_g`` is the pooled alternative to ``mean_g``).
    hue : str or None, default "ensemble"
        Dim whose coordinates colour the points.
    fit : bool or "hue", default True
        Draw one OLS line over all points, one per hue group ("hue"), or none.
    annotate : bool, default True
        Write the fitted line (intercept, slope, number of points) in the corner, with
        ``fit=True``; r^2 is in the legend.
    %(palette)s
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    if hue is not None and hue not in getattr(result, "dims", ()):
        hue = None if hue == "ensemble" else hue
    return _scatter_fit(result, x, y, hue, fit, palette, ax, annotate)
