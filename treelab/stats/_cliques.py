"""Pairwise comparisons over data sets that do not depend on the pool of methods.

Mean-rank post-hoc tests (Nemenyi, Bonferroni-Dunn) decide whether two methods differ from
their average ranks, and those ranks move when methods are added to or removed from the
comparison: the same two methods can differ in one pool and not in another (Benavoli, Corani
& Mangili 2016). Pairwise tests of the two methods' values over the data sets do not have this
defect, so they are the default of critical-difference diagrams here (as in aeon):

* :func:`pairwise_over_datasets`: a Wilcoxon signed-rank (or sign) test of every pair of
  methods over the data sets, Holm's step-down correction over all pairs;
* :func:`holm_control`: every method against one control, Holm-corrected over the k - 1
  comparisons (Demsar 2006, section 3.2.2);
* :func:`pairwise_p_values`: any p-value matrix (e.g. from scikit-posthocs) turned into a
  result :func:`treelab.plot.critical_difference` draws;
* :func:`significance_cliques`: the groups such a diagram joins with a bar.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.stats
import xarray as xr

from treelab.analysis._dataset import Var
from treelab.stats._common import CITE_DEMSAR, build, check_significance, holm_step_down
from treelab.stats._paired import CITE_HOLM, CITE_WILCOXON
from treelab.stats._ranks import VERSUS, _Ranks
from treelab.stats._signed_rank import signed_rank

__all__ = ["holm_control", "pairwise_over_datasets", "pairwise_p_values",
           "significance_cliques"]

CITE_POOL = (
    "Benavoli, Corani & Mangili (2016), Should we really use post-hoc tests based on "
    "mean-ranks?, JMLR 17(5)"
)
#: test name -> what a caption says of it
PAIR_TESTS = {
    "wilcoxon": "two-sided Wilcoxon signed-rank test over the data sets",
    "sign": "two-sided sign test over the data sets (ties split evenly, Demsar 2006)",
}
MISSING_RULES = ("refuse", "drop_datasets")


def _pair_p_value(d: np.ndarray, test: str) -> float:
    """Two-sided p-value of the paired differences ``d`` (one per data set)."""
    if test == "wilcoxon":
        if not np.any(d != 0):
            return 1.0
        return signed_rank(d)[1]
    wins, losses = int(np.sum(d < 0)), int(np.sum(d > 0))
    half_ties = int(np.sum(d == 0)) // 2  # Demsar: ties split evenly, an odd one ignored
    n = wins + losses + 2 * half_ties
    if n == 0:
        return 1.0
    return float(scipy.stats.binomtest(wins + half_ties, n, 0.5).pvalue)


def _check_test(test: Any) -> str:
    if test not in PAIR_TESTS:
        raise ValueError(f"test must be one of {sorted(PAIR_TESTS)}, got {test!r}")
    return test


def _table_without_missing(errors: Any, *, dim_dataset: str, dim_method: str, var: str,
                           missing: str) -> tuple[Any, list[str]]:
    """The values with data sets that miss a method removed (``missing="drop_datasets"``),
    and the names of the removed data sets; ``"refuse"`` leaves the refusal to the ranks."""
    if missing not in MISSING_RULES:
        raise ValueError(f"missing must be one of {MISSING_RULES}, got {missing!r}")
    if missing == "refuse":
        return errors, []
    from treelab.stats._common import collapse_alpha, to_dataarray_input

    da = to_dataarray_input(errors, "errors", var)
    for dim, arg in ((dim_dataset, "dim_dataset"), (dim_method, "dim_method")):
        if dim not in da.dims:
            raise ValueError(f"{arg}={dim!r} is not a dim of errors (dims {tuple(da.dims)})")
    mean_dims = [d for d in ("repeat", "fold") if d in da.dims]
    table = collapse_alpha(da.mean(mean_dims, skipna=False) if mean_dims else da, dim_method)
    has_any = table.notnull().any(dim_dataset)
    if has_any.ndim == 1:  # a method without any value is left out, as value_table does
        table = table.isel({dim_method: has_any.values})
    others = [d for d in table.dims if d != dim_dataset]
    complete = table.notnull().all(others).values
    dropped = [str(v) for v in np.asarray(table[dim_dataset].values)[~complete]]
    return table.isel({dim_dataset: complete}), dropped


def pairwise_over_datasets(
    errors: xr.Dataset | xr.DataArray,
    *,
    test: str = "wilcoxon",
    significance: float = 0.05,
    missing: str = "refuse",
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> xr.Dataset:
    """Every pair of methods tested over the data sets, Holm-corrected over the pairs.

    For methods i and j the per-data-set values (averaged over ``repeat`` and ``fold``) give
    differences d_n = value_i - value_j over the N data sets (0 where the two differ only by
    floating-point rounding, as in :func:`treelab.stats.friedman`), tested with the two-sided
    Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, zero differences dropped; all zero
    gives p = 1) or the sign test (exact binomial, ties split evenly between the two methods,
    Demsar 2006, 3.2.1). Holm's step-down procedure controls the family-wise error over the
    k (k - 1) / 2 pairs: with the p-values sorted, the i-th smallest is rejected while
    p_(i) < alpha / (m - i + 1) for it and all before it, i.e. where ``p_holm <
    significance`` (strictly, as :func:`pairwise_p_values` decides). The decision about i
    and j depends on their values only, not on which other methods are compared (Benavoli,
    Corani & Mangili 2016), unlike Nemenyi's.

    Average ranks (for the diagram's axis) are Demsar's, as in :func:`treelab.stats.friedman`.
    Missing cells: ``missing="refuse"`` (the default) refuses them, because an average rank
    over the data sets a method happens to have is not comparable with one over all of them;
    ``"drop_datasets"`` compares on the data sets where every method has a value and lists the
    dropped ones in the ``dropped_datasets`` attr.

    Parameters
    ----------
    errors : xarray.Dataset or DataArray
        As for :func:`treelab.stats.friedman`.
    test : {"wilcoxon", "sign"}, default "wilcoxon"
        The paired test of two methods over the data sets.
    significance : float, default 0.05
        Family-wise level of the Holm procedure.
    missing : {"refuse", "drop_datasets"}, default "refuse"
        What to do with data sets where some method has no value.
    dim_dataset, dim_method, var, greater_is_better
        As for :func:`treelab.stats.friedman`.

    Returns
    -------
    xarray.Dataset
        ``average_rank``, ``mean_value`` (method), ``rank`` (dataset, method), and over
        (method, ``versus``): ``p_value`` (unadjusted), ``p_holm`` and ``significant`` (Holm
        rejects); attrs ``test`` and ``dropped_datasets``.

    References
    ----------
    Wilcoxon (1945); Holm (1979); Demsar (2006); Benavoli, Corani & Mangili (2016).

    Examples
    --------
    >>> import xarray as xr
    >>> errors = xr.DataArray([[0.10, 0.20], [0.12, 0.25], [0.30, 0.33], [0.05, 0.08],
    ...                        [0.20, 0.26], [0.15, 0.19]], dims=("dataset", "ensemble"),
    ...                       coords={"ensemble": ["A", "B"]})
    >>> float(pairwise_over_datasets(errors).p_holm.sel(ensemble="A", versus="B"))
    0.03125
    """
    test = _check_test(test)
    significance = check_significance(significance)
    values, dropped_sets = _table_without_missing(
        errors, dim_dataset=dim_dataset, dim_method=dim_method, var=var, missing=missing)
    r = _Ranks(values, dim_dataset=dim_dataset, dim_method=dim_method, var=var,
               greater_is_better=greater_is_better)
    k = r.k
    p = np.ones((k, k))
    upper = [(i, j) for i in range(k) for j in range(i + 1, k)]
    for i, j in upper:
        p[i, j] = p[j, i] = _pair_p_value(r.snapped[:, i] - r.snapped[:, j], test)
    raw = np.array([p[i, j] for i, j in upper])
    adjusted, reject = holm_step_down(raw, significance)
    p_holm = np.ones((k, k))
    sig = np.zeros((k, k), dtype=bool)
    for (i, j), q, rej in zip(upper, adjusted, reject, strict=True):
        p_holm[i, j] = p_holm[j, i] = q
        sig[i, j] = sig[j, i] = rej
    m = r.dim_method
    cite = f"{CITE_WILCOXON}; {CITE_HOLM}; {CITE_POOL}"
    variables = r.rank_vars()
    variables.update({
        "p_value": Var((m, VERSUS), p, f"unadjusted p-value of the {test} test of the pair",
                       valid_range=(0.0, 1.0), cite=cite),
        "p_holm": Var((m, VERSUS), p_holm, "Holm-adjusted p-value over all pairs",
                      valid_range=(0.0, 1.0), cite=cite),
        "significant": Var((m, VERSUS), sig, "1 where Holm rejects equality of the pair",
                           units="", cite=cite),
    })
    ds = build(variables, function="pairwise_over_datasets",
               params=r.params(test=test, significance=significance, missing=missing,
                               dropped_datasets=dropped_sets),
               coords=r.coords(), cite=[CITE_DEMSAR])
    ds.attrs["test"] = f"{PAIR_TESTS[test]}, Holm-corrected over all pairs"
    ds.attrs["dropped_datasets"] = ", ".join(dropped_sets)
    return ds


def holm_control(
    errors: xr.Dataset | xr.DataArray,
    *,
    control: Any,
    test: str = "wilcoxon",
    significance: float = 0.05,
    missing: str = "refuse",
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> xr.Dataset:
    """Every method against a control, Holm-corrected over the k - 1 comparisons.

    ``test="wilcoxon"`` or ``"sign"`` tests the control's values against each method's over
    the data sets (see :func:`pairwise_over_datasets`); ``test="ranks"`` is Demsar's
    (2006, 3.2.2) z = (R_j - R_control) / sqrt(k (k + 1) / (6 N)) on the average ranks, which
    depends on the pool. Holm: with the k - 1 p-values sorted p_(1) <= ... the i-th
    hypothesis is rejected while p_(i) < alpha / (k - i) for it and all before it (strictly:
    ``significant`` is ``p_holm < significance``, as in :func:`pairwise_p_values`).

    Parameters
    ----------
    errors : xarray.Dataset or DataArray
        As for :func:`treelab.stats.friedman`.
    control : coordinate value
        The control method.
    test : {"wilcoxon", "sign", "ranks"}, default "wilcoxon"
        The comparison of two methods.
    significance, missing, dim_dataset, dim_method, var, greater_is_better
        As for :func:`pairwise_over_datasets`.

    Returns
    -------
    xarray.Dataset
        ``average_rank``, ``mean_value``, ``rank``, and per method: ``p_value``,
        ``p_holm`` and ``significant`` (0 and p = 1 for the control); attrs ``control``,
        ``test``.

    Examples
    --------
    >>> import xarray as xr
    >>> errors = xr.DataArray([[0.10, 0.20, 0.11], [0.12, 0.25, 0.13], [0.30, 0.33, 0.29],
    ...                        [0.05, 0.08, 0.06], [0.20, 0.26, 0.21], [0.15, 0.19, 0.14],
    ...                        [0.22, 0.27, 0.21], [0.18, 0.24, 0.19]],
    ...                       dims=("dataset", "ensemble"),
    ...                       coords={"ensemble": ["A", "B", "C"]})
    >>> holm_control(errors, control="A").significant.values.tolist()
    [0, 1, 0]
    """
    if test not in (*PAIR_TESTS, "ranks"):
        raise ValueError(f"test must be one of {sorted((*PAIR_TESTS, 'ranks'))}, got {test!r}")
    significance = check_significance(significance)
    values, dropped_sets = _table_without_missing(
        errors, dim_dataset=dim_dataset, dim_method=dim_method, var=var, missing=missing)
    r = _Ranks(values, dim_dataset=dim_dataset, dim_method=dim_method, var=var,
               greater_is_better=greater_is_better)
    c = r.index_of(control)
    others = [j for j in range(r.k) if j != c]
    if test == "ranks":
        z = (r.average[others] - r.average[c]) / r.se
        raw = 2.0 * scipy.stats.norm.sf(np.abs(z))
        cite = CITE_DEMSAR
        said = "z test of the average ranks (Demsar 2006), Holm-corrected"
    else:
        raw = np.array([_pair_p_value(r.snapped[:, j] - r.snapped[:, c], test) for j in others])
        cite = f"{CITE_WILCOXON}; {CITE_POOL}"
        said = f"{PAIR_TESTS[test]}, Holm-corrected over the comparisons with the control"
    adjusted, reject = holm_step_down(raw, significance)
    p, p_holm = np.ones(r.k), np.ones(r.k)
    sig = np.zeros(r.k, dtype=bool)
    p[others], p_holm[others], sig[others] = raw, adjusted, reject
    m = r.dim_method
    cite = f"{cite}; {CITE_HOLM}"
    variables = r.rank_vars()
    variables.update({
        "p_value": Var((m,), p, "unadjusted p-value against the control",
                       valid_range=(0.0, 1.0), cite=cite),
        "p_holm": Var((m,), p_holm, "Holm-adjusted p-value against the control",
                      valid_range=(0.0, 1.0), cite=cite),
        "significant": Var((m,), sig, "1 where the method differs from the control (Holm)",
                           units="", cite=cite),
    })
    coords = r.coords()
    coords.pop(VERSUS)
    control_value = control.item() if isinstance(control, np.generic) else control
    ds = build(variables, function="holm_control",
               params=r.params(test=test, significance=significance, missing=missing,
                               control=control_value, dropped_datasets=dropped_sets),
               coords=coords)
    ds.attrs["control"] = str(control_value)
    ds.attrs["test"] = said
    return ds


def pairwise_p_values(
    p_values: pd.DataFrame | xr.DataArray,
    average_rank: pd.Series | xr.DataArray | dict,
    *,
    significance: float = 0.05,
    test: str = "the given p-values",
    dim_method: str = "ensemble",
) -> xr.Dataset:
    """A result for :func:`treelab.plot.critical_difference` from any p-value matrix.

    The matrix (e.g. scikit-posthocs' ``posthoc_conover_friedman``, already adjusted as its
    test requires) is used as given: a pair differs where its p-value is below
    ``significance``. It must be square, symmetric, with the methods of ``average_rank`` as
    its rows and columns.

    Parameters
    ----------
    p_values : pandas.DataFrame or xarray.DataArray, (method, method)
        Pairwise p-values.
    average_rank : pandas.Series, DataArray or dict
        Average rank of every method (the diagram's axis).
    significance : float, default 0.05
        A pair differs where its p-value is below it.
    test : str
        What the p-values come from, for the caption (``test`` attr).
    dim_method : str, default "ensemble"
        Name of the method dim of the result.

    Returns
    -------
    xarray.Dataset
        ``average_rank`` (method), ``p_value`` and ``significant`` (method, ``versus``).

    Examples
    --------
    >>> import pandas as pd
    >>> p = pd.DataFrame([[1.0, 0.01], [0.01, 1.0]], index=["A", "B"], columns=["A", "B"])
    >>> res = pairwise_p_values(p, {"A": 1.2, "B": 1.8})
    >>> bool(res.significant.sel(ensemble="A", versus="B"))
    True
    """
    significance = check_significance(significance)
    if not isinstance(test, str):
        raise TypeError(f"test must be a str naming the test, got {test!r}")
    if isinstance(p_values, xr.DataArray):
        if p_values.ndim != 2:
            raise ValueError(f"p_values must be a square matrix, got dims {p_values.dims}")
        p_values = pd.DataFrame(p_values.values, index=p_values[p_values.dims[0]].values,
                                columns=p_values[p_values.dims[1]].values)
    if not isinstance(p_values, pd.DataFrame):
        raise TypeError(f"p_values must be a pandas DataFrame or a 2-d DataArray, got "
                        f"{type(p_values).__name__}")
    if isinstance(average_rank, xr.DataArray):
        average_rank = average_rank.to_pandas()
    ranks = pd.Series(average_rank, dtype=float)
    methods = list(ranks.index)
    if sorted(map(str, p_values.index)) != sorted(map(str, methods)) or \
            sorted(map(str, p_values.columns)) != sorted(map(str, methods)):
        raise ValueError(f"p_values' rows and columns must be the methods of average_rank "
                         f"({methods}); got {list(p_values.index)} x {list(p_values.columns)}")
    p = np.array(p_values.loc[methods, methods].to_numpy(dtype=float))  # a writable copy
    off = ~np.eye(len(methods), dtype=bool)
    np.fill_diagonal(p, 1.0)  # a method against itself: whatever the matrix holds there
    if not np.all(np.isfinite(p[off])) or np.any((p[off] < 0) | (p[off] > 1)):
        raise ValueError("p_values must hold p-values in [0, 1] off the diagonal")
    if not np.allclose(p, p.T):
        raise ValueError("p_values must be symmetric (the p-value of a pair either way)")
    if not np.all(np.isfinite(ranks.to_numpy())):
        raise ValueError("average_rank must be finite for every method")
    m = dim_method
    variables = {
        "average_rank": Var((m,), ranks.to_numpy(), "average rank R_j over data sets",
                            cite=CITE_DEMSAR),
        "p_value": Var((m, VERSUS), p, "p-value of the pair, as given",
                       valid_range=(0.0, 1.0), cite=CITE_DEMSAR),
        "significant": Var((m, VERSUS), off & (p < significance),
                           "1 where the pair's p-value is below significance", units="",
                           cite=CITE_DEMSAR),
    }
    coords = {m: np.asarray(methods), VERSUS: np.asarray(methods)}
    ds = build(variables, function="pairwise_p_values",
               params={"significance": significance, "test": test, "dim_method": m},
               coords=coords)
    ds.attrs["test"] = test
    return ds


def significance_cliques(ranks: Any, significant: Any) -> list[tuple[int, int]]:
    """Maximal runs of methods, in rank order, no two of which differ significantly.

    ``ranks`` (k,) are the average ranks and ``significant`` (k, k) the symmetric decisions.
    The methods are sorted by rank (stably); a run from position a to b is a clique when no
    pair inside it is significant. A bar spans the ranks from R_a to R_b, so it covers every
    method whose rank lies there: methods of equal rank enter and leave a run together (a run
    holds all methods of its end ranks), and the runs do not depend on the order in which tied
    methods are given. Returns (first, last) positions in that order of the maximal runs of at
    least two methods (none contained in another): the bars of a critical-difference diagram.
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    sig = np.asarray(significant, dtype=bool)
    if ranks.ndim != 1 or sig.shape != (ranks.size, ranks.size):
        raise ValueError(f"significant must be ({ranks.size}, {ranks.size}), got {sig.shape}")
    order = np.argsort(ranks, kind="stable")
    s = sig[np.ix_(order, order)]
    r = ranks[order]
    n = ranks.size
    # the last position of each one's group of equal ranks: a bar ending at a rank covers the
    # whole group (a run cut inside it claimed the rest of the group alike too)
    group_end = np.searchsorted(r, r, side="right") - 1
    runs: list[tuple[int, int]] = []
    for i in range(n):
        if i > 0 and r[i - 1] == r[i]:
            continue  # a bar starting at this rank starts at its group's first method
        j = int(group_end[i])
        if s[i:j + 1, i:j + 1].any():
            continue  # two methods of this rank differ: no bar can cover the rank
        while j + 1 < n and not s[i:group_end[j + 1] + 1, i:group_end[j + 1] + 1].any():
            j = int(group_end[j + 1])
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs
