"""Interactive explorers for Jupyter: move a slider, see the figures and measures change.

* :class:`SpectrumExplorer` -- an experiment result: data set, construction and alpha; the
  error curve with the current alpha marked, the strength-correlation point on its
  trajectory, and the diagnostic measures at that alpha.
* :class:`DecisionSurfaceExplorer` -- 2-D data: alpha, number of trees and construction; a
  small ensemble is refitted live and its decision surface drawn beside its place in the
  strength-correlation plane and its phi_e.
* :class:`DiversityExplorer` -- phi_e against the error ratio across data sets; pick a data set
  to highlight its points and list its measures.

ipywidgets is imported only when an explorer is built. All the work happens in plain named
functions (:func:`spectrum_view`, :func:`surface_view`, :func:`diversity_view`,
:func:`measures_at`) that return a matplotlib Figure and a pandas table, so they can be called
and tested without a kernel; the explorers only wire them to controls. Figures are built with
:class:`matplotlib.figure.Figure` (not pyplot), rendered to PNG into an ``ipywidgets.Image``,
and never registered globally.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from treelab import _dims

__all__ = [
    "CONSTRUCTIONS",
    "DecisionSurfaceExplorer",
    "DiversityExplorer",
    "SpectrumExplorer",
    "diversity_view",
    "measures_at",
    "spectrum_view",
    "surface_view",
]

#: Constructions of :class:`treelab.VRTrees` offered by the surface explorer.
CONSTRUCTIONS = {"Aggregating": "none", "Bagging": "bootstrap", "Subspacing": "subspace"}

#: Measures listed by the explorers, when the result has them (in this order).
MEASURES = (
    "ensemble_error", "mean_member_error", "single_error", "error_ratio", "phi_e",
    "phi_star", "strength", "correlation", "breiman_bound", "observed_error",
    "independent_error", "optimal_error", "exact_mse", "mean_g", "mean_n_leaves",
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


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    # fixed margins: a layout engine would double the drawing time of every interaction
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, ncols)
    fig.subplots_adjust(left=0.75 / width, right=1 - 0.25 / width, bottom=0.55 / height,
                        top=1 - 0.35 / height, wspace=0.9 / width * ncols)
    return fig, axes


def render_png(fig: Any, dpi: int = 80) -> bytes:
    """PNG bytes of a Figure (for an ``ipywidgets.Image``)."""
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
        raise ValueError(f"result lacks the dims {missing} (has {tuple(result.dims)})")
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
        Index: the measures of :data:`MEASURES` the result holds; columns ``mean``, ``sd``,
        ``description`` (the variable's ``long_name``).
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
    rows = []
    for name in MEASURES:
        if name not in cell.data_vars:
            continue
        da = cell[name]
        extra = [d for d in da.dims if d not in (_dims.REPEAT, _dims.FOLD)]
        if extra:
            continue
        values = np.asarray(da.values, dtype=np.float64).ravel()
        finite = values[np.isfinite(values)]
        rows.append((name, finite.mean() if finite.size else np.nan,
                     finite.std(ddof=1) if finite.size > 1 else np.nan,
                     str(da.attrs.get("long_name", ""))))
    return pd.DataFrame(rows, columns=["measure", "mean", "sd", "description"]).set_index(
        "measure")


# ----------------------------------------------------------------------------- spectrum


def spectrum_view(
    result: xr.Dataset,
    dataset: Any,
    ensemble: Any,
    alpha: float,
    *,
    var: str = "ensemble_error",
) -> tuple[Any, pd.DataFrame]:
    """The :class:`SpectrumExplorer` picture and table for one choice of its controls.

    Left: ``var`` against alpha for every ensemble (the chosen one drawn on top), with the
    current alpha marked. Right: the chosen ensemble's strength-correlation trajectory with
    the point at the current alpha ringed. Table: :func:`measures_at` of the cell.

    Parameters
    ----------
    result : xarray.Dataset
        An experiment result with dims ``ensemble`` and ``alpha``.
    dataset, ensemble : coordinate values
        The data set and the construction.
    alpha : float
        The current alpha.
    var : str, default "ensemble_error"
        Variable of the left panel.

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
    """
    from treelab import plot

    ds = _check_result(result, [_dims.ENSEMBLE, _dims.ALPHA])
    if _dims.DATASET in ds.dims:
        _check_coord(ds, _dims.DATASET, dataset, "dataset")
    _check_coord(ds, _dims.ENSEMBLE, ensemble, "ensemble")
    _check_coord(ds, _dims.ALPHA, alpha, "alpha")
    one = ds.sel({_dims.DATASET: [dataset]}) if _dims.DATASET in ds.dims else ds
    names = [e for e in ds[_dims.ENSEMBLE].values if e != ensemble] + [ensemble]
    has_sc = "strength" in ds and "correlation" in ds
    fig, axes = _figure(10.0 if has_sc else 5.5, 3.8, 2 if has_sc else 1)
    left = axes[0] if has_sc else axes
    palette = dict(zip(names, _palette(len(names)), strict=True))
    plot.spectrum(one, var=var, ensembles=names, mark_alpha=alpha, palette=palette, ax=left)
    for line in left.get_lines():
        if line.get_label() == str(ensemble):
            line.set_linewidth(2.6)
    left.set_title(f"{dataset}: {var}", fontsize="medium")
    if has_sc:
        plot.strength_correlation(one, ensembles=[ensemble], mark_alpha=alpha, colorbar=False,
                                  palette={ensemble: palette[ensemble]}, ax=axes[1])
        axes[1].set_title(f"{ensemble} at alpha = {alpha:g}", fontsize="medium")
    table = measures_at(ds, dataset=dataset, ensemble=ensemble, alpha=alpha)
    return fig, table


def _palette(n: int) -> list:
    import seaborn as sns

    return list(sns.color_palette("colorblind", max(n, 1)))[:n]


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
        self.table.value = table.to_html(float_format=lambda v: f"{v:.4g}", na_rep="-",
                                         border=0)


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
    var : str, default "ensemble_error"
        Variable of the left panel.

    Attributes
    ----------
    widget : ipywidgets.VBox
        What the notebook displays (the explorer displays as it, too).
    dataset, ensemble, alpha : ipywidgets controls
        The controls; set their ``value`` to drive the explorer from code.
    figure : matplotlib.figure.Figure
        The current picture; ``measures`` the current table.
    """

    def __init__(self, result: xr.Dataset, *, var: str = "ensemble_error") -> None:
        w = _ipywidgets()
        ds = _check_result(result, [_dims.ENSEMBLE, _dims.ALPHA])
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
        self.dataset = w.Dropdown(options=datasets, value=datasets[0], description="data set")
        self.ensemble = w.Dropdown(options=swept, value=swept[0], description="construction")
        start = min(finite, key=lambda a: abs(a - 0.5))
        self.alpha = w.SelectionSlider(options=finite, value=start, description="alpha",
                                       continuous_update=False)
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


