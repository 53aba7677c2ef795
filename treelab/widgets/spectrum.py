"""The spectrum explorer: error against alpha, the strength-correlation trajectory, and the
measures at one alpha."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from treelab import _dims
from treelab.plot._common import is_regression_result
from treelab.widgets._common import (
    STYLE,
    _check_coord,
    _check_result,
    _Explorer,
    _figure,
    _ipywidgets,
    measures_at,
)


def spectrum_view(
    result: xr.Dataset,
    dataset: Any,
    ensemble: Any,
    alpha: float,
    *,
    var: str | None = None,
) -> tuple[Any, pd.DataFrame]:
    """The :class:`SpectrumExplorer` picture and table for one choice of its controls.

    Left: ``var`` against alpha for every ensemble (the chosen one drawn on top), with the
    current alpha marked. Right: the chosen ensemble's strength-correlation trajectory with
    the point at the current alpha ringed (for a regression result: the residual correlation
    rho_bar against alpha, Breiman 2001, section 11). Table: :func:`measures_at` of the cell.

    Parameters
    ----------
    result : xarray.Dataset
        An experiment result with dims ``ensemble`` and ``alpha``.
    dataset, ensemble : coordinate values
        The data set and the construction.
    alpha : float
        The current alpha.
    var : str, optional
        Variable of the left panel (default ``ensemble_error``; ``mse`` for a regression
        result).

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
    """
    from treelab import plot

    ds = _check_result(result, [_dims.ENSEMBLE, _dims.ALPHA])
    regression = is_regression_result(ds)
    if var is None:
        var = "mse" if regression else "ensemble_error"
    if _dims.DATASET in ds.dims:
        _check_coord(ds, _dims.DATASET, dataset, "dataset")
    _check_coord(ds, _dims.ENSEMBLE, ensemble, "ensemble")
    _check_coord(ds, _dims.ALPHA, alpha, "alpha")
    one = ds.sel({_dims.DATASET: [dataset]}) if _dims.DATASET in ds.dims else ds
    from treelab.plot._common import palette_for

    everyone = list(ds[_dims.ENSEMBLE].values)
    names = [e for e in everyone if e != ensemble] + [ensemble]  # the chosen one on top
    has_sc = "strength" in ds and "correlation" in ds and not regression
    has_rho = regression and "rho_bar" in ds and var != "rho_bar"
    two = has_sc or has_rho
    fig, axes = _figure(12.0 if two else 6.5, 4.2, 2 if two else 1, top_in=1.15)
    left = axes[0] if two else axes
    palette = palette_for(everyone)  # every ensemble keeps its colour whatever is chosen
    plot.spectrum(one, var=var, ensembles=names, mark_alpha=alpha, palette=palette, ax=left)
    for line in left.get_lines():
        if line.get_label() == str(ensemble):
            line.set_linewidth(2.6)
    left.set_title(f"{dataset}: {var}", fontsize="medium")
    if has_sc:
        plot.strength_correlation(one, ensembles=[ensemble], mark_alpha=alpha, colorbar=True,
                                  palette={ensemble: palette[ensemble]}, ax=axes[1])
        # above the alpha colour bar, which sits on top of the panel
        fig.axes[-1].set_title(f"{ensemble} at alpha = {alpha:g}", fontsize="medium")
    elif has_rho:  # what the error's changes along alpha come with: correlated residuals
        plot.spectrum(one, var="rho_bar", ensembles=names, mark_alpha=alpha, palette=palette,
                      ax=axes[1])
        axes[1].set_title(f"{dataset}: residual correlation", fontsize="medium")
    table = measures_at(ds, dataset=dataset, ensemble=ensemble, alpha=alpha)
    return fig, table


class SpectrumExplorer(_Explorer):
    """Explore an experiment result along the spectrum of randomness.

    Choose a data set and a construction (an ensemble swept over alpha) and slide alpha: the
    error curve marks the current alpha, the strength-correlation panel rings the point at
    that alpha on the construction's trajectory, and a table lists the diagnostic measures of
    the cell (mean and sd over repeats and folds). Every interaction calls
    :func:`spectrum_view`.

    Parameters
    ----------
    result : xarray.Dataset
        An experiment result (:func:`treelab.experiment.run`) with dims ``ensemble`` and
        ``alpha`` (and usually ``dataset``, ``repeat``, ``fold``).
    var : str, optional
        Variable of the left panel (default ``ensemble_error``; ``mse`` for a regression
        result, whose right panel is the residual correlation rho_bar against alpha).

    Attributes
    ----------
    widget : ipywidgets.VBox
        What the notebook displays (the explorer displays as it, too).
    dataset, ensemble, alpha : ipywidgets controls
        The controls; set their ``value`` to drive the explorer from code.
    figure : matplotlib.figure.Figure
        The current picture; ``measures`` the current table.
    """

    def __init__(self, result: xr.Dataset, *, var: str | None = None) -> None:
        w = _ipywidgets()
        ds = _check_result(result, [_dims.ENSEMBLE, _dims.ALPHA])
        if var is None:
            var = "mse" if is_regression_result(ds) else "ensemble_error"
        if var not in ds.data_vars:
            raise ValueError(f"var={var!r} is not a variable of result")
        alphas = np.asarray(ds[_dims.ALPHA].values, dtype=np.float64)
        finite = [float(a) for a in alphas if np.isfinite(a)]
        if not finite:
            raise ValueError("result has no ensemble swept over alpha")
        err = ds[var]
        swept = [e for e in ds[_dims.ENSEMBLE].values
                 if bool(err.sel({_dims.ENSEMBLE: e, _dims.ALPHA: finite}).notnull().any())]
        self.result, self.var = ds, var
        datasets = list(ds[_dims.DATASET].values) if _dims.DATASET in ds.dims else [None]
        self.dataset = w.Dropdown(options=datasets, value=datasets[0], description="data set",
                                  style=STYLE)
        self.ensemble = w.Dropdown(options=swept, value=swept[0], description="construction",
                                   style=STYLE)
        start = min(finite, key=lambda a: abs(a - 0.5))
        self.alpha = w.SelectionSlider(options=finite, value=start, description="alpha",
                                       continuous_update=False, style=STYLE)
        self.image = w.Image(format="png")
        self.table = w.HTML()
        for control in (self.dataset, self.ensemble, self.alpha):
            control.observe(self._on_change, names="value")
        self.widget = w.VBox([w.HBox([self.dataset, self.ensemble, self.alpha]), self.image,
                              self.table])
        self.update()

    def _on_change(self, change: Any) -> None:
        self.update()

    def update(self) -> None:
        """Redraw for the current control values."""
        fig, table = spectrum_view(self.result, self.dataset.value, self.ensemble.value,
                                   self.alpha.value, var=self.var)
        self._show(fig, table)
