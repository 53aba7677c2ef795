"""Kappa-error diagrams (Margineantu & Dietterich 1997) and margin distributions (Schapire
et al. 1998) of the diversity workbench."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from treelab import _dims
from treelab.plot._common import get_ax, palette_for, place_legend

__all__ = ["kappa_error_diagram", "kappa_error_points", "margin_cdf"]


def _models_to_results(results: Any, X: Any, y: Any) -> Any:
    """Models (or lists of models, or member outputs) among ``results`` become their
    :func:`treelab.analysis.pairwise_diversity` on ``X``, ``y``."""
    if X is None and y is None:
        return results
    if y is None:
        raise ValueError("X= needs y= (the true labels of the rows X)")
    from treelab.analysis import pairwise_diversity
    from treelab.analysis.members import is_model

    def one(value: Any) -> Any:
        if isinstance(value, xr.Dataset):
            return value
        return pairwise_diversity(value, y, X=X if is_model(value) else None)

    if isinstance(results, Mapping):
        return {name: one(value) for name, value in results.items()}
    return one(results)


def _named_results(results: Any) -> dict[str, xr.Dataset]:
    """Name -> pairwise Dataset without leading dims (a leading dim splits into names)."""
    if isinstance(results, xr.Dataset):
        results = {"": results}
    if not isinstance(results, Mapping):
        raise TypeError(f"results must be a pairwise_diversity Dataset or a mapping of name to "
                        f"one, got {type(results).__name__}")
    out: dict[str, xr.Dataset] = {}
    for name, ds in results.items():
        if not isinstance(ds, xr.Dataset) or "kappa" not in ds or "pair_error" not in ds:
            raise ValueError(f"results[{name!r}] must be a pairwise_diversity Dataset (with "
                             f"kappa and pair_error)")
        lead = [d for d in ds["kappa"].dims if d not in (_dims.TREE, _dims.TREE_OTHER)]
        if not lead:
            out[str(name)] = ds
            continue
        stacked = ds[["kappa", "pair_error"]].stack(_lead=lead)
        for i in range(stacked.sizes["_lead"]):
            part = stacked.isel(_lead=i)
            label = ", ".join(f"{d}={part[d].values.item()}" for d in lead)
            out[f"{name} {label}".strip()] = part
    return out


def kappa_error_points(results: Any, *, X: Any = None, y: Any = None) -> pd.DataFrame:
    """The points of a kappa-error diagram: one row per pair of members t < k.

    Parameters
    ----------
    results : Dataset or mapping of str to Dataset
        :func:`treelab.analysis.pairwise_diversity` results; leading dims (``alpha``, ...)
        become separate ensembles named ``"alpha=0.5"``. With ``y=``, a value may also be a
        fitted model, a list of fitted classifiers (read on ``X``) or member labels.
    X, y : array-like, optional
        Test rows and their labels, for models given in ``results``.

    Returns
    -------
    pandas.DataFrame
        Columns ``ensemble``, ``tree``, ``tree_other``, ``kappa`` (Cohen's kappa between the
        two members' labels) and ``pair_error`` ((e_t + e_k) / 2).
    """
    frames = []
    for name, ds in _named_results(_models_to_results(results, X, y)).items():
        kappa = np.asarray(ds["kappa"].transpose(_dims.TREE, _dims.TREE_OTHER).values)
        err = np.asarray(ds["pair_error"].transpose(_dims.TREE, _dims.TREE_OTHER).values)
        t, k = np.triu_indices(kappa.shape[0], 1)
        frames.append(pd.DataFrame({"ensemble": name, "tree": t, "tree_other": k,
                                    "kappa": kappa[t, k], "pair_error": err[t, k]}))
    if not frames:
        raise ValueError("results is empty")
    return pd.concat(frames, ignore_index=True)


def kappa_error_diagram(results: Any, *, X: Any = None, y: Any = None, ax: Any = None,
                        palette: Any = None, alpha: float = 0.5, s: float = 12.0) -> Any:
    """Kappa-error diagram: every pair of members as a point (kappa, mean pair error).

    Low kappa (diverse pairs) and low error (accurate pairs) are both wanted; the cloud of an
    ensemble shows the trade-off (Margineantu & Dietterich 1997). Several ensembles, or the
    alphas of one, share the axes with one colour each.

    Parameters
    ----------
    results : Dataset or mapping of str to Dataset (or to models, with ``X`` and ``y``)
        As for :func:`kappa_error_points`.
    X, y : array-like, optional
        Test rows and labels for models in ``results``.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).
    palette : str, list or dict, optional
        Colours (seaborn's colorblind palette by default).
    alpha, s : float
        Marker transparency and size.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import seaborn as sns

    points = kappa_error_points(results, X=X, y=y)
    ax = get_ax(ax)
    names = list(dict.fromkeys(points["ensemble"]))
    colours = palette_for(names, palette)
    hue = "ensemble" if len(names) > 1 or names[0] else None
    sns.scatterplot(data=points, x="kappa", y="pair_error", hue=hue,
                    palette=colours if hue else None, alpha=alpha, s=s, ax=ax, linewidth=0)
    legend = ax.get_legend()
    if legend is not None:  # seaborn's goes inside the axes, over the cloud: move it out
        handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
        legend.remove()
        place_legend(ax, handles=handles, labels=labels)
    ax.set_xlabel(r"$\kappa$ between the two members' labels")
    ax.set_ylabel("mean error of the pair")
    return ax


def margin_cdf(margins: Any, *, hue: str = _dims.ALPHA, ax: Any = None,
               palette: Any = None) -> Any:
    """Cumulative distributions of voting margins, one curve per value of ``hue``.

    The share of rows with margin <= theta against theta (Schapire et al. 1998): a curve
    further right means larger margins; its value at theta = 0 is (about) the voting error.

    Parameters
    ----------
    margins : DataArray, (..., sample)
        From :func:`treelab.analysis.margins`; rows of every other leading dim (``fold``) are
        pooled within each value of ``hue``.
    hue : str, default "alpha"
        Dim that gives one curve per coordinate (absent: a single curve).
    ax : matplotlib Axes, optional
        Where to draw.
    palette : str, list or dict, optional
        Colours.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import seaborn as sns

    if not isinstance(margins, xr.DataArray) or _dims.SAMPLE not in margins.dims:
        raise TypeError("margins must be a DataArray with a 'sample' dim (treelab.analysis."
                        "margins)")
    ax = get_ax(ax)
    if hue in margins.dims:
        values = list(margins[hue].values)
        colours = palette_for(values, palette if palette is not None else "viridis")
        for v in values:
            data = np.asarray(margins.sel({hue: v}).values).ravel()
            sns.ecdfplot(x=data, ax=ax, color=colours[v], label=f"{hue}={v:g}"
                         if isinstance(v, float | np.floating) else f"{hue}={v}")
        place_legend(ax)  # outside the axes: the curves fill the whole panel
    else:
        sns.ecdfplot(x=np.asarray(margins.values).ravel(), ax=ax)
    ax.axvline(0.0, color="0.6", lw=0.8, ls=":")
    ax.set_xlim(-1.0, 1.0)
    ax.set_xlabel(r"voting margin $\theta$")
    ax.set_ylabel(r"share of rows with margin $\leq \theta$")
    return ax
