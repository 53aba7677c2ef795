"""Helpers shared by the figure functions: input checks, reductions, axes and colours."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims

__all__ = [
    "ENSEMBLE_COLOURS",
    "RESAMPLING",
    "axis_label",
    "band_title",
    "clip_range",
    "finished_cells",
    "place_legend",
    "value_ticks",
    "check_choice",
    "check_result",
    "is_regression_result",
    "get_ax",
    "interval_title",
    "mean_spread",
    "only_whole",
    "palette_for",
    "pick_dataset",
    "pick_ensembles",
]

#: Dims a figure summarises by mean and spread.
RESAMPLING = (_dims.REPEAT, _dims.FOLD)

_LABELS = {
    "ensemble_error": "error rate",
    "mean_member_error": "mean member error",
    "error_ratio": "error ratio $E_r = E_e / E_s$",
    "phi_e": r"error correlation $\phi_e$",
    "phi_star": r"$\phi^*$ (independent errors)",
    "strength": "strength $s$",
    "correlation": r"correlation $\bar\rho$",
    "breiman_bound": r"Breiman's bound $\bar\rho(1-s^2)/s^2$",
    "mean_g": "gain ties per decision node $g$",
    "pooled_g": "gain ties per decision node $g$ (pooled)",
    "accuracy": "accuracy",
    "exact_mse": "exact MSE of probabilities",
    "alpha": r"$\alpha$ (0 random, 1 deterministic)",
    "n_irrelevant": "irrelevant attributes added",
    "train_size": "training-set size (fraction of the draw)",
    "noise": "class-noise rate",
}


#: Labels of a regression result's variables (some names mean something else there:
#: ``breiman_bound`` is rho_bar PE*(tree), ``noise`` a term of the decomposition).
_REGRESSION_LABELS = {
    "mse": "mean squared error (MSE)",
    "mae": "mean absolute error (MAE)",
    "r2": "$R^2$",
    "ensemble_mse": "ensemble MSE",
    "average_member_mse": "mean member MSE",
    "mean_member_mse": "mean member MSE",
    "ambiguity": "ambiguity (Krogh & Vedelsby)",
    "rho_bar": r"residual correlation $\bar\rho$",
    "tree_mse": "mean tree MSE $PE^*(tree)$",
    "breiman_bound": r"Breiman's bound $\bar\rho\, PE^*(tree)$",
    "expected_loss": "expected loss",
    "average_bias": "average bias",
    "bias_with_noise": "average bias (noise included)",
    "average_variance": "average variance",
    "diversity": "diversity",
    "noise": "noise",
    "mean_rho": r"Louppe's $\rho(x)$, mean over rows",
}


def is_regression_result(ds: xr.Dataset) -> bool:
    """Whether ``ds`` is a regression result (it reports ``mse`` and no classification
    error)."""
    return "mse" in ds.data_vars and "ensemble_error" not in ds.data_vars


def axis_label(name: str, da: xr.DataArray | None = None, regression: bool = False) -> str:
    """A readable axis label: a known one (of a regression result's variables where
    ``regression``), else the variable's ``long_name``, else the name."""
    if regression and name in _REGRESSION_LABELS:
        return _REGRESSION_LABELS[name]
    if name in _LABELS:
        return _LABELS[name]
    if da is not None and da.attrs.get("long_name"):
        return str(da.attrs["long_name"])
    return name


