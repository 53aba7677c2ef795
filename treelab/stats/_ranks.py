"""Rank-based comparison of several methods over several data sets (Demsar 2006).

The input is one value per data set and method (an error rate by default: lower is better).
On every data set the methods are ranked 1..k (rank 1 the best; tied methods share the average
of their ranks), and the tests work with the average rank R_j of method j over the N data sets.
Values of one data set that differ only by floating-point rounding (by less than
:data:`~treelab.stats._ties.TIE_TOLERANCE` x max(1, the data set's largest magnitude)) are
ties, in the ranks and in the win/tie/loss counts alike: two methods right on the same rows
get fold means that may differ in the last bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.stats
import xarray as xr

from treelab.analysis._dataset import Var
from treelab.stats._common import (
    CITE_DEMSAR,
    build,
    check_dim_name,
    check_flag,
    check_significance,
    value_table,
)
from treelab.stats._ties import row_tolerance, snap_rows

__all__ = ["bonferroni_dunn", "friedman", "nemenyi", "wins_ties_losses"]

#: Name of the second method dim of pairwise results (rows: ``dim_method``, columns: this).
VERSUS = "versus"

_RANK_DOC_PARAMS = """
    dim_dataset : str, default "dataset"
        Dim whose coordinates are the data sets (blocks).
    dim_method : str, default "ensemble"
        Dim whose coordinates are the compared methods (``"alpha"`` compares alphas).
    var : str, default "ensemble_error"
        Variable taken when ``errors`` is a Dataset.
    greater_is_better : bool, default False
        Rank the largest value first (accuracy, AUC) instead of the smallest (error)."""


class _Ranks:
    """Ranks of a checked table and what every rank test needs."""

    def __init__(self, errors: Any, *, dim_dataset: str, dim_method: str, var: str,
                 greater_is_better: bool) -> None:
        greater_is_better = check_flag(greater_is_better, "greater_is_better")
        table, datasets, methods, dropped = value_table(
            errors, var=var, dim_dataset=dim_dataset, dim_method=dim_method
        )
        n, k = table.shape
        if k < 2:
            raise ValueError(f"errors must hold at least 2 methods along {dim_method!r}, got {k}")
        if n < 2:
            raise ValueError(
                f"errors must hold at least 2 data sets along {dim_dataset!r}, got {n}"
            )
        self.table = table
        # float-noise ties exact before ranking or differencing (see the module docstring)
        self.snapped = snap_rows(table)
        self.datasets = datasets
        self.methods = methods
        self.dropped = dropped
        self.dim_dataset = dim_dataset
        self.dim_method = dim_method
        self.greater_is_better = greater_is_better
        self.ranks = scipy.stats.rankdata(-self.snapped if greater_is_better else self.snapped,
                                          axis=1)
        self.average = self.ranks.mean(axis=0)
        self.n, self.k = n, k
        # standard error of a difference of two average ranks under the null hypothesis
        self.se = float(np.sqrt(k * (k + 1) / (6.0 * n)))

    def params(self, **extra: Any) -> dict[str, Any]:
        return {
            "dim_dataset": self.dim_dataset,
            "dim_method": self.dim_method,
            "greater_is_better": self.greater_is_better,
            "dropped_methods": self.dropped,
            **extra,
        }

    def rank_vars(self) -> dict[str, Var]:
        m, d = self.dim_method, self.dim_dataset
        return {
            "average_rank": Var((m,), self.average, "average rank R_j over data sets",
                                valid_range=(1.0, float(self.k)), cite=CITE_DEMSAR,
                                description="rank 1 is the best method on a data set; ties "
                                            "share their average rank"),
            "rank": Var((d, m), self.ranks, "rank of the method on the data set",
                        valid_range=(1.0, float(self.k)), cite=CITE_DEMSAR),
            "mean_value": Var((m,), self.table.mean(axis=0), "mean over data sets of the "
                              "compared value", units="", cite=CITE_DEMSAR),
            "n_datasets": Var((), self.n, "number of data sets N", units="", cite=CITE_DEMSAR),
            "n_methods": Var((), self.k, "number of methods k", units="", cite=CITE_DEMSAR),
        }

    def index_of(self, control: Any) -> int:
        """The position of method ``control``; refuses a value that is not a method."""
        where = [i for i, m in enumerate(self.methods) if m == control]
        if not where:
            raise ValueError(f"control={control!r} is not a method of {self.dim_method!r} "
                             f"({self.methods.tolist()})")
        return where[0]

    def coords(self) -> dict[str, np.ndarray]:
        return {self.dim_dataset: self.datasets, self.dim_method: self.methods,
                VERSUS: self.methods}


#: description of F_F and its p-value where they are undefined
UNDEFINED_F = ("undefined (NaN): every data set ranks the methods alike, so chi2_F = N (k - 1), "
               "the ranks have no residual variance and F_F = (N - 1) chi2_F / 0; use "
               "chi2_p_value")
#: description of chi2_F, F_F and their p-values where the tie correction is 0 / 0
UNDEFINED_TIES = ("undefined (NaN): every data set ties all methods, so the tie correction "
                  "1 - sum (t^3 - t) / (N k (k^2 - 1)) is 0 and the corrected chi2_F is 0 / 0 "
                  "(NaN in scipy.stats.friedmanchisquare too); without tie_correction chi2_F "
                  "= 0 and its p-value 1")


def friedman(
    errors: xr.Dataset | xr.DataArray,
    *,
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
    tie_correction: bool = False,
) -> xr.Dataset:
    """Friedman test with average ranks and the Iman-Davenport F statistic (Demsar 2006, 3.2.2).

    With N data sets, k methods and average ranks R_j:

    * chi2_F = 12 N / (k (k + 1)) * [sum_j R_j^2 - k (k + 1)^2 / 4], chi-square with k - 1
      degrees of freedom under the null hypothesis that all methods are equivalent;
    * F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F) (Iman & Davenport 1980), F-distributed with
      k - 1 and (k - 1)(N - 1) degrees of freedom; less conservative than chi2_F (Demsar
      recommends it). When chi2_F = N (k - 1) (every data set ranks the methods alike),
      F_F's denominator is 0: the ranks have no residual variance, the F approximation does
      not hold, and F_F and its p-value are NaN (undefined; their ``description`` attr says
      so); read ``chi2_p_value`` there (two data sets ranking three methods alike: p = 0.135,
      where an infinite F_F would have claimed p = 0).

    ``tie_correction=True`` divides chi2_F by 1 - sum (t^3 - t) / (N k (k^2 - 1)), the sum over
    groups of t tied values within a data set (as ``scipy.stats.friedmanchisquare`` and R's
    ``friedman.test`` do); the default is Demsar's formula as printed, without it. Where every
    data set ties all methods the correction is 0 / 0: chi2_F, F_F and their p-values are NaN,
    their ``description`` attr saying why.

    Values are first averaged over ``repeat`` and ``fold`` (one value per data set and method);
    an ``alpha`` dim is dropped when every method has values at one alpha only (see
    :func:`treelab.stats.select_alpha` otherwise); methods with no value at all are left out
    (listed in the ``params`` attr); any other missing value is an error.

    Parameters
    ----------
    errors : xarray.Dataset or DataArray
        Values with at least the dims ``dim_dataset`` and ``dim_method`` (for example the
        result of :func:`treelab.experiment.run`).
    %(rank_params)s
    tie_correction : bool, default False
        Correct chi2_F for ties within data sets.

    Returns
    -------
    xarray.Dataset
        ``average_rank`` and ``mean_value`` (method), ``rank`` (dataset, method), ``chi2``,
        ``chi2_df``, ``chi2_p_value``, ``iman_davenport_f``, ``f_df1``, ``f_df2``,
        ``f_p_value``, ``n_datasets``, ``n_methods``.

    References
    ----------
    Friedman (1937, 1940); Iman & Davenport (1980); Demsar (2006), section 3.2.2.

    Examples
    --------
    >>> import xarray as xr
    >>> table = xr.DataArray([[0.1, 0.2, 0.3], [0.2, 0.1, 0.4], [0.1, 0.3, 0.2]],
    ...                      dims=("dataset", "ensemble"),
    ...                      coords={"ensemble": ["A", "B", "C"]})
    >>> friedman(table).average_rank.values.tolist()
    [1.3333333333333333, 2.0, 2.6666666666666665]
    """
    tie_correction = check_flag(tie_correction, "tie_correction")
    r = _Ranks(errors, dim_dataset=dim_dataset, dim_method=dim_method, var=var,
               greater_is_better=greater_is_better)
    n, k = r.n, r.k
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(r.average**2) - k * (k + 1) ** 2 / 4.0)
    if tie_correction:
        ties = 0.0
        for row in r.ranks:
            _, counts = np.unique(row, return_counts=True)
            ties += float(np.sum(counts**3 - counts))
        c = 1.0 - ties / (n * k * (k * k - 1))
        chi2 = chi2 / c if c > 0 else np.nan  # c = 0: every data set ties all methods
    all_tied = bool(np.isnan(chi2))
    # rounding can give -1e-15 for identical ranks; the NaN of a 0 / 0 correction stays NaN
    chi2 = float(chi2) if all_tied else max(float(chi2), 0.0)
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denom = n * (k - 1) - chi2
    # chi2_F = N (k - 1), its largest value, when every data set ranks the methods alike: the
    # ranks then have no residual variance, F_F's denominator is 0 and its F distribution
    # (an approximation that assumes residual variance) does not hold, so F_F is undefined;
    # reporting inf with p = 0 claimed certainty that two data sets cannot give
    f_undefined = not denom > 1e-12 * n * k
    f = np.nan if f_undefined else (n - 1) * chi2 / denom
    f_note = UNDEFINED_TIES if all_tied else UNDEFINED_F if f_undefined else ""
    chi2_note = UNDEFINED_TIES if all_tied else ""
    variables = r.rank_vars()
    variables.update({
        "chi2": Var((), chi2, "Friedman statistic chi2_F", units="", cite=CITE_DEMSAR,
                    description=chi2_note or ("tie-corrected" if tie_correction
                                              else "Demsar's formula")),
        "chi2_df": Var((), df1, "degrees of freedom of chi2_F (k - 1)", units="",
                       cite=CITE_DEMSAR),
        "chi2_p_value": Var((), float(scipy.stats.chi2.sf(chi2, df1)), "p-value of chi2_F",
                            valid_range=(0.0, 1.0), cite=CITE_DEMSAR, description=chi2_note),
        "iman_davenport_f": Var((), f, "Iman-Davenport statistic F_F", units="",
                                cite=CITE_DEMSAR, description=f_note),
        "f_df1": Var((), df1, "first degrees of freedom of F_F (k - 1)", units="",
                     cite=CITE_DEMSAR),
        "f_df2": Var((), df2, "second degrees of freedom of F_F ((k - 1)(N - 1))", units="",
                     cite=CITE_DEMSAR),
        "f_p_value": Var((), np.nan if f_undefined else float(scipy.stats.f.sf(f, df1, df2)),
                         "p-value of F_F", valid_range=(0.0, 1.0), cite=CITE_DEMSAR,
                         description=f_note),
    })
    coords = r.coords()
    coords.pop(VERSUS)
    return build(variables, function="friedman",
                 params=r.params(tie_correction=tie_correction), coords=coords)


def _nemenyi_q(k: int, significance: float) -> float:
    """Critical value q_alpha of the Nemenyi test: the studentized range quantile / sqrt(2)."""
    return float(scipy.stats.studentized_range.ppf(1.0 - significance, k, np.inf) / np.sqrt(2.0))


def nemenyi(
    errors: xr.Dataset | xr.DataArray,
    *,
    significance: float = 0.05,
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> xr.Dataset:
    """Nemenyi post-hoc test: critical difference and all pairwise decisions (Demsar 2006).

    Two methods differ significantly when their average ranks differ by at least the critical
    difference

        CD = q_alpha * sqrt(k (k + 1) / (6 N)),

    with q_alpha the upper-alpha quantile of the studentized range of k means (infinite degrees
    of freedom) divided by sqrt(2) (Demsar's Table 5a: 1.960, 2.343, 2.569, ... for k = 2, 3,
    4, ... at alpha = 0.05). The pairwise p-value is
    ``P(Q > sqrt(2) |R_i - R_j| / sqrt(k (k + 1) / (6 N)))`` for Q studentized-range
    distributed (k, infinite df), as in scikit-posthocs' ``posthoc_nemenyi_friedman``.

    Parameters
    ----------
    errors : xarray.Dataset or DataArray
        As for :func:`friedman`.
    significance : float, default 0.05
        Significance level alpha of the test.
    %(rank_params)s

    Returns
    -------
    xarray.Dataset
        ``average_rank``, ``mean_value`` (method), ``rank`` (dataset, method), ``q_alpha``,
        ``critical_difference``, and over (method, ``versus``): ``rank_difference`` (R_row -
        R_column), ``p_value`` and ``significant`` (1 where ``|R_i - R_j| >= CD``).

    References
    ----------
    Nemenyi (1963); Demsar (2006), section 3.2.2 and Table 5a.
    """
    significance = check_significance(significance)
    r = _Ranks(errors, dim_dataset=dim_dataset, dim_method=dim_method, var=var,
               greater_is_better=greater_is_better)
    q = _nemenyi_q(r.k, significance)
    cd = q * r.se
    diff = r.average[:, None] - r.average[None, :]
    p = scipy.stats.studentized_range.sf(np.sqrt(2.0) * np.abs(diff) / r.se, r.k, np.inf)
    p = np.clip(np.where(diff == 0, 1.0, p), 0.0, 1.0)
    m = r.dim_method
    variables = r.rank_vars()
    variables.update({
        "q_alpha": Var((), q, "critical value q_alpha (studentized range / sqrt 2)", units="",
                       cite=CITE_DEMSAR),
        "critical_difference": Var((), cd, "Nemenyi critical difference of average ranks",
                                   units="", cite=CITE_DEMSAR),
        "rank_difference": Var((m, VERSUS), diff, "average rank of row minus column method",
                               units="", cite=CITE_DEMSAR),
        "p_value": Var((m, VERSUS), p, "Nemenyi p-value of the pair", valid_range=(0.0, 1.0),
                       cite=CITE_DEMSAR),
        "significant": Var((m, VERSUS), np.abs(diff) >= cd - 1e-12,
                           "1 where the pair differs significantly (|R_i - R_j| >= CD)",
                           units="", cite=CITE_DEMSAR),
    })
    return build(variables, function="nemenyi",
                 params=r.params(significance=significance), coords=r.coords())


def bonferroni_dunn(
    errors: xr.Dataset | xr.DataArray,
    *,
    control: Any,
    significance: float = 0.05,
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> xr.Dataset:
    """Bonferroni-Dunn test of every method against a control method (Demsar 2006, 3.2.2).

    The k - 1 comparisons with the control use

        z_j = (R_j - R_control) / sqrt(k (k + 1) / (6 N)),

    two-sided p-values ``p_j = 2 (1 - Phi(|z_j|))``, Bonferroni-adjusted p_j (k - 1) (capped at 1).
    Equivalently, a method differs from the control when ``|R_j - R_control| >= CD`` with

        CD = q_alpha * sqrt(k (k + 1) / (6 N)),  q_alpha = Phi^-1(1 - alpha / (2 (k - 1)))

    (Demsar's Table 5b: 1.960, 2.241, 2.394, ... for k = 2, 3, 4, ... at alpha = 0.05).

    Parameters
    ----------
    errors : xarray.Dataset or DataArray
        As for :func:`friedman`.
    control : coordinate value
        The control method (a coordinate of ``dim_method``).
    significance : float, default 0.05
        Family-wise significance level alpha.
    %(rank_params)s

    Returns
    -------
    xarray.Dataset
        ``average_rank``, ``mean_value`` (method), ``rank`` (dataset, method), ``q_alpha``,
        ``critical_difference``, and per method: ``rank_difference`` (R_j - R_control),
        ``z``, ``p_value`` (unadjusted), ``p_adjusted`` (Bonferroni) and ``significant``
        (0 for the control itself). The ``control`` attr names the control.

    References
    ----------
    Dunn (1961); Demsar (2006), section 3.2.2 and Table 5b.
    """
    significance = check_significance(significance)
    r = _Ranks(errors, dim_dataset=dim_dataset, dim_method=dim_method, var=var,
               greater_is_better=greater_is_better)
    c = r.index_of(control)
    k = r.k
    q = float(scipy.stats.norm.isf(significance / (2.0 * (k - 1))))
    cd = q * r.se
    diff = r.average - r.average[c]
    z = diff / r.se
    p = 2.0 * scipy.stats.norm.sf(np.abs(z))
    p_adj = np.minimum(1.0, p * (k - 1))
    significant = np.abs(diff) >= cd - 1e-12
    significant[c] = False
    m = r.dim_method
    variables = r.rank_vars()
    variables.update({
        "q_alpha": Var((), q, "critical value q_alpha = z(1 - alpha / (2 (k - 1)))", units="",
                       cite=CITE_DEMSAR),
        "critical_difference": Var((), cd, "Bonferroni-Dunn critical difference of average "
                                   "ranks", units="", cite=CITE_DEMSAR),
        "rank_difference": Var((m,), diff, "R_j - R_control", units="", cite=CITE_DEMSAR),
        "z": Var((m,), z, "z statistic against the control", units="", cite=CITE_DEMSAR),
        "p_value": Var((m,), p, "unadjusted two-sided p-value against the control",
                       valid_range=(0.0, 1.0), cite=CITE_DEMSAR),
        "p_adjusted": Var((m,), p_adj, "Bonferroni-adjusted p-value (times k - 1)",
                          valid_range=(0.0, 1.0), cite=CITE_DEMSAR),
        "significant": Var((m,), significant, "1 where the method differs significantly "
                           "from the control", units="", cite=CITE_DEMSAR),
    })
    coords = r.coords()
    coords.pop(VERSUS)
    control_value = control.item() if isinstance(control, np.generic) else control
    ds = build(variables, function="bonferroni_dunn",
               params=r.params(significance=significance, control=control_value),
               coords=coords)
    ds.attrs["control"] = str(control_value)
    return ds


def wins_ties_losses(
    errors: xr.Dataset | xr.DataArray,
    *,
    control: Any = None,
    tol: float = 0.0,
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> pd.DataFrame:
    """Wins, ties and losses of every method against every other over the data sets.

    Method a *wins* against b on a data set when its value is better by more than ``tol``
    (lower, or higher with ``greater_is_better``), *loses* when worse by more than ``tol``,
    and *ties* otherwise. Values are averaged over ``repeat`` and ``fold`` first (see
    :func:`friedman` for how the table is built). A difference is compared with ``tol`` up to
    floating-point rounding: values closer than ``TIE_TOLERANCE`` (1e-12) x max(1, the data
    set's largest magnitude) are equal (as in the ranks), and a difference within that of
    ``tol`` is a tie (0.4 - 0.3 is 0.10000000000000003 in floats, a tie at ``tol=0.1``).

    Parameters
    ----------
    errors : xarray.Dataset or DataArray
        As for :func:`friedman`.
    control : coordinate value, optional
        Only compare every method against this one (rows: the other methods).
    tol : float, default 0.0
        Differences of at most ``tol`` (up to rounding) count as ties.
    %(rank_params)s

    Returns
    -------
    pandas.DataFrame
        Integer columns ``wins``, ``ties``, ``losses`` and a string column ``w/t/l``; index
        (``dim_method``, ``versus``) over ordered pairs, or ``dim_method`` alone with a
        ``control``.

    Examples
    --------
    >>> import xarray as xr
    >>> table = xr.DataArray([[0.1, 0.2], [0.3, 0.3], [0.4, 0.2]],
    ...                      dims=("dataset", "ensemble"),
    ...                      coords={"ensemble": ["A", "B"]})
    >>> wins_ties_losses(table, control="B")["w/t/l"].tolist()
    ['1/1/1']
    """
    check_dim_name(dim_method, "dim_method")
    if isinstance(tol, bool) or not isinstance(tol, int | float | np.floating | np.integer):
        raise TypeError(f"tol must be a non-negative number, got {tol!r}")
    if not tol >= 0:
        raise ValueError(f"tol must be a non-negative number, got {tol!r}")
    greater_is_better = check_flag(greater_is_better, "greater_is_better")
    table, _, methods, _ = value_table(errors, var=var, dim_dataset=dim_dataset,
                                       dim_method=dim_method)
    if control is not None and not any(m == control for m in methods):
        raise ValueError(f"control={control!r} is not a method of {dim_method!r} "
                         f"({methods.tolist()})")
    snapped = snap_rows(table)
    better = -snapped if greater_is_better else snapped  # lower is better from here on
    limit = tol + row_tolerance(table)
    rows = []
    for i, a in enumerate(methods):
        for j, b in enumerate(methods):
            if i == j or (control is not None and b != control):
                continue
            d = better[:, i] - better[:, j]
            w, lo = int(np.sum(d < -limit)), int(np.sum(d > limit))
            t = len(d) - w - lo
            rows.append((a, b, w, t, lo, f"{w}/{t}/{lo}"))
    frame = pd.DataFrame(rows, columns=[dim_method, VERSUS, "wins", "ties", "losses", "w/t/l"])
    if control is not None:
        return frame.drop(columns=VERSUS).set_index(dim_method)
    return frame.set_index([dim_method, VERSUS])


for _fn in (friedman, nemenyi, bonferroni_dunn, wins_ties_losses):
    _fn.__doc__ = _fn.__doc__.replace("    %(rank_params)s", _RANK_DOC_PARAMS.strip("\n"))
