"""Shared input handling of :mod:`treelab.stats`: from a result to a (dataset x method) table.

Experiment results (:func:`treelab.experiment.run`) hold a measure over the dims
``dataset, ensemble, alpha, repeat, fold`` and more; the tests of this package need a plain
table. :func:`value_table` gets there in documented steps, and every result is assembled by
:func:`build` through the analysis layer's one Dataset builder.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import Var, make_attrs, to_dataset

__all__ = [
    "CITE_ALPAYDIN",
    "CITE_DEMSAR",
    "CITE_DIETTERICH",
    "build",
    "check_dim_name",
    "check_flag",
    "check_paired_values",
    "check_significance",
    "collapse_alpha",
    "holm_step_down",
    "select_alpha",
    "to_dataarray_input",
    "value_table",
]

CITE_DEMSAR = (
    "Demsar (2006), Statistical comparisons of classifiers over multiple data sets, JMLR 7"
)
CITE_DIETTERICH = (
    "Dietterich (1998), Approximate statistical tests for comparing supervised classification "
    "learning algorithms, Neural Computation 10"
)
CITE_ALPAYDIN = (
    "Alpaydin (1999), Combined 5x2 cv F test for comparing supervised classification learning "
    "algorithms, Neural Computation 11"
)

#: Dims averaged over before a (dataset x method) table is built: the resampling dims.
RESAMPLING_DIMS = (_dims.REPEAT, _dims.FOLD)


def check_dim_name(value: Any, name: str) -> str:
    """A dim name argument must be a non-empty string."""
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a dim name (non-empty str), got {value!r}")
    return value


def check_flag(value: Any, name: str) -> bool:
    """A boolean option."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_significance(value: Any, name: str = "significance") -> float:
    """A significance level strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}")
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value}")
    return value


def check_paired_values(diff: xr.DataArray, name: str = "results") -> xr.DataArray:
    """``diff`` (value(a) - value(b) over the resamples) when every value is finite; else a
    ``ValueError`` naming the first missing one. A paired test over the resamples needs both
    methods on every resample: a NaN would make its statistic NaN and its decision "not
    significant" without a word."""
    values = np.asarray(diff.values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        at = np.argwhere(~np.isfinite(values))[0]
        where = ", ".join(
            f"{d}={diff[d].values[i].item()!r}" if d in diff.coords else f"{d}={i}"
            for d, i in zip(diff.dims, at, strict=True))
        raise ValueError(f"{name} holds missing or infinite values for a or b (the first at "
                         f"{where}); a paired test needs both methods on every resample: "
                         f"select the complete data sets or resamples first")
    return diff


def holm_step_down(pvalues: Any, significance: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's (1979) adjusted p-values and decisions, in the input order.

    With the m p-values sorted p_(1) <= ... <= p_(m), the i-th smallest is rejected while
    p_(j) < alpha / (m - j + 1) for it and every one before it: the strict inequality of
    the docs and of every other test of the package (p < significance). That is the
    adjusted p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)) (statsmodels' ``multipletests``)
    below ``significance``; statsmodels' own decisions test <= and would reject a p-value
    exactly at the level.

    Examples
    --------
    >>> adjusted, reject = holm_step_down([0.03125, 0.5], 0.0625)
    >>> adjusted.tolist(), reject.tolist()
    ([0.0625, 0.5], [False, False])
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return p.copy(), np.zeros(0, dtype=bool)
    adjusted = multipletests(p, method="holm")[1]
    return adjusted, adjusted < significance


def to_dataarray_input(values: Any, name: str, var: str) -> xr.DataArray:
    """A DataArray from a DataArray, or the variable ``var`` of a Dataset."""
    if isinstance(values, xr.Dataset):
        if not isinstance(var, str) or var not in values.data_vars:
            raise ValueError(
                f"var must name a variable of {name}; got {var!r} "
                f"(variables: {sorted(map(str, values.data_vars))})"
            )
        return values[var]
    if isinstance(values, xr.DataArray):
        return values
    raise TypeError(
        f"{name} must be an xarray Dataset or DataArray with named dims, got "
        f"{type(values).__name__} (wrap a NumPy table as xr.DataArray(table, "
        f"dims=('dataset', 'ensemble')))"
    )


def select_alpha(ds: xr.Dataset | xr.DataArray, alpha: float) -> xr.Dataset | xr.DataArray:
    """Take one alpha of an experiment result, keeping the ensembles that have no alpha.

    The experiment runner puts ensembles without an ``alpha`` parameter (Random Forest,
    Coalescence, ...) at ``alpha = NaN`` and leaves their other alphas empty, and vice versa.
    This selects, for every ensemble, its values at ``alpha`` when it has any there, else its
    values at ``alpha = NaN``; the ``alpha`` dim is dropped and a non-dim coordinate
    ``alpha`` on the ``ensemble`` dim records which alpha each ensemble contributed.

    Parameters
    ----------
    ds : xarray.Dataset or DataArray
        A result with dims ``ensemble`` and ``alpha``.
    alpha : float
        The alpha to take (an exact coordinate value).

    Returns
    -------
    xarray.Dataset or DataArray
        ``ds`` without the ``alpha`` dim.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([[0.1, 0.2, np.nan], [np.nan, np.nan, 0.3]],
    ...                   coords={"ensemble": ["Agg.", "RF"], "alpha": [0.0, 0.5, np.nan]})
    >>> select_alpha(da, 0.5).values.tolist()
    [0.2, 0.3]
    """
    if not isinstance(ds, xr.Dataset | xr.DataArray):
        raise TypeError(f"ds must be an xarray Dataset or DataArray, got {type(ds).__name__}")
    for dim in (_dims.ENSEMBLE, _dims.ALPHA):
        if dim not in ds.dims:
            raise ValueError(f"ds must have dims 'ensemble' and 'alpha', got {tuple(ds.dims)}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a number, got {alpha!r}")
    alphas = np.asarray(ds[_dims.ALPHA].values, dtype=np.float64)
    if not np.any(alphas == float(alpha)):
        raise ValueError(f"alpha={alpha} is not an alpha coordinate of ds ({alphas.tolist()})")
    at = int(np.flatnonzero(alphas == float(alpha))[0])
    nan_at = np.flatnonzero(np.isnan(alphas))
    probe = ds if isinstance(ds, xr.DataArray) else ds.to_array("variable")
    has = probe.notnull().any([d for d in probe.dims if d not in (_dims.ENSEMBLE, _dims.ALPHA)])
    picks = []
    for e in range(ds.sizes[_dims.ENSEMBLE]):
        if bool(has.isel({_dims.ENSEMBLE: e, _dims.ALPHA: at})) or nan_at.size == 0:
            picks.append(at)
        else:
            picks.append(int(nan_at[0]))
    index = xr.DataArray(picks, dims=_dims.ENSEMBLE)
    out = ds.isel({_dims.ALPHA: index})
    return out.assign_coords({_dims.ALPHA: (_dims.ENSEMBLE, alphas[picks])})


def collapse_alpha(da: xr.DataArray, dim_method: str, name: str = "errors") -> xr.DataArray:
    """Drop the ``alpha`` dim where every method has data at exactly one alpha.

    Experiment results keep ensembles without alpha at ``alpha = NaN``; a comparison of, say,
    Coalescence, Random Forest and a VR-Trees run at alpha = 0.5 then has one alpha per
    ensemble. Raises ``ValueError`` when some method has data at several alphas (the caller
    must choose one, e.g. with :func:`select_alpha`); ``name`` is the argument the messages
    name.
    """
    if _dims.ALPHA not in da.dims or dim_method == _dims.ALPHA:
        return da
    if da.sizes[_dims.ALPHA] == 1:
        return da.isel({_dims.ALPHA: 0}, drop=True)
    if dim_method not in da.dims:
        raise ValueError(f"{name} has no dim {dim_method!r} (dims {tuple(da.dims)})")
    others = [d for d in da.dims if d not in (dim_method, _dims.ALPHA)]
    has = da.notnull().any(others) if others else da.notnull()
    n_per_method = has.sum(_dims.ALPHA)
    if bool((n_per_method > 1).any()):
        counts = n_per_method.transpose(dim_method).values
        many = [str(m) for m, n in zip(da[dim_method].values, counts, strict=True) if n > 1]
        raise ValueError(
            f"{name} has dim 'alpha' and the methods {many} have values at several alphas; "
            "select one first (da.sel(alpha=0.5), or treelab.stats.select_alpha(ds, 0.5) "
            "to keep the ensembles without alpha)"
        )
    picks = np.argmax(has.transpose(dim_method, _dims.ALPHA).values, axis=1)
    index = xr.DataArray(picks, dims=dim_method)
    return da.isel({_dims.ALPHA: index}, drop=True)


def value_table(
    values: Any,
    *,
    var: str,
    dim_dataset: str,
    dim_method: str,
    name: str = "errors",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The (dataset x method) table of a measure, with its coordinates.

    Steps: take ``var`` from a Dataset; average over ``repeat`` and ``fold`` (one value per
    data set and method, as in Demsar 2006); collapse ``alpha`` where each method has one
    (:func:`collapse_alpha`); squeeze other dims of size 1; drop methods with no value at all
    (listed in the returned names). Any other dim, or a missing value left in the table, is a
    ``ValueError``.

    Returns
    -------
    table : ndarray, (n_datasets, n_methods)
    dataset_coord, method_coord : ndarray
    dropped : list of str
        Methods without any value, left out.
    """
    dim_dataset = check_dim_name(dim_dataset, "dim_dataset")
    dim_method = check_dim_name(dim_method, "dim_method")
    if dim_dataset == dim_method:
        raise ValueError("dim_dataset and dim_method must differ")
    da = to_dataarray_input(values, name, var)
    for dim, arg in ((dim_dataset, "dim_dataset"), (dim_method, "dim_method")):
        if dim not in da.dims:
            raise ValueError(f"{arg}={dim!r} is not a dim of {name} (dims {tuple(da.dims)})")
    if da.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold numbers, got dtype {da.dtype}")
    mean_dims = [d for d in RESAMPLING_DIMS if d in da.dims and d not in (dim_dataset, dim_method)]
    if mean_dims:
        da = da.mean(mean_dims, skipna=False)
    da = collapse_alpha(da, dim_method)
    extra = [d for d in da.dims if d not in (dim_dataset, dim_method)]
    big = [d for d in extra if da.sizes[d] > 1]
    if big:
        raise ValueError(
            f"{name} has dims {big} besides {dim_dataset!r} and {dim_method!r}; select one "
            f"value of each first (e.g. .sel({big[0]}=...))"
        )
    if extra:
        da = da.isel({d: 0 for d in extra}, drop=True)
    da = da.transpose(dim_dataset, dim_method).astype(np.float64)
    empty = da.isnull().all(dim_dataset).values
    dropped = [str(m) for m in np.asarray(da[dim_method].values)[empty]]
    if empty.any():
        da = da.isel({dim_method: ~empty})
    table = np.asarray(da.values)
    if not np.all(np.isfinite(table)):
        bad = np.argwhere(~np.isfinite(table))[0]
        raise ValueError(
            f"{name} has a missing or infinite value at {dim_dataset}="
            f"{da[dim_dataset].values[bad[0]]!r}, {dim_method}={da[dim_method].values[bad[1]]!r}"
        )
    return (
        table,
        np.asarray(da[dim_dataset].values),
        np.asarray(da[dim_method].values),
        dropped,
    )


def build(
    variables: Mapping[str, Var],
    *,
    function: str,
    params: Mapping[str, Any],
    coords: Mapping[str, Any] | None = None,
    cite: Sequence[str] = (),
) -> xr.Dataset:
    """Assemble a result through :func:`treelab.analysis._dataset.to_dataset`, stamped with
    ``function = "treelab.stats.<function>"`` (method dims may be any name, so dim names are
    not restricted to :mod:`treelab._dims`)."""
    ds = to_dataset(variables, function=function, params=params, coords=coords, check_dims=False)
    cites = [v.cite for v in variables.values()] + list(cite)
    ds.attrs.update(make_attrs(f"treelab.stats.{function}", params, cites))
    return ds
