"""The diversity explorer: phi_e against the error ratio across data sets."""

from __future__ import annotations

from typing import Any

import pandas as pd
import xarray as xr

from treelab import _dims
from treelab.widgets._common import (
    MEASURES,
    STYLE,
    _check_coord,
    _check_result,
    _Explorer,
    _figure,
    _ipywidgets,
)


def diversity_view(
    result: xr.Dataset,
    dataset: Any,
    *,
    x: str = "phi_e",
    y: str = "error_ratio",
) -> tuple[Any, pd.DataFrame]:
    """The :class:`DiversityExplorer` picture and table for one selected data set.

    Left: ``y`` against ``x`` over all data sets with the OLS line
    (:func:`treelab.plot.error_ratio_vs_phi`); the selected data set's points are ringed.
    Table: the selected data set's measures per ensemble (and alpha), means over repeats and
    folds.

    Parameters
    ----------
    result : xarray.Dataset
        An experiment result with a ``dataset`` dim and the variables ``x`` and ``y``.
    dataset : coordinate value
        The data set to highlight.
    x, y : str, default "phi_e", "error_ratio"
        Variables on the axes.

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
    """
    from treelab import plot
    from treelab.plot._common import finished_cells, only_whole
    from treelab.plot.diversity import scatter_points

    ds = _check_result(result, [_dims.DATASET])
    _check_coord(ds, _dims.DATASET, dataset, "dataset")
    for var in (x, y):
        if var not in ds.data_vars:
            raise ValueError(f"result has no variable {var!r}")
    fig, ax = _figure(7.2, 4.2)
    plot.error_ratio_vs_phi(ds, x=x, y=y, ax=ax)
    chosen = scatter_points(ds.sel({_dims.DATASET: [dataset]}), x, y, None)[None]
    ax.scatter(chosen[0], chosen[1], s=140, facecolors="none", edgecolors="k",
               linewidths=1.5, zorder=4, gid="selected")
    ax.set_title(f"selected: {dataset}", fontsize="medium")
    one = ds.sel({_dims.DATASET: dataset})
    dims = [d for d in (_dims.REPEAT, _dims.FOLD) if d in one.dims]
    keep = [v for v in MEASURES if v in one.data_vars
            and set(one[v].dims) <= {_dims.ENSEMBLE, _dims.ALPHA, _dims.REPEAT, _dims.FOLD}]
    means = one[keep].mean(dims).map(lambda v: only_whole(v, finished_cells(one), dims))
    frame = means.to_dataframe()[keep] if keep else pd.DataFrame()
    frame = frame.dropna(how="all")
    return fig, frame


class DiversityExplorer(_Explorer):
    """phi_e against the error ratio across data sets; select one to see its details.

    The scatter holds one point per data set, ensemble and alpha (means over repeats and
    folds) with the OLS line and r^2 of :func:`treelab.stats.fit_error_ratio`. Picking a data
    set rings its points and lists its measures per ensemble. Every interaction calls
    :func:`diversity_view`.

    Parameters
    ----------
    result : xarray.Dataset
        An experiment result with a ``dataset`` dim and the variables ``x`` and ``y``.
    x, y : str, default "phi_e", "error_ratio"
        Variables on the axes (``x="mean_g"`` relates gain ties to the error ratio).
    """

    def __init__(self, result: xr.Dataset, *, x: str = "phi_e", y: str = "error_ratio"
                 ) -> None:
        w = _ipywidgets()
        ds = _check_result(result, [_dims.DATASET])
        for var in (x, y):
            if var not in ds.data_vars:
                raise ValueError(f"result has no variable {var!r}")
        self.result, self.x, self.y = ds, x, y
        names = list(ds[_dims.DATASET].values)
        self.dataset = w.Dropdown(options=names, value=names[0], description="data set",
                                  style=STYLE)
        self.image = w.Image(format="png")
        self.table = w.HTML()
        self.dataset.observe(self._on_change, names="value")
        self.widget = w.VBox([self.dataset, w.HBox([self.image, self.table])])
        self.update()

    def _on_change(self, change: Any) -> None:
        self.update()

    def update(self) -> None:
        """Redraw for the selected data set."""
        fig, table = diversity_view(self.result, self.dataset.value, x=self.x, y=self.y)
        self._show(fig, table)