# ----------------------------------------------------------------------------- surfaces


def _split(data: Any, test: Any, random_state: int) -> tuple[np.ndarray, ...]:
    from treelab.plot.surface import _xy

    X, y = _xy(data)
    if test is not None:
        Xt, yt = _xy(test)
        return X, y, Xt, yt
    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(y))
    half = len(y) // 2
    return X[order[:half]], y[order[:half]], X[order[half:]], y[order[half:]]


def surface_view(
    data: Any,
    *,
    alpha: float = 0.5,
    n_estimators: int = 20,
    construction: str = "Aggregating",
    test: Any = None,
    resolution: int = 60,
    random_state: int = 0,
    history: Sequence[tuple[float, float, float]] = (),
) -> tuple[Any, pd.DataFrame, Any]:
    """Fit a small VR-Trees ensemble and draw the :class:`DecisionSurfaceExplorer` picture.

    Left: :func:`treelab.plot.decision_surface` of the ensemble with its training points.
    Right: the ensemble's (strength, correlation) on the test rows over contours of Breiman's
    bound, with earlier settings (``history``) as faded points coloured by alpha. Table:
    test error, phi_e, phi*, strength, correlation and the bound (from
    :func:`treelab.analysis.diagnose`).

    Parameters
    ----------
    data : LabeledData or (X, y)
        Two-feature data. Without ``test``, a random half trains and the other half tests.
    alpha : float, default 0.5
        Probability of a deterministic test at a node.
    n_estimators : int, default 20
        Number of trees.
    construction : {"Aggregating", "Bagging", "Subspacing"}, default "Aggregating"
        What rows and features each tree sees.
    test : LabeledData or (X, y), optional
        Test rows for the measures.
    resolution : int, default 60
        Grid points per axis of the surface.
    random_state : int, default 0
        Seed of the split and of the ensemble.
    history : sequence of (alpha, strength, correlation)
        Earlier points to draw faded.

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame, fitted VRTrees)
    """
    import treelab
    from treelab import plot
    from treelab.analysis import diagnose

    if construction not in CONSTRUCTIONS:
        raise ValueError(f"construction must be one of {list(CONSTRUCTIONS)}, got "
                         f"{construction!r}")
    if isinstance(n_estimators, bool) or not isinstance(n_estimators, int | np.integer) \
            or n_estimators < 2:
        raise ValueError(f"n_estimators must be an integer >= 2, got {n_estimators!r}")
    X, y, Xt, yt = _split(data, test, random_state)
    model = treelab.VRTrees(n_estimators=int(n_estimators), alpha=float(alpha),
                            sampling=CONSTRUCTIONS[construction], subspace_fraction=0.5,
                            random_state=random_state)
    model.fit(X, y)  # with two features, a subspace tree sees one of them
    known = np.isin(yt, model.classes_)
    diag = diagnose(model, Xt[known], yt[known])
    fig, (left, right) = _figure(9.0, 4.0, 2)
    names = getattr(data, "feature_names", None)
    plot.decision_surface(model, (X, y), resolution=resolution, ax=left,
                          bounds=plot.surface._bounds(np.vstack([X, Xt]), None),
                          title=f"{construction}, alpha = {alpha:g}, {n_estimators} trees")
    if names:
        left.set_xlabel(names[0])
        left.set_ylabel(names[1])
    s, rho = float(diag.strength), float(diag.correlation)
    _strength_panel(right, s, rho, float(alpha), history)
    table = pd.DataFrame(
        {"value": [float(diag.ensemble_error), float(diag.phi_e), float(diag.phi_star), s,
                   rho, float(diag.breiman_bound)]},
        index=pd.Index(["test error", "phi_e", "phi*", "strength", "correlation",
                        "Breiman bound"], name="measure"))
    return fig, table, model


