"""Helpers shared by the figure functions: input checks, reductions, axes and colours."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims

__all__ = [
    "RESAMPLING",
    "axis_label",
    "check_choice",
    "check_result",
    "get_ax",
    "mean_spread",
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


def axis_label(name: str, da: xr.DataArray | None = None) -> str:
    """A readable axis label: a known one, else the variable's ``long_name``, else the name."""
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


def pick_ensembles(ds: xr.Dataset, ensembles: Sequence[str] | None, name: str = "ds") -> list:
    """Ensemble coordinates to draw (checked), in order."""
    if _dims.ENSEMBLE not in ds.dims:
        raise ValueError(f"{name} must have an 'ensemble' dim (has {tuple(ds.dims)}): "
                         f"{_how_to_add([_dims.ENSEMBLE])}")
    names = list(ds[_dims.ENSEMBLE].values)
    if ensembles is None:
        return names
    if isinstance(ensembles, str):
        ensembles = [ensembles]
    bad = [e for e in ensembles if e not in names]
    if bad:
        raise ValueError(f"ensembles {bad} are not in {name} ({names})")
    return list(ensembles)


def mean_spread(da: xr.DataArray, spread: str) -> tuple[xr.DataArray, xr.DataArray,
                                                          xr.DataArray]:
    """Mean over repeats and folds, and the lower and upper edge of the spread band."""
    dims = [d for d in RESAMPLING if d in da.dims]
    if not dims:
        return da, da, da
    mean = da.mean(dims)
    if spread == "sd":
        sd = da.std(dims, ddof=1) if math.prod(da.sizes[d] for d in dims) > 1 else mean * 0
        return mean, mean - sd, mean + sd
    if spread == "range":
        return mean, da.min(dims), da.max(dims)
    return mean, mean, mean


def palette_for(names: Sequence[Any], palette: Any = None) -> dict[Any, Any]:
    """A colour per name: seaborn's colorblind palette unless one is given."""
    import seaborn as sns

    if isinstance(palette, dict):
        missing = [n for n in names if n not in palette]
        if missing:
            raise ValueError(f"palette has no colour for {missing}")
        return dict(palette)
    colours = sns.color_palette(palette or "colorblind", max(len(names), 1))
    return {n: colours[i % len(colours)] for i, n in enumerate(names)}


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
