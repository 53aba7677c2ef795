"""Trajectories in the strength-correlation plane over contours of Breiman's bound."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.plot._common import (
    RESAMPLING,
    axis_label,
    check_result,
    finished_cells,
    finite_alpha,
    get_ax,
    interval_title,
    mean_spread,
    palette_for,
    pick_dataset,
    pick_ensembles,
    place_legend,
)
from treelab.plot._docstrings import share_docs

__all__ = ["auto_levels", "breiman_bound", "label_contours", "strength_correlation"]


def breiman_bound(strength: Any, correlation: Any) -> np.ndarray:
    """Breiman's (2001) upper bound rho (1 - s^2) / s^2 on the generalisation error.

    NaN where s <= 0 (the bound is defined for positive strength only).
    """
    s = np.asarray(strength, dtype=np.float64)
    rho = np.asarray(correlation, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, rho * (1.0 - s * s) / (s * s), np.nan)


def auto_levels(bounds: np.ndarray, n: int = 6) -> np.ndarray:
    """About ``n`` round contour levels spread evenly (log scale) over the finite, positive
    ``bounds`` (one significant digit: 0.05, 0.1, 0.2, 0.5, ...)."""
    b = np.asarray(bounds, dtype=np.float64)
    b = b[np.isfinite(b) & (b > 0)]
    if b.size == 0:
        return np.array([0.05, 0.1, 0.2, 0.4, 0.8])
    lo, hi = float(b.min()), float(b.max())
    if hi <= lo * 1.5:
        lo, hi = lo / 2.0, hi * 2.0
    raw = np.geomspace(lo, hi, n)
    digits = np.floor(np.log10(raw))
    rounded = np.round(raw / 10.0**digits) * 10.0**digits
    return np.unique(rounded)


def label_contours(ax: Any, contours: Any, bounds: Sequence[float], inset: float = 0.12
                   ) -> list:
    """Label each contour line once, well inside the axes, and the labels apart.

    matplotlib's automatic placement may put a label at the very edge (cut) or two labels on
    top of each other where the lines crowd (low strength, low correlation). Here each level's
    label sits where its line leaves an inner box (``inset``, a fraction of ``bounds``, the
    drawn (xmin, xmax, ymin, ymax), from every edge) towards the upper right, where the lines
    of Breiman's bound are furthest apart, and no closer to another label than a label's
    size; a level without such a spot is left unlabelled.
    """
    x0, x1, y0, y1 = (float(b) for b in bounds)
    xs = contours.allsegs
    # a label's size as a fraction of the axes (a layout engine shrinks the axes later, and
    # export scales fonts with the width: 1.6 covers both)
    from matplotlib.font_manager import FontProperties

    points = FontProperties(size="x-small").get_size_in_points()
    fig_w, fig_h = ax.figure.get_size_inches()
    box = ax.get_position()
    sep_x = 1.6 * 4 * 0.6 * points / 72 / max(box.width * fig_w, 0.5)
    sep_y = 1.6 * 1.3 * points / 72 / max(box.height * fig_h, 0.5)
    spots: list[tuple[float, tuple[float, float]]] = []
    placed: list[tuple[float, float]] = []
    for level, segs in zip(contours.levels, xs, strict=False):
        line = np.vstack([seg for seg in segs if len(seg)]) if any(len(g) for g in segs) \
            else np.empty((0, 2))
        if not len(line):
            continue
        fx = (line[:, 0] - x0) / (x1 - x0)
        fy = (line[:, 1] - y0) / (y1 - y0)
        inner = (fx > inset) & (fx < 1 - inset) & (fy > inset) & (fy < 1 - inset)
        if not inner.any():
            continue  # a line that only grazes the corner stays unlabelled rather than cut
        # the upper-right-most point of the line that keeps clear of the labels placed so far
        # (a label is about 0.15 x 0.1 of a small panel); a level with no such point stays
        # unlabelled rather than overprinted
        for k in np.argsort(-(fx + fy), kind="stable"):
            if not inner[k]:
                continue
            if all(abs(fx[k] - ax_) > sep_x or abs(fy[k] - ay_) > sep_y for ax_, ay_ in placed):
                placed.append((fx[k], fy[k]))
                spots.append((float(level), tuple(line[k])))
                break
    labels = []
    for level, spot in spots:  # one level a call: a manual spot labels the nearest line
        labels += ax.clabel(contours, [level], fmt="%g", fontsize="x-small", manual=[spot],
                            inline=False)
    for text in labels:  # level, on a white patch over its line, under the data
        text.set_rotation(0)
        text.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 0.6})
        text.set_zorder(1.5)
    return labels


def trajectories(ds: xr.Dataset, ensembles: list) -> dict[Any, dict[str, np.ndarray]]:
    """Mean strength and correlation per ensemble at every alpha with data, by alpha."""
    done = finished_cells(ds)
    s_mean = mean_spread(ds["strength"], "none", finished=done)[0]
    r_mean = mean_spread(ds["correlation"], "none", finished=done)[0]
    alphas = np.asarray(ds[_dims.ALPHA].values, dtype=np.float64)
    out = {}
    for name in ensembles:
        s = np.asarray(s_mean.sel({_dims.ENSEMBLE: name}).values, dtype=np.float64)
        r = np.asarray(r_mean.sel({_dims.ENSEMBLE: name}).values, dtype=np.float64)
        ok = np.isfinite(s) & np.isfinite(r)
        order = np.argsort(np.where(np.isnan(alphas), np.inf, alphas)[ok], kind="stable")
        out[name] = {"alpha": alphas[ok][order], "strength": s[ok][order],
                     "correlation": r[ok][order]}
    return out


def interval_bars(ds: xr.Dataset, ensembles: list, paths: dict) -> dict[Any, tuple]:
    """(xerr, yerr) per ensemble from ``strength_lower/upper`` and ``correlation_lower/upper``
    (:func:`treelab.analysis.diagnose` with ``ci``), aligned with ``paths``; empty when the
    result has no intervals or holds resamples (an interval of one test set each)."""
    need = [f"{v}_{side}" for v in ("strength", "correlation") for side in ("lower", "upper")]
    if any(v not in ds for v in need) or any(d in ds.dims for d in RESAMPLING):
        return {}
    lower = trajectories(ds.assign(strength=ds.strength_lower,
                                   correlation=ds.correlation_lower), ensembles)
    upper = trajectories(ds.assign(strength=ds.strength_upper,
                                   correlation=ds.correlation_upper), ensembles)
    out = {}
    for name in ensembles:
        lo, hi, mid = lower[name], upper[name], paths[name]
        if not (lo["alpha"].size == hi["alpha"].size == mid["alpha"].size):
            continue  # an interval undefined where the estimate is: no bar for this ensemble
        out[name] = tuple(np.nan_to_num(np.abs(np.stack([mid[v] - lo[v], hi[v] - mid[v]])))
                          for v in ("strength", "correlation"))
    return out


@share_docs
def strength_correlation(
    result: xr.Dataset,
    *,
    dataset: str | None = None,
    ensembles: Sequence[str] | None = None,
    levels: Sequence[float] | None = None,
    mark_alpha: float | None = 0.5,
    cmap: str = "viridis",
    colorbar: bool = True,
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """Strength-correlation trajectories as alpha moves from 0 to 1 (Liu et al. 2008, Fig. 5).

    Each ensemble is a line through its (mean strength s, mean correlation rho) at every
    alpha, in alpha order, with the points coloured by alpha; the point at ``mark_alpha``
    (0.5 by default) is ringed. Grey contour lines show Breiman's (2001) upper bound on the
    generalisation error, rho (1 - s^2) / s^2, so a trajectory crossing to lower contours is an
    ensemble whose bound improves. Ensembles without alpha are single diamonds.

    Parameters
    ----------
    %(result)s
        Needs the variables ``strength`` and ``correlation``.
    %(dataset)s
    %(ensembles)s
    levels : sequence of float, optional
        Bound values drawn as contour lines (default: six round values spanning the bound
        at the drawn points, spaced evenly on a log scale).
    mark_alpha : float or None, default 0.5
        Ring the point at this alpha (None: no ring).
    cmap : str, default "viridis"
        Colour map of alpha (0 to 1).
    colorbar : bool, default True
        Add a colour bar for alpha.
    %(palette)s
    %(ax)s

    Returns
    -------
    %(returns_ax)s

    Notes
    -----
    Results of :func:`treelab.analysis.diagnose` with ``ci`` (stacked by
    :func:`treelab.plot.stack_results`) carry bootstrap intervals of strength and correlation:
    they are drawn as error bars on every point.
    """
    ds = check_result(result, "result", ["strength", "correlation"],
                      [_dims.ENSEMBLE, _dims.ALPHA])
    if levels is not None:
        levels = np.asarray(levels, dtype=np.float64)
        if levels.ndim != 1 or levels.size == 0 or np.any(np.diff(levels) <= 0) \
                or np.any(levels <= 0):
            raise ValueError(f"levels must be increasing positive numbers, got "
                             f"{levels.tolist()}")
    if not isinstance(colorbar, bool):
        raise TypeError(f"colorbar must be True or False, got {colorbar!r}")
    names = pick_ensembles(ds, ensembles, "result")
    one = pick_dataset(ds, dataset, "result")
    colours = palette_for(names, palette)
    ax = get_ax(ax)
    paths = trajectories(one, names)
    all_s = np.concatenate([p["strength"] for p in paths.values()] + [np.array([])])
    all_r = np.concatenate([p["correlation"] for p in paths.values()] + [np.array([])])
    s_lo = max(0.02, float(np.nanmin(all_s)) - 0.08) if all_s.size else 0.05
    s_hi = min(1.0, float(np.nanmax(all_s)) + 0.08) if all_s.size else 1.0
    r_hi = max(0.05, float(np.nanmax(all_r)) * 1.25) if all_r.size else 1.0
    s_grid, r_grid = np.meshgrid(np.linspace(s_lo, s_hi, 120), np.linspace(0.0, r_hi, 120))
    if levels is None:
        levels = auto_levels(breiman_bound(all_s, all_r))
    contours = ax.contour(s_grid, r_grid, breiman_bound(s_grid, r_grid), levels=levels,
                          colors="0.65", linewidths=0.8, zorder=1)
    label_contours(ax, contours, (s_lo, s_hi, 0.0, r_hi))
    import matplotlib as mpl
    from matplotlib.lines import Line2D

    norm = mpl.colors.Normalize(vmin=0.0, vmax=1.0)
    ringed = False
    bars = interval_bars(one, names, paths)
    for name, (xerr, yerr) in bars.items():
        # the bootstrap intervals of diagnose(ci=...) where the result has them
        ax.errorbar(paths[name]["strength"], paths[name]["correlation"], xerr=xerr, yerr=yerr,
                    fmt="none", ecolor=colours[name], elinewidth=0.7, alpha=0.7, zorder=2,
                    gid=f"interval:{name}")
    for name, path in paths.items():
        finite = finite_alpha(path["alpha"])
        if finite.any():
            ax.plot(path["strength"][finite], path["correlation"][finite], "-",
                    color=colours[name], linewidth=1.4, label=str(name), zorder=2)
            ax.scatter(path["strength"][finite], path["correlation"][finite],
                       c=path["alpha"][finite], cmap=cmap, norm=norm, s=22, zorder=3,
                       edgecolors=[colours[name]], linewidths=0.8, gid=f"alpha:{name}")
            if mark_alpha is not None:
                hit = np.isclose(path["alpha"], float(mark_alpha))
                if hit.any():
                    ringed = True
                    ax.scatter(path["strength"][hit], path["correlation"][hit], s=110,
                               facecolors="none", edgecolors="k", linewidths=1.2, zorder=4,
                               gid=f"mark:{name}")
        elif path["alpha"].size:
            # white with the ensemble's colour as a thick edge: no colour of the alpha scale
            ax.scatter(path["strength"][:1], path["correlation"][:1], marker="D", s=46,
                       facecolors="white", edgecolors=[colours[name]], linewidths=1.8,
                       label=f"{name} (no alpha)", zorder=3, gid=f"fixed:{name}")
    # the legend says what the rings and the grey lines are
    handles, labels = ax.get_legend_handles_labels()
    if ringed:
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=9,
                              markerfacecolor="none", markeredgecolor="k"))
        labels.append(rf"$\alpha$ = {float(mark_alpha):g}")
    handles.append(Line2D([], [], color="0.65", linewidth=0.8))
    labels.append("Breiman bound\n" + r"$\bar\rho(1-s^2)/s^2$")
    if colorbar:
        mappable = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
        ax.figure.colorbar(mappable, ax=ax, label=r"point colour: $\alpha$", location="top",
                           fraction=0.05, pad=0.03, aspect=30, ticks=[0.0, 0.5, 1.0])
    ax.set_xlim(s_lo, s_hi)
    ax.set_ylim(0.0, r_hi)
    ax.set_xlabel(axis_label("strength"))
    ax.set_ylabel(axis_label("correlation"))
    place_legend(ax, handles=handles, labels=labels,
                 title=interval_title(one["strength_lower"]) if bars else None)
    return ax