def _strength_panel(ax: Any, s: float, rho: float, alpha: float,
                    history: Sequence[tuple[float, float, float]]) -> None:
    import matplotlib as mpl

    from treelab.plot.strength import breiman_bound

    pts = [(a, hs, hr) for a, hs, hr in history if np.isfinite(hs) and np.isfinite(hr)]
    s_all = [p[1] for p in pts] + [s]
    r_all = [p[2] for p in pts] + [rho]
    s_lo = max(0.02, min(v for v in s_all if np.isfinite(v)) - 0.1) if np.isfinite(s) else 0.05
    r_hi = max(0.1, 1.25 * max(v for v in r_all if np.isfinite(v))) if np.isfinite(rho) else 1
    sg, rg = np.meshgrid(np.linspace(s_lo, 1.0, 80), np.linspace(0.0, r_hi, 80))
    cs = ax.contour(sg, rg, breiman_bound(sg, rg), levels=(0.05, 0.1, 0.2, 0.4, 0.8),
                    colors="0.65", linewidths=0.8)
    ax.clabel(cs, fmt="%g", fontsize="x-small")
    norm = mpl.colors.Normalize(0, 1)
    if pts:
        hist = np.array(pts)
        ax.scatter(hist[:, 1], hist[:, 2], c=hist[:, 0], cmap="viridis", norm=norm, s=18,
                   alpha=0.45, gid="history")
    ax.scatter([s], [rho], c=[alpha], cmap="viridis", norm=norm, s=120, edgecolors="k",
               linewidths=1.2, zorder=3, gid="current")
    ax.set_xlim(s_lo, 1.0)
    ax.set_ylim(0.0, r_hi)
    ax.set_xlabel("strength $s$")
    ax.set_ylabel(r"correlation $\bar\rho$")
    ax.set_title("test rows: strength and correlation", fontsize="medium")


