"""Paired tests of two methods: per data set over folds, and on one test set.

* :func:`wilcoxon_holm`: Wilcoxon signed-rank test of the fold-wise differences on every data
  set, with Holm's step-down correction over the data sets;
* :func:`corrected_resampled_t`: the Nadeau-Bengio corrected resampled t test for repeated
  cross-validation (or repeated hold-out), per data set;
* :func:`mcnemar`: McNemar's test of two classifiers' predictions on one test set.

The distributions and the correction come from scipy and statsmodels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.stats
import xarray as xr
from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar

from treelab import _dims
from treelab.analysis._dataset import Var
from treelab.analysis._inputs import align_to, index_coords
from treelab.stats._common import (
    build,
    check_dim_name,
    check_paired_values,
    check_significance,
    holm_step_down,
    to_dataarray_input,
)
from treelab.stats._cv import _align_alpha
from treelab.stats._signed_rank import rank_sums, signed_rank

__all__ = ["corrected_resampled_t", "mcnemar", "wilcoxon_holm"]

CITE_WILCOXON = "Wilcoxon (1945), Individual comparisons by ranking methods, Biometrics 1"
CITE_HOLM = "Holm (1979), A simple sequentially rejective multiple test procedure, Scand. J. Stat."
CITE_NADEAU_BENGIO = (
    "Nadeau & Bengio (2003), Inference for the generalization error, Machine Learning 52; "
    "Bouckaert & Frank (2004), Evaluating the replicability of significance tests, PAKDD"
)
CITE_MCNEMAR = (
    "McNemar (1947), Note on the sampling error of the difference between correlated "
    "proportions, Psychometrika 12; Dietterich (1998), Neural Computation 10, section 3.1"
)
_RESAMPLING = (_dims.REPEAT, _dims.FOLD)


def _paired_differences(
    results: Any, a: Any, b: Any, *, dim_method: str, var: str
) -> xr.DataArray:
    """value(a) - value(b) with the resampling dims (repeat, fold) stacked last as one."""
    dim_method = check_dim_name(dim_method, "dim_method")
    da = to_dataarray_input(results, "results", var)
    if dim_method not in da.dims:
        raise ValueError(f"results has no dim {dim_method!r} (dims {tuple(da.dims)})")
    res = [d for d in _RESAMPLING if d in da.dims]
    if not res:
        raise ValueError(f"results must have a 'repeat' or 'fold' dim to pair over; got "
                         f"{tuple(da.dims)}")
    if da.dtype.kind not in "fiub":
        raise TypeError(f"results must hold numbers, got dtype {da.dtype}")
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
    others = [d for d in diff.dims if d not in res]
    diff = check_paired_values(diff.transpose(*others, *res).astype(np.float64))
    return diff.stack(_pair=res).drop_vars([*res, "_pair"], errors="ignore")


def _outer(diff: xr.DataArray) -> tuple[tuple[str, ...], dict]:
    dims = tuple(str(d) for d in diff.dims if d != "_pair")
    return dims, {d: diff[d].values for d in dims if d in diff.indexes}


def wilcoxon_holm(
    results: xr.Dataset | xr.DataArray,
    a: Any,
    b: Any,
    *,
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    significance: float = 0.05,
) -> xr.Dataset:
    """Wilcoxon signed-rank test of ``a`` against ``b`` per data set, Holm-corrected.

    On every coordinate of the other dims (one test per data set, alpha, ...) the differences
    d_j = value(a) - value(b) over the J resamples (``repeat`` x ``fold``) are tested with the
    two-sided Wilcoxon signed-rank test (``scipy.stats.wilcoxon``'s p-values: zero differences
    dropped as in Wilcoxon's procedure; the exact null distribution for small J, counted by
    ``_signed_rank.signed_rank`` where scipy enumerates the sign flips). Holm's
    step-down procedure (``statsmodels.stats.multitest.multipletests(method="holm")``'s
    adjusted p-values) then controls the family-wise error over all the tests: a test is
    significant where ``p_holm < significance`` (strictly, as every test of the package).
    All differences zero gives p = 1.

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        Values with dims ``dim_method`` and ``repeat`` and/or ``fold``; other dims (usually
        ``dataset``) give one test each. A missing or infinite value of ``a`` or ``b`` is
        refused, naming where it is.
    a, b : coordinate values
        The two methods.
    dim_method : str, default "ensemble"
        Dim holding the methods.
    var : str, default "ensemble_error"
        Variable taken when ``results`` is a Dataset.
    significance : float, default 0.05
        Family-wise level of the Holm procedure.

    Returns
    -------
    xarray.Dataset
        ``statistic`` (Wilcoxon's W, the smaller signed-rank sum), ``p_value`` (unadjusted),
        ``p_holm`` (adjusted), ``significant`` (Holm rejects: ``p_holm < significance``),
        ``median_difference``, ``rank_sum_positive`` and ``rank_sum_negative`` (R+ and R-,
        Wilcoxon's rank sums: where the test rejects, a's values are the larger when R+ >
        R-; the median difference can have the other sign).

    References
    ----------
    Wilcoxon (1945); Holm (1979); Demsar (2006), section 3.1.3.
    """
    significance = check_significance(significance)
    diff = _paired_differences(results, a, b, dim_method=dim_method, var=var)
    dims, coords = _outer(diff)
    d = diff.values.reshape(-1, diff.sizes["_pair"])
    stat = np.full(d.shape[0], np.nan)
    pval = np.ones(d.shape[0])
    sums = np.zeros((d.shape[0], 2))
    for i, row in enumerate(d):
        if np.any(row != 0):
            stat[i], pval[i] = signed_rank(row)
            sums[i] = rank_sums(row)
    p_holm, reject = holm_step_down(pval, significance)
    shape = diff.shape[:-1]
    cite = f"{CITE_WILCOXON}; {CITE_HOLM}"
    variables = {
        "statistic": Var(dims, stat.reshape(shape), "Wilcoxon signed-rank statistic W",
                         units="", cite=CITE_WILCOXON),
        "p_value": Var(dims, pval.reshape(shape), "two-sided p-value (unadjusted)",
                       valid_range=(0.0, 1.0), cite=CITE_WILCOXON),
        "p_holm": Var(dims, p_holm.reshape(shape), "Holm-adjusted p-value",
                      valid_range=(0.0, 1.0), cite=cite),
        "significant": Var(dims, reject.reshape(shape), "1 where Holm rejects at significance",
                           units="", cite=cite),
        "median_difference": Var(dims, np.median(d, axis=1).reshape(shape),
                                 "median of value(a) - value(b)", units="", cite=cite),
        "rank_sum_positive": Var(dims, sums[:, 0].reshape(shape), "R+: sum of the ranks of "
                                 "|d| over the differences value(a) - value(b) > 0", units="",
                                 cite=CITE_WILCOXON),
        "rank_sum_negative": Var(dims, sums[:, 1].reshape(shape), "R-: sum of the ranks of "
                                 "|d| over the differences value(a) - value(b) < 0", units="",
                                 cite=CITE_WILCOXON),
    }
    params = {"a": a, "b": b, "dim_method": dim_method, "var": var,
              "significance": significance}
    return build(variables, function="wilcoxon_holm", params=params, coords=coords)


def corrected_resampled_t(
    results: xr.Dataset | xr.DataArray,
    a: Any,
    b: Any,
    *,
    test_fraction: float,
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    significance: float = 0.05,
) -> xr.Dataset:
    """Nadeau & Bengio's corrected resampled t test of ``a`` against ``b``.

    With J paired differences d_j = value(a) - value(b) over the resamples (``repeat`` x
    ``fold``), mean d_bar and sample variance s^2 (ddof 1):
    t = d_bar / sqrt((1/J + n_test/n_train) s^2), Student t with J - 1 degrees of freedom.
    The term n_test/n_train corrects the variance for the overlap of the training sets;
    for k-fold cross-validation n_test/n_train = 1/(k-1) (Bouckaert & Frank's corrected
    repeated k-fold cv test). Two-sided.

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        Values with dims ``dim_method`` and ``repeat`` and/or ``fold``; a missing or
        infinite value of ``a`` or ``b`` is refused (as by :func:`wilcoxon_holm`).
    a, b : coordinate values
        The two methods.
    test_fraction : float
        n_test / (n_train + n_test), the share of rows held out per resample (1/k for k-fold).
    dim_method, var, significance
        As for :func:`wilcoxon_holm`.

    Returns
    -------
    xarray.Dataset
        ``t``, ``p_value``, ``significant``, ``mean_difference``; scalar ``df`` (J - 1).
        s^2 = 0 gives t = +-inf (p = 0) or NaN (0 / 0).

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52, 239-281; Bouckaert & Frank (2004).
    """
    significance = check_significance(significance)
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, int | float):
        raise TypeError(f"test_fraction must be a number in (0, 1), got {test_fraction!r}")
    if not 0.0 < float(test_fraction) < 1.0:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    ratio = float(test_fraction) / (1.0 - float(test_fraction))
    diff = _paired_differences(results, a, b, dim_method=dim_method, var=var)
    dims, coords = _outer(diff)
    d = diff.values
    n = d.shape[-1]
    if n < 2:
        raise ValueError(f"results must hold at least 2 resamples; got {n}")
    mean = d.mean(axis=-1)
    s2 = d.var(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt((1.0 / n + ratio) * s2)
    pval = 2.0 * scipy.stats.t.sf(np.abs(t), n - 1)
    cite = CITE_NADEAU_BENGIO
    variables = {
        "t": Var(dims, t, "corrected resampled t statistic", units="", cite=cite),
        "p_value": Var(dims, pval, "two-sided p-value", valid_range=(0.0, 1.0), cite=cite),
        "significant": Var(dims, pval < significance, "1 where p_value < significance",
                           units="", cite=cite),
        "mean_difference": Var(dims, mean, "mean of value(a) - value(b)", units="", cite=cite),
        "df": Var((), n - 1, "degrees of freedom J - 1", units="", cite=cite),
    }
    params = {"a": a, "b": b, "dim_method": dim_method, "var": var,
              "significance": significance, "test_fraction": float(test_fraction)}
    return build(variables, function="corrected_resampled_t", params=params, coords=coords)


def mcnemar(
    pred_a: Any, pred_b: Any, y: Any, *, exact: bool | None = None, significance: float = 0.05
) -> xr.Dataset:
    """McNemar's test of two classifiers on one test set.

    With n01 the rows ``a`` gets wrong and ``b`` right and n10 the reverse, the exact test is
    the two-sided binomial test of n01 against Bin(n01 + n10, 1/2)
    (``statsmodels.stats.contingency_tables.mcnemar``); the asymptotic one uses

        chi^2 = max(|n01 - n10| - 1, 0)^2 / (n01 + n10)

    with one degree of freedom (continuity corrected, as recommended by Dietterich 1998). The
    correction shrinks |n01 - n10| towards 0 but never past it (Yates: |O - E| less 1/2, not
    below 0; R's ``mcnemar.test`` skips it where n01 = n10): n01 = n10 is no evidence at all,
    chi^2 = 0 and p = 1, where the bare formula would give 1 / (n01 + n10) (p = 0.84 for
    n01 = n10 = 13). No discordant row (n01 + n10 = 0) gives ``statistic`` NaN and p = 1.

    Parameters
    ----------
    pred_a, pred_b : array-like, (sample,)
        Labels predicted by the two classifiers.
    y : array-like, (sample,)
        True labels. DataArrays are paired by their ``sample`` labels (reordered when in
        another order, refused when different), not by position; plain arrays are read in the
        row order of the first DataArray argument.
    exact : bool, optional
        Binomial test (default when n01 + n10 < 25) or chi-squared.
    significance : float, default 0.05
        Level reported in ``significant``.

    Returns
    -------
    xarray.Dataset
        ``n01``, ``n10``, ``statistic``, ``p_value``, ``significant``, ``exact``.

    References
    ----------
    McNemar (1947); Dietterich (1998), section 3.1.
    """
    significance = check_significance(significance)
    arrs, labels = [], []
    names = ("pred_a", "pred_b", "y")
    for name, val in zip(names, (pred_a, pred_b, y), strict=True):
        arr = np.asarray(val.values if isinstance(val, xr.DataArray) else val)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-d (sample,), got shape {arr.shape}")
        arrs.append(arr)
        labels.append(index_coords(val))
    if not arrs[0].shape == arrs[1].shape == arrs[2].shape:
        raise ValueError(f"pred_a, pred_b and y must have equal lengths, got "
                         f"{[a.size for a in arrs]}")
    # rows paired by their sample labels, never by position (docs/measures/correctness.md):
    # every labelled argument is put in the order of the first one, which plain arrays follow
    ref = next((i for i in range(3) if _dims.SAMPLE in labels[i]), None)
    if ref is not None:
        for i in range(3):
            if i != ref:
                arrs[i] = align_to(arrs[i], labels[i], labels[ref], names[i], names[ref],
                                   (_dims.SAMPLE,))
    if exact is not None and not isinstance(exact, bool):
        raise TypeError(f"exact must be True, False or None, got {exact!r}")
    right_a, right_b = arrs[0] == arrs[2], arrs[1] == arrs[2]
    n01 = int(np.sum(~right_a & right_b))
    n10 = int(np.sum(right_a & ~right_b))
    use_exact = (n01 + n10 < 25) if exact is None else exact
    table = [[int(np.sum(right_a & right_b)), n10], [n01, int(np.sum(~right_a & ~right_b))]]
    if n01 + n10 == 0:
        stat, pval = np.nan, 1.0
    elif use_exact:
        res = _sm_mcnemar(table, exact=True)
        stat, pval = float(res.statistic), float(res.pvalue)
    else:
        # statsmodels' (|n01 - n10| - 1)^2 over-corrects n01 = n10 to a positive statistic
        stat = max(abs(n01 - n10) - 1, 0) ** 2 / (n01 + n10)
        pval = float(scipy.stats.chi2.sf(stat, 1))
    cite = CITE_MCNEMAR
    variables = {
        "n01": Var((), n01, "rows a gets wrong and b right", units="", cite=cite),
        "n10": Var((), n10, "rows a gets right and b wrong", units="", cite=cite),
        "statistic": Var((), stat, "binomial count min(n01, n10) or chi-squared", units="",
                         cite=cite),
        "p_value": Var((), pval, "two-sided p-value", valid_range=(0.0, 1.0), cite=cite),
        "significant": Var((), pval < significance, "1 where p_value < significance", units="",
                           cite=cite),
        "exact": Var((), use_exact, "1 for the binomial test", units="", cite=cite),
    }
    return build(variables, function="mcnemar",
                 params={"exact": exact, "significance": significance})
