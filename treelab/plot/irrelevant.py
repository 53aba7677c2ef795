"""A measure against a swept dim, one line per ensemble: irrelevant attributes, training size,
noise level (Gashler et al. 2008, Fig. 3; Fan et al. 2005; Ali & Pazzani 1995)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.plot._common import (
    axis_label,
    band_title,
    check_choice,
    check_result,
    clip_range,
    finished_cells,
    get_ax,
    mean_spread,
    palette_for,
    pick_dataset,
    pick_ensembles,
    place_legend,
    value_ticks,
)
from treelab.plot._docstrings import share_docs

__all__ = ["irrelevant_attributes", "measure_curve"]


def _one_alpha(da: xr.DataArray, alpha: float | None) -> xr.DataArray:
    if _dims.ALPHA not in da.dims:
        return da
    from treelab.stats import select_alpha
    from treelab.stats._common import collapse_alpha

    if alpha is not None:
        return select_alpha(da, alpha)
    return collapse_alpha(da, _dims.ENSEMBLE)


@share_docs
def measure_curve(
    result: xr.Dataset,
    *,
    var: str,
    dim: str,
    hue: str = _dims.ENSEMBLE,
    dataset: str | None = None,
    ensembles: Sequence[str] | None = None,
    alpha: float | None = None,
    transform: str | None = None,
    xscale: str = "linear",
    spread: str = "sd",
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """A measure against any swept dim (training size, noise, ...), one line per ensemble.

    Each line is the mean over repeats and folds at every coordinate of ``dim``, with its
    spread as a band. The lines are the ensembles by default, or the coordinates of any other
    dim (``hue``).

    Parameters
    ----------
    %(result)s
    var : str
        Variable on the y axis.
    dim : str
        Dim on the x axis (e.g. ``"train_size"``, ``"noise"``, ``"n_irrelevant"``,
        ``"alpha"``).
    hue : str, default "ensemble"
        Dim with one line per coordinate.
    %(dataset)s
    ensembles : sequence of str, optional
        Coordinates of ``hue`` to draw, in this order (default: all).
    alpha : float, optional
        The alpha of swept ensembles to draw (see :func:`treelab.stats.select_alpha`); not
        needed when each ensemble has one alpha.
    transform : {"accuracy"}, optional
        Draw 1 - ``var`` (accuracy from an error rate).
    xscale : {"linear", "log", "symlog"}, default "linear"
        Scale of the x axis ("log" turns into "symlog" when 0 is among the coordinates).
    %(spread)s
    %(palette)s
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    ds = check_result(result, "result", [var], [dim, hue])
    check_choice(spread, "spread", ("sd", "range", "none"))
    check_choice(transform, "transform", (None, "accuracy"))
    check_choice(xscale, "xscale", ("linear", "log", "symlog"))
    if dim == hue:
        raise ValueError(f"dim and hue must be different dims, got {dim!r} twice")
    names = pick_ensembles(ds, ensembles, "result", dim=hue)
    # with the data sets as the lines, every one is drawn
    one = ds if hue == _dims.DATASET and dataset is None else pick_dataset(ds, dataset, "result")
    da = one[var] if _dims.ALPHA in (dim, hue) else _one_alpha(one[var], alpha)
    valid = clip_range(one[var])
    if transform == "accuracy":
        da = 1.0 - da
        valid = (1.0 - valid[1], 1.0 - valid[0])
    done = finished_cells(one)
    if done is not None and _dims.ALPHA not in (dim, hue):
        # the cells of the alpha da was read at
        done = finished_cells(xr.Dataset({"fit_time": _one_alpha(one["fit_time"], alpha)},
                                         attrs=one.attrs))
    mean, low, high = mean_spread(da, spread, valid, finished=done)
    extra = [d for d in mean.dims if d not in (dim, hue)]
    if any(mean.sizes[d] > 1 for d in extra):
        raise ValueError(f"result has dims {extra} besides {dim!r} and {hue!r}; select one "
                         "value of each first")
    mean, low, high = (x.isel({d: 0 for d in extra}) for x in (mean, low, high))
    counts = np.asarray(ds[dim].values, dtype=np.float64)
    order = np.argsort(counts)
    colours = palette_for(names, palette)
    ax = get_ax(ax)
    for name in names:
        m = np.asarray(mean.sel({hue: name}).transpose(dim).values)[order]
        lo = np.asarray(low.sel({hue: name}).transpose(dim).values)[order]
        hi = np.asarray(high.sel({hue: name}).transpose(dim).values)[order]
        ax.plot(counts[order], m, marker="o", markersize=3.5, color=colours[name],
                label=str(name))
        if spread != "none":
            ax.fill_between(counts[order], lo, hi, color=colours[name], alpha=0.18,
                            linewidth=0)
    if xscale == "log" and np.any(counts <= 0):
        xscale = "symlog"
    if xscale == "symlog":
        ax.set_xscale("symlog", linthresh=1.0)
    else:
        ax.set_xscale(xscale)
    if xscale != "linear":
        value_ticks(ax, counts)  # 0, 4, 16, 64 rather than 10^0, 10^1
    ax.set_xlabel(axis_label(dim))
    ax.set_ylabel("accuracy" if transform == "accuracy" else axis_label(var, ds[var]))
    place_legend(ax, title=band_title(da, spread))
    return ax


@share_docs
def irrelevant_attributes(
    result: xr.Dataset,
    *,
    var: str = "ensemble_error",
    accuracy: bool = True,
    dim: str = _dims.N_IRRELEVANT,
    dataset: str | None = None,
    ensembles: Sequence[str] | None = None,
    alpha: float | None = None,
    spread: str = "sd",
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """Accuracy against the number of added irrelevant attributes, one line per ensemble.

    The x axis is logarithmic (symmetric-log when 0 is among the counts, so the clean data
    stay on the plot); each line is the mean over repeats and folds with its spread as a band.
    Ensembles that choose tests at random lose accuracy quickly as irrelevant attributes are
    added; those that choose deterministically hold up (Gashler et al. 2008; Liu et al. 2008
    on concepts A and B).

    Parameters
    ----------
    %(result)s
        Needs the dim ``dim`` (an ``irrelevant`` transform of the experiment).
    var : str, default "ensemble_error"
        Variable drawn.
    accuracy : bool, default True
        Draw 1 - ``var`` (accuracy from an error rate).
    dim : str, default "n_irrelevant"
        Dim of the number of irrelevant attributes.
    %(dataset)s
    %(ensembles)s
    alpha : float, optional
        The alpha of swept ensembles to draw (see :func:`treelab.stats.select_alpha`); not
        needed when each ensemble has one alpha.
    %(spread)s
    %(palette)s
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    if not isinstance(accuracy, bool):
        raise TypeError(f"accuracy must be True or False, got {accuracy!r}")
    return measure_curve(result, var=var, dim=dim, dataset=dataset, ensembles=ensembles,
                         alpha=alpha, transform="accuracy" if accuracy else None, xscale="log",
                         spread=spread, palette=palette, ax=ax)