def check_choice(value: Any, name: str, choices: Sequence[Any]) -> Any:
    """``value`` must be one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_result(ds: Any, name: str, variables: Sequence[str] = (),
                 dims: Sequence[str] = ()) -> xr.Dataset:
    """``ds`` must be a Dataset holding ``variables`` and ``dims``."""
    if not isinstance(ds, xr.Dataset):
        raise TypeError(f"{name} must be an xarray.Dataset, got {type(ds).__name__}")
    missing = [v for v in variables if v not in ds.data_vars]
    if missing:
        raise ValueError(f"{name} lacks the variables {missing} "
                         f"(has {sorted(map(str, ds.data_vars))})")
    missing = [d for d in dims if d not in ds.dims]
    if missing:
        raise ValueError(f"{name} lacks the dims {missing} (has {tuple(ds.dims)}): "
                         f"{_how_to_add(missing)}")
    return ds


def _how_to_add(missing: Sequence[str]) -> str:
    """How a user gets the missing dims (the message of a failed dims check)."""
    if set(missing) <= {_dims.ENSEMBLE, _dims.ALPHA}:
        return ("stack several diagnose results with treelab.plot.stack_results([...]), or "
                "add the dims to one result with ds.expand_dims(ensemble=['name'], "
                "alpha=[0.5])")
    return "add a dim with ds.expand_dims(name=[value]) or run an experiment that sweeps it"


def pick_dataset(ds: xr.Dataset, dataset: Any, name: str = "ds") -> xr.Dataset:
    """Select one data set, or check there is only one."""
    if _dims.DATASET not in ds.dims:
        if dataset is not None:
            raise ValueError(f"dataset={dataset!r} given but {name} has no 'dataset' dim")
        return ds
    names = list(ds[_dims.DATASET].values)
    if dataset is None:
        if len(names) != 1:
            raise ValueError(f"{name} holds {len(names)} data sets {names}; choose one with "
                             "dataset=... (or facet with col='dataset')")
        return ds.isel({_dims.DATASET: 0})
    if dataset not in names:
        raise ValueError(f"dataset={dataset!r} is not in {name} ({names})")
    return ds.sel({_dims.DATASET: dataset})


def pick_ensembles(ds: xr.Dataset, ensembles: Sequence[str] | None, name: str = "ds",
                   dim: str = _dims.ENSEMBLE) -> list:
    """Ensemble coordinates (or those of another line-giving ``dim``) to draw, checked, in
    order."""
    if dim not in ds.dims:
        raise ValueError(f"{name} must have an {dim!r} dim (has {tuple(ds.dims)}): "
                         f"{_how_to_add([dim])}")
    names = list(ds[dim].values)
    if ensembles is None:
        return names
    if isinstance(ensembles, str):
        ensembles = [ensembles]
    bad = [e for e in ensembles if e not in names]
    if bad:
        raise ValueError(f"ensembles {bad} are not in {name} ({names})")
    return list(ensembles)


#: Ranges of the usual measures, for Datasets whose variables carry no ``valid_range`` attr.
_RANGES = {
    "ensemble_error": (0.0, 1.0), "mean_member_error": (0.0, 1.0), "single_error": (0.0, 1.0),
    "accuracy": (0.0, 1.0), "exact_mse": (0.0, 2.0), "phi_e": (0.0, 1.0),
    "phi_star": (0.0, 1.0), "strength": (-1.0, 1.0), "correlation": (-1.0, 1.0),
    "error_ratio": (0.0, math.inf), "bias": (0.0, math.inf), "variance": (0.0, math.inf),
}


def clip_range(da: xr.DataArray) -> tuple[float, float]:
    """The values ``da`` can take: its ``valid_range`` attr, else the known range of its
    name (an error rate lies in [0, 1]), else the whole line."""
    valid = da.attrs.get("valid_range")
    if valid is not None and len(valid) == 2:
        return float(valid[0]), float(valid[1])
    return _RANGES.get(str(da.name), (-math.inf, math.inf))


def finished_cells(ds: xr.Dataset) -> xr.DataArray | None:
    """False on the cells of an experiment result that failed
    (:func:`treelab.experiment.result_files.failed_cells`: no record at a fold the data set
    has), True elsewhere; None where ``ds`` has no ``fit_time`` (not a runner's result: every
    value counts)."""
    from treelab.experiment.result_files import failed_cells

    failed = failed_cells(ds)
    return None if failed is None else ~failed


def only_whole(reduced: xr.DataArray, finished: xr.DataArray | None,
               dims: Sequence[str]) -> xr.DataArray:
    """``reduced`` (a reduction over the resampling ``dims``) where every cell it reduces
    finished, NaN elsewhere.

    A cell that failed (``on_error = "continue"``) has no record, and a mean over the folds
    that happened to finish is not the mean over the folds a figure promises:
    :func:`treelab.experiment.summary` gives NaN there too. Values NaN by definition (an error
    ratio where the single tree makes no error) are in finished cells and do not count.
    """
    if finished is None:
        return reduced
    whole = finished.all([d for d in finished.dims
                          if d in dims or d not in reduced.dims])
    return reduced.where(whole)


def mean_spread(da: xr.DataArray, spread: str, valid: tuple[float, float] | None = None,
                finished: xr.DataArray | None = None
                ) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray]:
    """Mean over repeats and folds, and the lower and upper edge of the spread band.

    The +-1 sd band is clipped to ``valid`` (default :func:`clip_range` of ``da``): an error
    rate's band never runs below 0, an accuracy's never above 1. With ``finished``
    (:func:`finished_cells` of the result ``da`` comes from), a point one of whose cells
    failed is NaN, and so not drawn (:func:`only_whole`).
    """
    dims = [d for d in RESAMPLING if d in da.dims]
    if not dims:
        return da, da, da
    mean = da.mean(dims)
    if spread == "sd":
        lo, hi = valid if valid is not None else clip_range(da)
        sd = da.std(dims, ddof=1) if math.prod(da.sizes[d] for d in dims) > 1 else mean * 0
        low, high = (mean - sd).clip(min=lo), (mean + sd).clip(max=hi)
    elif spread == "range":
        low, high = da.min(dims), da.max(dims)
    else:
        low = high = mean
    return tuple(only_whole(x, finished, dims) for x in (mean, low, high))


def band_title(da: xr.DataArray, spread: str) -> str | None:
    """What the band of :func:`mean_spread` is, for the legend's title ("band: +-1 sd over
    folds"), or None where no band is drawn (``spread="none"``, one value per point)."""
    dims = [d for d in RESAMPLING if d in da.dims and da.sizes[d] > 1]
    if spread == "none" or not dims:
        return None
    kind = "\u00b11 sd" if spread == "sd" else "min-max"
    return f"band: {kind} over\n" + " and ".join(f"{d}s" for d in dims)


