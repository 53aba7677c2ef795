"""Paired tests of two methods on one data set from 5x2 cross-validation.

Five replications of 2-fold cross-validation (protocol ``"5x2"`` of :mod:`treelab.protocols`)
give, for replication i and fold j, the difference p_i^(j) = e_A - e_B of the two methods'
error rates on the same test half. With p_bar_i = (p_i^(1) + p_i^(2)) / 2 and the variance
estimate s_i^2 = (p_i^(1) - p_bar_i)^2 + (p_i^(2) - p_bar_i)^2:

* Dietterich's (1998) 5x2cv paired t statistic t = p_1^(1) / sqrt((1/5) sum_i s_i^2), t with
  5 degrees of freedom;
* Alpaydin's (1999) combined 5x2cv F statistic f = sum_i sum_j (p_i^(j))^2 / (2 sum_i s_i^2),
  F with 10 and 5 degrees of freedom.

Both are computed for every coordinate of the result's other dims (data sets, alphas, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.stats
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import Var
from treelab.stats._common import (
    CITE_ALPAYDIN,
    CITE_DIETTERICH,
    build,
    check_dim_name,
    check_paired_values,
    check_significance,
    to_dataarray_input,
)

__all__ = ["five_by_two_cv_f", "five_by_two_cv_t"]


def _differences(
    results: Any, a: Any, b: Any, *, dim_method: str, var: str
) -> tuple[xr.DataArray, int]:
    """p_i^(j) = value(a) - value(b) as a DataArray with dims (..., repeat, fold)."""
    dim_method = check_dim_name(dim_method, "dim_method")
    da = to_dataarray_input(results, "results", var)
    for dim in (dim_method, _dims.REPEAT, _dims.FOLD):
        if dim not in da.dims:
            raise ValueError(f"results must have the dims {dim_method!r}, 'repeat' and 'fold' "
                             f"of a 5x2 cross-validation; got {tuple(da.dims)}")
    if da.dtype.kind not in "fiub":
        raise TypeError(f"results must hold numbers, got dtype {da.dtype}")
    if da.sizes[_dims.FOLD] != 2:
        raise ValueError(f"results must hold 2 folds per repeat (2-fold CV); got "
                         f"{da.sizes[_dims.FOLD]}")
    n_rep = da.sizes[_dims.REPEAT]
    if n_rep < 2:
        raise ValueError(f"results must hold at least 2 repeats (5 in the source); got {n_rep}")
    methods = list(np.asarray(da[dim_method].values))
    for name, value in (("a", a), ("b", b)):
        if not any(m == value for m in methods):
            raise ValueError(f"{name}={value!r} is not a coordinate of {dim_method!r} "
                             f"({methods})")
    if a == b:
        raise ValueError(f"a and b must be two different methods; got {a!r} twice")
    pair = da.sel({dim_method: [a, b]})
    if _dims.ALPHA in pair.dims and dim_method != _dims.ALPHA:
        pair = _align_alpha(pair, dim_method)
    diff = pair.isel({dim_method: 0}, drop=True) - pair.isel({dim_method: 1}, drop=True)
    others = [d for d in diff.dims if d not in (_dims.REPEAT, _dims.FOLD)]
    diff = diff.transpose(*others, _dims.REPEAT, _dims.FOLD).astype(np.float64)
    return check_paired_values(diff), n_rep


def _align_alpha(pair: xr.DataArray, dim_method: str) -> xr.DataArray:
    """Give both methods the same alphas: each one's only alpha (e.g. Random Forest at NaN
    against VR-Trees at 0.5), or their common alphas when both were swept."""
    others = [d for d in pair.dims if d not in (dim_method, _dims.ALPHA)]
    has = pair.notnull().any(others).transpose(dim_method, _dims.ALPHA).values
    counts = has.sum(axis=1)
    if np.all(counts == 1):
        index = xr.DataArray(np.argmax(has, axis=1), dims=dim_method)
        return pair.isel({_dims.ALPHA: index}, drop=True)
    if np.array_equal(has[0], has[1]):
        return pair.isel({_dims.ALPHA: np.flatnonzero(has[0])})
    raise ValueError("a and b have values at different alphas; select one first "
                     "(results.sel(alpha=...), or treelab.stats.select_alpha)")


def _variance_terms(p: np.ndarray) -> np.ndarray:
    """s_i^2 = sum_j (p_i^(j) - p_bar_i)^2 over the last axis (the 2 folds)."""
    return np.sum((p - p.mean(axis=-1, keepdims=True)) ** 2, axis=-1)


def five_by_two_cv_t(
    results: xr.Dataset | xr.DataArray,
    a: Any,
    b: Any,
    *,
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    significance: float = 0.05,
) -> xr.Dataset:
    """Dietterich's 5x2cv paired t test of methods ``a`` and ``b``.

    t = p_1^(1) / sqrt((1/r) sum_i s_i^2), Student t with r degrees of freedom (r = 5
    replications in the source), where p_i^(j) = value(a) - value(b) on fold j of replication
    i, p_bar_i their mean over the two folds and s_i^2 = sum_j (p_i^(j) - p_bar_i)^2. Only the
    first fold's difference enters the numerator: Dietterich shows that p_1^(1) and the s_i^2
    are independent under the null hypothesis, which makes t exact in distribution. The
    first replication and fold are those of the smallest ``repeat`` and ``fold`` labels (the
    runner's 0 and 0), whatever order the result stores them in (positions where a dim has no
    labels). The test is two-sided; a positive t means ``a`` has the larger value (the higher
    error).

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        Values with dims ``dim_method``, ``repeat`` (r >= 2) and ``fold`` (exactly 2), e.g. a
        :func:`treelab.experiment.run` result with protocol ``{"name": "5x2"}``. Other dims
        (``dataset``, ...) are kept: one test per coordinate. An ``alpha`` dim is aligned as
        in :func:`treelab.stats.friedman`. A missing or infinite value of ``a`` or ``b`` is
        refused, naming where it is (it would make the statistic NaN and the decision "not
        significant").
    a, b : coordinate values
        The two methods (coordinates of ``dim_method``).
    dim_method : str, default "ensemble"
        Dim holding the methods.
    var : str, default "ensemble_error"
        Variable taken when ``results`` is a Dataset.
    significance : float, default 0.05
        Level of the two-sided test reported in ``significant``.

    Returns
    -------
    xarray.Dataset
        Over the remaining dims: ``t``, ``p_value`` (two-sided), ``significant``,
        ``mean_difference`` (mean of p_i^(j)), ``variance_estimate`` ((1/r) sum_i s_i^2);
        scalar ``df`` (r). All variance terms 0 gives t = +-inf (p = 0) or NaN (0 / 0).

    References
    ----------
    Dietterich (1998), Approximate statistical tests for comparing supervised classification
    learning algorithms, Neural Computation 10(7), 1895-1923, section 3.5.
    """
    significance = check_significance(significance)
    diff, r = _differences(results, a, b, dim_method=dim_method, var=var)
    # p_1^(1) is named by the labels, not by where it is stored: a result selected or
    # concatenated in another order holds the same replications
    for dim in (_dims.REPEAT, _dims.FOLD):
        if dim in diff.indexes:
            diff = diff.sortby(dim)
    p = diff.values
    var_est = _variance_terms(p).mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = p[..., 0, 0] / np.sqrt(var_est)
    pval = 2.0 * scipy.stats.t.sf(np.abs(t), r)
    dims = tuple(d for d in diff.dims if d not in (_dims.REPEAT, _dims.FOLD))
    cite = CITE_DIETTERICH
    variables = {
        "t": Var(dims, t, "5x2cv paired t statistic", units="", cite=cite),
        "p_value": Var(dims, pval, "two-sided p-value of t", valid_range=(0.0, 1.0), cite=cite),
        "significant": Var(dims, pval < significance, "1 where p_value < significance",
                           units="", cite=cite),
        "mean_difference": Var(dims, p.mean(axis=(-2, -1)), "mean of value(a) - value(b) "
                               "over the 2r folds", units="", cite=cite),
        "variance_estimate": Var(dims, var_est, "(1/r) sum_i s_i^2", units="", cite=cite),
        "df": Var((), r, "degrees of freedom (replications r)", units="", cite=cite),
    }
    coords = {d: diff[d].values for d in dims if d in diff.indexes}
    params = {"a": a, "b": b, "dim_method": dim_method, "var": var,
              "significance": significance}
    return build(variables, function="five_by_two_cv_t", params=params, coords=coords)


def five_by_two_cv_f(
    results: xr.Dataset | xr.DataArray,
    a: Any,
    b: Any,
    *,
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    significance: float = 0.05,
) -> xr.Dataset:
    """Alpaydin's combined 5x2cv F test of methods ``a`` and ``b``.

    f = sum_i sum_j (p_i^(j))^2 / (2 sum_i s_i^2), F-distributed with 2r and r degrees of
    freedom (10 and 5 for r = 5), with p_i^(j) and s_i^2 as in :func:`five_by_two_cv_t`. It
    uses all ten differences instead of one, which makes it more robust than the t test
    (lower type I error, higher power). The test is two-sided by construction (f >= 0).

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        As for :func:`five_by_two_cv_t`.
    a, b : coordinate values
        The two methods.
    dim_method : str, default "ensemble"
        Dim holding the methods.
    var : str, default "ensemble_error"
        Variable taken when ``results`` is a Dataset.
    significance : float, default 0.05
        Level of the test reported in ``significant``.

    Returns
    -------
    xarray.Dataset
        Over the remaining dims: ``f``, ``p_value``, ``significant``, ``mean_difference``;
        scalars ``df1`` (2r) and ``df2`` (r). All variance terms 0 gives f = inf (p = 0) where
        some difference is not 0, and NaN (0 / 0, not significant) where all are 0.

    References
    ----------
    Alpaydin (1999), Combined 5 x 2 cv F test for comparing supervised classification
    learning algorithms, Neural Computation 11(8), 1885-1892.
    """
    significance = check_significance(significance)
    diff, r = _differences(results, a, b, dim_method=dim_method, var=var)
    p = diff.values
    num = np.sum(p**2, axis=(-2, -1))
    den = 2.0 * _variance_terms(p).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = num / den
    pval = scipy.stats.f.sf(f, 2 * r, r)
    dims = tuple(d for d in diff.dims if d not in (_dims.REPEAT, _dims.FOLD))
    cite = CITE_ALPAYDIN
    variables = {
        "f": Var(dims, f, "combined 5x2cv F statistic", units="", cite=cite),
        "p_value": Var(dims, pval, "p-value of f", valid_range=(0.0, 1.0), cite=cite),
        "significant": Var(dims, pval < significance, "1 where p_value < significance",
                           units="", cite=cite),
        "mean_difference": Var(dims, p.mean(axis=(-2, -1)), "mean of value(a) - value(b) "
                               "over the 2r folds", units="", cite=cite),
        "df1": Var((), 2 * r, "numerator degrees of freedom (2r)", units="", cite=cite),
        "df2": Var((), r, "denominator degrees of freedom (r)", units="", cite=cite),
    }
    coords = {d: diff[d].values for d in dims if d in diff.indexes}
    params = {"a": a, "b": b, "dim_method": dim_method, "var": var,
              "significance": significance}
    return build(variables, function="five_by_two_cv_f", params=params, coords=coords)
