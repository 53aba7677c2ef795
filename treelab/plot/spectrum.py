"""The spectrum of randomness: a measure against alpha, one line per construction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from treelab import _dims
from treelab.plot._common import (
    axis_label,
    band_title,
    check_choice,
    check_result,
    finished_cells,
    finite_alpha,
    get_ax,
    is_regression_result,
    mean_spread,
    palette_for,
    pick_dataset,
    pick_ensembles,
    place_legend,
)
from treelab.plot._docstrings import share_docs

__all__ = ["regression_spectrum", "spectrum"]

#: The variables of :func:`regression_spectrum`, in panel order, where the result has them.
REGRESSION_PANELS = ("mse", "r2", "ambiguity", "rho_bar", "average_bias", "bias_with_noise",
                     "average_variance", "diversity", "mean_rho")


def _draw(ax: Any, ds: xr.Dataset, var: str, ensembles: list, spread: str, references: bool,
          colours: dict, mark_alpha: float | None, regression: bool = False) -> None:
    da = ds[var]
    alphas = np.asarray(ds[_dims.ALPHA].values, dtype=np.float64)
    finite = finite_alpha(alphas)
    mean, low, high = mean_spread(da, spread, finished=finished_cells(ds))
    for name in ensembles:
        m = mean.sel({_dims.ENSEMBLE: name}).values
        lo = low.sel({_dims.ENSEMBLE: name}).values
        hi = high.sel({_dims.ENSEMBLE: name}).values
        on = finite & np.isfinite(m)
        if on.any():
            order = np.argsort(alphas[on])
            x, y = alphas[on][order], m[on][order]
            ax.plot(x, y, marker="o", markersize=3.5, color=colours[name], label=str(name))
            if spread != "none":
                ax.fill_between(x, lo[on][order], hi[on][order], color=colours[name],
                                alpha=0.18, linewidth=0)
        elif references and np.isfinite(m[~finite]).any():
            level = float(m[~finite][np.isfinite(m[~finite])][0])
            ax.axhline(level, color=colours[name], linestyle="--", linewidth=1.2,
                       label=f"{name}")
    if mark_alpha is not None:
        ax.axvline(float(mark_alpha), color="0.3", linestyle=":", linewidth=1.2)
    ax.set_xlabel(axis_label(_dims.ALPHA))
    ax.set_ylabel(axis_label(var, da, regression))
    ax.set_xlim(-0.02, 1.02)


@share_docs
def spectrum(
    result: xr.Dataset,
    *,
    var: str | None = None,
    dataset: str | None = None,
    ensembles: Sequence[str] | None = None,
    spread: str = "sd",
    references: bool = True,
    mark_alpha: float | None = None,
    col: str | None = None,
    col_wrap: int = 3,
    palette: Any = None,
    ax: Any = None,
) -> Any:
    """Error (or any measure) against alpha, one line per construction (Liu et al. 2008).

    Every ensemble swept over alpha (Aggregating, Bagging, Subspacing VR-Trees, ...) is a line
    through its mean over repeats and folds at each alpha, with the spread as a band. An
    ensemble without alpha (Random Forest, Coalescence: ``alpha = NaN`` in an experiment
    result) is a dashed horizontal reference line at its mean.

    Parameters
    ----------
    %(result)s
    var : str, optional
        Variable on the y axis: default ``ensemble_error``, or ``mse`` for a regression
        result (a regression experiment's, or stacked ``diagnose`` results of regressors).
    %(dataset)s
    %(ensembles)s
    %(spread)s
    references : bool, default True
        Draw ensembles without alpha as horizontal reference lines.
    mark_alpha : float, optional
        Draw a dotted vertical line at this alpha.
    col : {"dataset"}, optional
        Facet: one panel per data set (returns a seaborn FacetGrid; ``ax`` must be None).
    col_wrap : int, default 3
        Panels per row when faceting.
    %(palette)s
    %(ax)s

    Returns
    -------
    matplotlib.axes.Axes or seaborn.FacetGrid
        The Axes, or the grid when ``col="dataset"``.

    Examples
    --------
    >>> import treelab
    >>> from treelab.analysis import diagnose
    >>> from treelab.datasets import gaussian_mixture
    >>> train, test = gaussian_mixture(100, random_state=0), gaussian_mixture(100, random_state=1)
    >>> runs = [diagnose(treelab.VRTrees(alpha=a, n_estimators=5, random_state=0)
    ...                  .fit(train.X, train.y), test.X, test.y, label="Aggregating")
    ...         for a in (0.0, 0.5, 1.0)]
    >>> ax = spectrum(treelab.plot.stack_results(runs))
    >>> ax.get_legend_handles_labels()[1]
    ['Aggregating']
    """
    if var is None:
        regression = isinstance(result, xr.Dataset) and is_regression_result(result)
        var = "mse" if regression else "ensemble_error"
    ds = check_result(result, "result", [var], [_dims.ENSEMBLE, _dims.ALPHA])
    regression = is_regression_result(ds)
    check_choice(spread, "spread", ("sd", "range", "none"))
    check_choice(col, "col", (None, _dims.DATASET))
    if not isinstance(references, bool):
        raise TypeError(f"references must be True or False, got {references!r}")
    names = pick_ensembles(ds, ensembles, "result")
    colours = palette_for(names, palette)
    if col is None:
        one = pick_dataset(ds, dataset, "result")
        ax = get_ax(ax)
        _draw(ax, one, var, names, spread, references, colours, mark_alpha, regression)
        place_legend(ax, title=band_title(one[var], spread))
        return ax
    if ax is not None:
        raise ValueError("ax must be None when col='dataset' (the grid makes its own figure)")
    if _dims.DATASET not in ds.dims:
        raise ValueError("col='dataset' needs a result with a 'dataset' dim")
    if dataset is not None:
        raise ValueError("give either dataset= or col='dataset', not both")
    if isinstance(col_wrap, bool) or not isinstance(col_wrap, int) or col_wrap < 1:
        raise ValueError(f"col_wrap must be a positive integer, got {col_wrap!r}")
    import seaborn as sns

    datasets = list(ds[_dims.DATASET].values)
    grid = sns.FacetGrid(pd.DataFrame({_dims.DATASET: datasets}), col=_dims.DATASET,
                         col_wrap=min(col_wrap, len(datasets)), sharey=False, height=2.8,
                         aspect=1.2)
    for name, panel in grid.axes_dict.items():
        _draw(panel, ds.sel({_dims.DATASET: name}), var, names, spread, references, colours,
              mark_alpha, regression)
        panel.set_title(str(name))
    grid.set_axis_labels(r"$\alpha$", axis_label(var, ds[var], regression))
    handles, labels = next(iter(grid.axes_dict.values())).get_legend_handles_labels()
    grid.add_legend(dict(zip(labels, handles, strict=True)), title=band_title(ds[var], spread))
    return grid


@share_docs
def regression_spectrum(
    result: xr.Dataset,
    *,
    dataset: str | None = None,
    variables: Sequence[str] | None = None,
    ensembles: Sequence[str] | None = None,
    spread: str = "sd",
    ncols: int | None = None,
    width: str | float = "double",
    palette: Any = None,
) -> Any:
    """Where on the spectrum a regression forest sits: its error and the measures that
    explain it against alpha, one panel each, one line per construction.

    The panels are :func:`spectrum` of each variable (mean over repeats and folds with the
    spread as a band; an ensemble without alpha a dashed reference): by default the MSE, R^2,
    the ambiguity (Krogh & Vedelsby 1995), the residual correlation rho_bar (Breiman 2001,
    section 11) and, from a ``bias_variance`` experiment, the bias-variance-diversity terms
    (Wood et al. 2023) and Louppe's rho(x) (Louppe 2014), where the result has them. The
    figure is made at its exported width (:func:`treelab.plot.panels`; pass the same
    ``width`` to :func:`treelab.plot.savefig`) with one legend for all panels.

    Parameters
    ----------
    result : xarray.Dataset
        A regression result with dims ``ensemble`` and ``alpha`` (an experiment with
        ``task = "regression"``, or stacked ``diagnose`` results of regressors).
    dataset : str, optional
        The data set drawn, when the result has a ``dataset`` dim with several.
    variables : sequence of str, optional
        The variables drawn, in order (default: those of ``REGRESSION_PANELS`` present).
    %(ensembles)s
    %(spread)s
    ncols : int, optional
        Panels per row (:func:`treelab.plot.panels`).
    width : {"single", "double"} or float, default "double"
        The exported width.
    %(palette)s

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import treelab
    >>> from treelab.analysis import diagnose
    >>> from treelab.datasets import generate
    >>> train = generate("friedman1", n_samples=80, random_state=0)
    >>> test = generate("friedman1", n_samples=60, random_state=1)
    >>> runs = [diagnose(treelab.VRTreesRegressor(alpha=a, n_estimators=5, random_state=0)
    ...                  .fit(train.X, train.y), test.X, test.y, label="VR-Trees")
    ...         for a in (0.0, 0.5, 1.0)]
    >>> fig = regression_spectrum(treelab.plot.stack_results(runs))
    >>> [ax.get_ylabel() for ax in fig.axes][:2]
    ['mean squared error (MSE)', '$R^2$']
    """
    from treelab.plot.panels import figure_labels, merge_legends, panels

    ds = check_result(result, "result", [], [_dims.ENSEMBLE, _dims.ALPHA])
    if not is_regression_result(ds):
        raise ValueError("result must be a regression result (with 'mse' and no "
                         "'ensemble_error'); use spectrum() for classification")
    if variables is None:
        variables = [v for v in REGRESSION_PANELS if v in ds.data_vars]
    elif isinstance(variables, str) or not variables:
        raise ValueError(f"variables must be a non-empty list of names, got {variables!r}")
    ds = check_result(ds, "result", list(variables))
    ds = pick_dataset(ds, dataset, "result")
    fig, axes = panels(len(variables), ncols=ncols, width=width)
    for ax, var in zip(axes, variables, strict=True):
        spectrum(ds, var=var, ensembles=ensembles, spread=spread, palette=palette, ax=ax)
    figure_labels(fig, list(axes))  # alpha's label once, under the panels
    merge_legends(fig, list(axes))
    return fig