def interval_title(lower: xr.DataArray) -> str:
    """What the error bars of :func:`treelab.analysis.diagnose`'s intervals are ("bars: 90%
    bca bootstrap intervals"), read from the lower limit's ``description``, for the legend."""
    found = re.match(r"(\w+) (\d+(?:\.\d+)?)% interval", str(lower.attrs.get("description", "")))
    if found is None:
        return "bars: confidence\nintervals"
    return f"bars: {found.group(2)}% {found.group(1)}\nbootstrap intervals"


def place_legend(ax: Any, below: bool | None = None, **kwargs: Any) -> Any:
    """The Axes' legend outside its data area, so it never covers a point and stays in one
    place when the figure is redrawn: right of the axes, or under them when its entries are
    long (or ``below=True``)."""
    handles, labels = ax.get_legend_handles_labels()
    handles, labels = kwargs.pop("handles", handles), kwargs.pop("labels", labels)
    if not handles:
        return None
    options = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0,
               "frameon": False, "fontsize": "small"}
    if below is None:
        below = max(len(line) for label in labels for line in str(label).splitlines()) > 24
    if below:
        # long entries (fitted lines with their r^2) would squeeze the panel: under it
        # instead, below the tick labels and the axis label
        # (an offset in points from the axes' bottom, so a layout engine that shrinks the
        # axes keeps it clear of the labels; export only shrinks the labels)
        from matplotlib.transforms import offset_copy

        if not hasattr(ax.figure.canvas, "get_renderer"):  # a bare Figure (no pyplot)
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            FigureCanvasAgg(ax.figure)
        renderer = ax.figure.canvas.get_renderer()
        drop = (ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0) \
            * 72.0 / ax.figure.dpi + 3.0
        options.update(loc="upper left", bbox_to_anchor=(0.0, 0.0), bbox_transform=offset_copy(
            ax.transAxes, fig=ax.figure, y=-drop, units="points"))
    options.update(kwargs)
    if options.get("title"):  # a title (what a band is) in the entries' size, flush left
        if below:
            options["title"] = " ".join(str(options["title"]).split("\n"))
        options.setdefault("title_fontsize", options["fontsize"])
        options.setdefault("alignment", "left")
    return ax.legend(handles, labels, **options)


def value_ticks(ax: Any, values: Sequence[float], axis: str = "x") -> None:
    """Label a log or symlog axis with the swept values themselves (0, 4, 16, 64), not
    powers of ten."""
    from matplotlib.ticker import FixedLocator, NullLocator

    values = np.unique(np.asarray(values, dtype=np.float64))
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(FixedLocator(values))
    target.set_minor_locator(NullLocator())
    target.set_major_formatter(lambda v, _pos: f"{v:g}")


#: Okabe & Ito's colour-blind-safe palette (with grey and brown): distinguishable with the
#: common colour-vision deficiencies and in greyscale by lightness.
_COLORBLIND = (
    (0.000, 0.447, 0.698),  # 0 blue
    (0.902, 0.624, 0.000),  # 1 orange
    (0.000, 0.620, 0.451),  # 2 bluish green
    (0.800, 0.475, 0.655),  # 3 reddish purple
    (0.337, 0.706, 0.914),  # 4 sky blue
    (0.835, 0.369, 0.000),  # 5 vermillion
    (0.941, 0.894, 0.259),  # 6 yellow
    (0.600, 0.600, 0.600),  # 7 grey
    (0.000, 0.000, 0.000),  # 8 black
    (0.600, 0.400, 0.200),  # 9 brown
)

#: Order in which names without a colour of their own take the free colours (yellow, the
#: faintest on white, last).
_FREE_ORDER = (0, 1, 2, 3, 4, 5, 9, 7, 8, 6)

#: The one colour of each known ensemble in every figure and widget (names compared in lower
#: case without a leading "bagged "): an index into the palette. Ensembles a study draws
#: together get different colours (01: Coalescence, MDE, Bagging, Random Subspace, RF; 03:
#: unpruned and pruned tree, RD, RF+, BT+, DST; 04: RDT, ERDT, MMDT, CVDT).
ENSEMBLE_COLOURS = {
    "aggregating": 0, "agg.": 0, "vrtrees": 0, "vr-trees": 0, "uniform voting": 0,
    "bagging": 1, "bag.": 1, "bt+": 1, "baggedtrees": 1, "distribution summation": 1,
    "subspacing": 2, "random subspace": 2, "rdt": 2, "rd": 2, "randomdecisiontrees": 2,
    "random forest": 3, "rf": 3, "rf+": 3, "randomforest": 3, "likelihood combination": 3,
    "coalescence": 4, "cvdt": 4, "baggedcvdt": 4, "bayesian combination": 4,
    "erdt": 5, "rotation forest": 5, "rotationforest": 5,
    "extra trees": 6, "extratrees": 6, "pert": 6, "stochasticid3": 6,
    "mmdt": 7, "baggedmmdt": 7, "pruned tree": 7,
    "unpruned tree": 8, "c4.5": 8, "decisiontree": 8, "single tree": 8,
    "max-diverse ensemble": 9, "mde": 9, "maxdiverseensemble": 9, "dst": 9,
    "disjointsampletrees": 9,
}


def _known_slot(name: Any) -> int | None:
    key = str(name).strip().lower()
    if key.startswith("bagged ") and key not in ENSEMBLE_COLOURS:
        key = key[len("bagged "):]
    return ENSEMBLE_COLOURS.get(key)


def palette_for(names: Sequence[Any], palette: Any = None) -> dict[Any, Any]:
    """A colour per name, the same for an ensemble in every figure.

    Without ``palette``, a known ensemble (:data:`ENSEMBLE_COLOURS`) always gets its own
    colour of the colour-blind-safe palette, whatever else is drawn; other names (and a known
    one whose colour is taken in this figure) get the free colours in order. A palette name
    or list colours the names in order; a dict is used as given.
    """
    import seaborn as sns

    if isinstance(palette, dict):
        missing = [n for n in names if n not in palette]
        if missing:
            raise ValueError(f"palette has no colour for {missing}")
        return dict(palette)
    if palette is not None:
        colours = sns.color_palette(palette, max(len(names), 1))
        return {n: colours[i % len(colours)] for i, n in enumerate(names)}
    out: dict[Any, Any] = {}
    taken: set[int] = set()
    for n in names:
        slot = _known_slot(n)
        if slot is not None and slot not in taken:
            out[n] = _COLORBLIND[slot]
            taken.add(slot)
    free = [i for i in _FREE_ORDER if i not in taken]
    extra = [n for n in names if n not in out]
    for i, n in enumerate(extra):
        out[n] = _COLORBLIND[free[i]] if i < len(free) else sns.color_palette(
            "husl", len(extra))[i]
    return {n: out[n] for n in names}


def get_ax(ax: Any, figsize: tuple[float, float] = (5.0, 3.6)) -> Any:
    """The given Axes, or the Axes of a new figure."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def finite_alpha(alpha_values: np.ndarray) -> np.ndarray:
    """Mask of the finite alpha coordinates."""
    return np.isfinite(np.asarray(alpha_values, dtype=np.float64))
