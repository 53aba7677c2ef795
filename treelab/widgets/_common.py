"""Shared pieces of the explorers: checks of a result, the measures table, figures rendered
to PNG, the display plumbing."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from treelab import _dims

#: Constructions of :class:`treelab.VRTrees` offered by the surface explorer.
CONSTRUCTIONS = {"Aggregating": "none", "Bagging": "bootstrap", "Subspacing": "subspace"}

#: Measures listed by the explorers, when the result has them (in this order).
MEASURES = (
    "ensemble_error", "mean_member_error", "single_error", "error_ratio", "phi_e",
    "phi_star", "strength", "correlation", "breiman_bound", "observed_error",
    "independent_error", "optimal_error", "exact_mse", "mean_g", "mean_n_leaves",
    "mean_depth", "mean_random_share",
)
#: Measures listed for a regression result (MSE in place of the error rate; the ambiguity,
#: residual correlation, Breiman's regression bound and, over K training sets, the
#: bias-variance-diversity terms and Louppe's rho), when the result has them.
REGRESSION_MEASURES = (
    "mse", "mae", "r2", "mean_member_mse", "ambiguity", "tree_mse", "rho_bar",
    "breiman_bound", "mean_residual_correlation", "oob_forest_mse", "oob_rho_bar",
    "expected_loss", "noise", "average_bias", "bias_with_noise", "average_variance",
    "diversity", "mean_rho", "mean_tree_variance", "mean_forest_variance", "mean_n_leaves",
    "mean_depth", "mean_random_share",
)


def _ipywidgets() -> Any:
    try:
        import ipywidgets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "treelab.widgets needs ipywidgets: install it with `pip install ipywidgets` "
            "(or `conda install -c conda-forge ipywidgets`) and restart the kernel; the "
            "figures alone are in treelab.plot"
        ) from exc
    return ipywidgets


#: Room (inches) right of a panel for its legend, which sits outside the data.
LEGEND_IN = 1.6

#: Controls' descriptions are shown whole ("construction", not "constructi...").
STYLE = {"description_width": "initial"}


def _figure(width: float, height: float, ncols: int = 1, legend_in: float = LEGEND_IN,
            top_in: float = 0.35) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    # fixed margins, with room for each panel's legend on its right: a layout engine would
    # double the drawing time of every interaction, and fixed room keeps the legend in one
    # place from one redraw to the next
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, ncols)
    left, right, gap = 0.75, 0.15 + legend_in, 0.8 + legend_in
    panel = (width - left - right - (ncols - 1) * gap) / ncols
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=0.55 / height,
                        top=1 - top_in / height, wspace=gap / panel)
    return fig, axes


def render_png(fig: Any, dpi: int = 80) -> bytes:
    """PNG bytes of a Figure (for an ``ipywidgets.Image``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to render.
    dpi : int, default 80
        Resolution of the PNG.

    Returns
    -------
    bytes
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _check_coord(ds: xr.Dataset, dim: str, value: Any, name: str) -> None:
    values = list(ds[dim].values)
    if dim == _dims.ALPHA:
        if not any(np.isclose(float(value), v) for v in values if np.isfinite(v)):
            raise ValueError(f"{name}={value!r} is not an alpha of the result ({values})")
    elif value not in values:
        raise ValueError(f"{name}={value!r} is not a {dim} of the result ({values})")


def _check_result(result: Any, dims: Sequence[str]) -> xr.Dataset:
    if not isinstance(result, xr.Dataset):
        raise TypeError(f"result must be an xarray.Dataset (an experiment result), got "
                        f"{type(result).__name__}")
    missing = [d for d in dims if d not in result.dims]
    if missing:
        from treelab.plot._common import _how_to_add

        raise ValueError(f"result lacks the dims {missing} (has {tuple(result.dims)}): "
                         f"{_how_to_add(missing)}")
    return result


def measures_at(result: xr.Dataset, *, dataset: Any, ensemble: Any, alpha: float | None
                ) -> pd.DataFrame:
    """The diagnostic measures of one cell of a result: mean and sd over repeats and folds.

    Parameters
    ----------
    result : xarray.Dataset
        An experiment result.
    dataset, ensemble : coordinate values
        The cell (``dataset`` is ignored when the result has no ``dataset`` dim).
    alpha : float or None
        Its alpha (None or NaN: an ensemble without alpha).

    Returns
    -------
    pandas.DataFrame
        Index: the measures of :data:`MEASURES` (:data:`REGRESSION_MEASURES` for a
        regression result) the result holds; columns ``mean``, ``sd``,
        ``description`` (the variable's ``long_name``); and ``lower``, ``upper`` where the
        result holds confidence limits (:func:`treelab.analysis.diagnose` with ``ci``: the
        limits of one test set, or their mean over the resamples).
    """
    cell = result
    if _dims.DATASET in cell.dims:
        cell = cell.sel({_dims.DATASET: dataset})
    cell = cell.sel({_dims.ENSEMBLE: ensemble})
    if _dims.ALPHA in cell.dims:
        alphas = np.asarray(cell[_dims.ALPHA].values, dtype=np.float64)
        if alpha is None or np.isnan(alpha):
            at = np.flatnonzero(np.isnan(alphas))
        else:
            at = np.flatnonzero(np.isclose(alphas, float(alpha)))
        if at.size == 0:
            raise ValueError(f"alpha={alpha!r} is not an alpha of the result")
        cell = cell.isel({_dims.ALPHA: int(at[0])})
    rows, limits = [], {}
    from treelab.plot._common import finished_cells, is_regression_result

    # a fold that failed (on_error = "continue") has no record: the cell's mean over the
    # folds that finished is not its mean, so it is NaN, as in experiment.summary
    finished = finished_cells(cell)
    whole = finished is None or bool(finished.all())

    for name in REGRESSION_MEASURES if is_regression_result(result) else MEASURES:
        if name not in cell.data_vars:
            continue
        da = cell[name]
        extra = [d for d in da.dims if d not in (_dims.REPEAT, _dims.FOLD)]
        if extra:
            continue
        values = np.asarray(da.values, dtype=np.float64).ravel()
        finite = values[np.isfinite(values)] if whole else values[:0]
        rows.append((name, finite.mean() if finite.size else np.nan,
                     finite.std(ddof=1) if finite.size > 1 else np.nan,
                     str(da.attrs.get("long_name", ""))))
        if f"{name}_lower" in cell.data_vars and f"{name}_upper" in cell.data_vars:
            sides = [np.asarray(cell[f"{name}_{side}"].values, dtype=np.float64).ravel()
                     for side in ("lower", "upper")]
            limits[name] = [v[np.isfinite(v)].mean() if whole and np.isfinite(v).any()
                            else np.nan for v in sides]
    table = pd.DataFrame(rows, columns=["measure", "mean", "sd", "description"]).set_index(
        "measure")
    if limits:  # only results with intervals get the columns
        bounds = pd.DataFrame.from_dict(limits, orient="index", columns=["lower", "upper"])
        table = table.join(bounds)[["mean", "lower", "upper", "sd", "description"]]
    return table




class _Explorer:
    """Shared display plumbing: a box of controls, an image and an HTML table."""

    widget: Any
    image: Any
    table: Any

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def _show(self, fig: Any, table: pd.DataFrame) -> None:
        self.figure = fig
        self.measures = table
        self.image.value = render_png(fig)
        self.table.value = table.to_html(float_format=lambda v: f"{v:.3g}", na_rep="-",
                                         border=0)
