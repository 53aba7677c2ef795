"""Probability-estimate figures: reliability curves and bias-variance bars (Fan et al. 2005)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.plot._common import check_result, get_ax, palette_for, place_legend
from treelab.plot._docstrings import share_docs

__all__ = ["bias_variance", "reliability"]


@share_docs
def reliability(
    result: xr.Dataset,
    *,
    classes: Sequence[Any] | None = None,
    label: str | None = None,
    diagonal: bool = True,
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """Reliability curves: observed class frequency against mean predicted probability.

    One line per class through the bins of :func:`treelab.analysis.reliability`. Empty bins
    are NaN there, so the line is broken at them (never drawn through a zero). A perfectly
    calibrated estimator lies on the dotted diagonal.

    Parameters
    ----------
    result : xarray.Dataset
        A :func:`treelab.analysis.reliability` result (dims ``class`` and ``bin``; variables
        ``mean_predicted`` and ``observed_frequency``). Other dims must have size 1.
    classes : sequence, optional
        Classes to draw (default: all).
    label : str, optional
        Prefix of the legend entries (to overlay several estimators on one Axes).
    diagonal : bool, default True
        Draw the diagonal of perfect calibration.
    %(palette)s
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    ds = check_result(result, "result", ["mean_predicted", "observed_frequency"],
                      [_dims.CLASS, _dims.BIN])
    extra = [d for d in ds.dims if d not in (_dims.CLASS, _dims.BIN)]
    big = [d for d in extra if ds.sizes[d] > 1]
    if big:
        raise ValueError(f"result has dims {big} besides class and bin; select one value first")
    if extra:
        ds = ds.isel({d: 0 for d in extra})
    all_classes = list(ds[_dims.CLASS].values)
    if classes is None:
        classes = all_classes
    bad = [c for c in classes if c not in all_classes]
    if bad:
        raise ValueError(f"classes {bad} are not in result ({all_classes})")
    colours = palette_for(list(classes), palette)
    ax = get_ax(ax, figsize=(4.2, 4.0))
    if diagonal:
        ax.plot([0, 1], [0, 1], ":", color="0.5", linewidth=1.0)
    for c in classes:
        part = ds.sel({_dims.CLASS: c})
        name = f"class {c}" if label is None else f"{label}, class {c}"
        # markers at exactly 0 or 1 sit on the frame: drawn whole, not cut in half
        ax.plot(part["mean_predicted"].values, part["observed_frequency"].values, "-o",
                markersize=3.5, color=colours[c], label=name, clip_on=False, zorder=3)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("observed frequency")
    place_legend(ax)
    return ax


@share_docs
def bias_variance(
    result: xr.Dataset,
    *,
    by: str = "ensemble",
    colors: Sequence[Any] = ("#4c72b0", "#dd8452"),
    ax: Any = None,
) -> Any:
    """Stacked bars of bias and variance of probability estimates, one bar per method.

    The bar height is the expected squared loss bias + variance of
    :func:`treelab.analysis.bias_variance` (Fan et al. 2005, section 4).

    Parameters
    ----------
    result : xarray.Dataset
        Variables ``bias`` and ``variance``: scalars (one bar), or over the dim ``by`` (for
        example :func:`treelab.analysis.bias_variance` results concatenated along
        ``ensemble``). Other dims must have size 1.
    by : str, default "ensemble"
        Dim whose coordinates are the bars.
    colors : pair of colours, default seaborn deep blue and orange
        Colours of the bias and variance parts.
    %(ax)s

    Returns
    -------
    %(returns_ax)s
    """
    ds = check_result(result, "result", ["bias", "variance"])
    ds = ds[["bias", "variance"]]
    if by in ds.dims:
        names = list(ds[by].values)
    else:
        names = [str(ds.attrs.get("estimator", "estimate"))]
        ds = ds.expand_dims({by: names})
    extra = [d for d in ds.dims if d != by]
    if any(ds.sizes[d] > 1 for d in extra):
        raise ValueError(f"result has dims {extra} besides {by!r}; select one value first")
    if extra:
        ds = ds.isel({d: 0 for d in extra})
    if len(colors) != 2:
        raise ValueError("colors must hold two colours (bias, variance)")
    bias = np.asarray(ds["bias"].transpose(by).values, dtype=np.float64)
    var = np.asarray(ds["variance"].transpose(by).values, dtype=np.float64)
    ax = get_ax(ax, figsize=(max(3.5, 0.45 * len(names) + 2.0), 3.4))
    x = np.arange(len(names))
    ax.bar(x, bias, color=colors[0], label="bias")
    ax.bar(x, var, bottom=bias, color=colors[1], label="variance")
    # long names wrap onto two lines; many bars stand their labels upright, so none collide
    wrapped = [textwrap.fill(str(n), 10) for n in names]
    widest = max(len(line) for w in wrapped for line in w.splitlines())
    turn = len(names) * widest > 20  # about what fits across a journal column
    labels = [str(n) for n in names] if turn else wrapped
    ax.set_xticks(x, labels, rotation=90 if turn else 0)
    ax.set_xlabel(by)
    ax.set_ylabel("squared loss of\nprobability estimates")
    place_legend(ax)
    return ax