class DecisionSurfaceExplorer(_Explorer):
    """Refit a small ensemble live and watch its decision surface as alpha moves.

    Sliders for alpha and the number of trees and a construction picker refit a
    :class:`treelab.VRTrees` ensemble on two-feature data (concepts A/B, the Gaussian mixture,
    the noisy 2-D function, image interpolation) and redraw its decision surface beside its
    place in the strength-correlation plane; earlier settings stay as faded points, so the
    trajectory builds up as you slide. A table shows the test error, phi_e and phi*. Every
    interaction calls :func:`surface_view` (well under a second at the default sizes once the
    kernels are compiled).

    Parameters
    ----------
    data : LabeledData or (X, y)
        Two-feature training data (a random half trains when ``test`` is not given).
    test : LabeledData or (X, y), optional
        Test rows for the measures.
    n_estimators : int, default 20
        Initial number of trees (slider 2..100).
    alpha : float, default 0.5
        Initial alpha (slider 0..1 in steps of 0.05).
    construction : {"Aggregating", "Bagging", "Subspacing"}, default "Aggregating"
        Initial construction.
    resolution : int, default 60
        Grid points per axis of the surface.
    random_state : int, default 0
        Seed of the split and of every fit.
    """

    def __init__(self, data: Any, *, test: Any = None, n_estimators: int = 20,
                 alpha: float = 0.5, construction: str = "Aggregating", resolution: int = 60,
                 random_state: int = 0) -> None:
        w = _ipywidgets()
        from treelab.plot.surface import _xy

        _xy(data)  # checked before any widget exists
        if test is not None:
            _xy(test)
        if construction not in CONSTRUCTIONS:
            raise ValueError(f"construction must be one of {list(CONSTRUCTIONS)}, got "
                             f"{construction!r}")
        self.data, self.test = data, test
        self.resolution, self.random_state = resolution, random_state
        self.history: list[tuple[float, float, float]] = []
        self.alpha = w.FloatSlider(value=float(alpha), min=0.0, max=1.0, step=0.05,
                                   description="alpha", continuous_update=False)
        self.n_estimators = w.IntSlider(value=int(n_estimators), min=2, max=100,
                                        description="trees", continuous_update=False)
        self.construction = w.Dropdown(options=list(CONSTRUCTIONS), value=construction,
                                       description="construction")
        self.image = w.Image(format="png")
        self.table = w.HTML()
        for control in (self.alpha, self.n_estimators, self.construction):
            control.observe(self._on_change, names="value")
        self.widget = w.VBox([w.HBox([self.alpha, self.n_estimators, self.construction]),
                              self.image, self.table])
        self.update()

    def _on_change(self, change: Any) -> None:
        if change.get("owner") is not self.alpha:
            self.history.clear()  # a new trajectory for another size or construction
        self.update()

    def update(self) -> None:
        """Refit and redraw for the current control values."""
        fig, table, self.model = surface_view(
            self.data, alpha=self.alpha.value, n_estimators=self.n_estimators.value,
            construction=self.construction.value, test=self.test,
            resolution=self.resolution, random_state=self.random_state,
            history=self.history)
        self.history.append((float(self.alpha.value), float(table.loc["strength", "value"]),
                             float(table.loc["correlation", "value"])))
        self._show(fig, table)


# ----------------------------------------------------------------------------- diversity


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
    from treelab.plot.diversity import scatter_points

    ds = _check_result(result, [_dims.DATASET])
    _check_coord(ds, _dims.DATASET, dataset, "dataset")
    for var in (x, y):
        if var not in ds.data_vars:
            raise ValueError(f"result has no variable {var!r}")
    fig, ax = _figure(6.0, 4.2)
    plot.error_ratio_vs_phi(ds, x=x, y=y, ax=ax)
    chosen = scatter_points(ds.sel({_dims.DATASET: [dataset]}), x, y, None)[None]
    ax.scatter(chosen[0], chosen[1], s=140, facecolors="none", edgecolors="k",
               linewidths=1.5, zorder=4, gid="selected")
    ax.set_title(f"selected: {dataset}", fontsize="medium")
    one = ds.sel({_dims.DATASET: dataset})
    dims = [d for d in (_dims.REPEAT, _dims.FOLD) if d in one.dims]
    keep = [v for v in MEASURES if v in one.data_vars
            and set(one[v].dims) <= {_dims.ENSEMBLE, _dims.ALPHA, _dims.REPEAT, _dims.FOLD}]
    frame = one[keep].mean(dims).to_dataframe()[keep] if keep else pd.DataFrame()
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
        self.dataset = w.Dropdown(options=names, value=names[0], description="data set")
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
