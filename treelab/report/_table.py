"""Methods x data sets: the table a paper prints, built from an experiment result.

:func:`table` averages a measure over the resampling dims (``repeat``, ``fold``), marks the
best method of every data set, counts wins/ties/losses against a reference method with a
named significance test per data set, and adds the average ranks and the Friedman test
(:func:`treelab.stats.friedman`, Demsar 2006).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats
import xarray as xr

from treelab.report._render import fmt, to_html, to_latex, to_markdown
from treelab.stats._common import collapse_alpha
from treelab.stats._ties import snap_ties

__all__ = ["ResultTable", "table"]

_RESAMPLING = ("repeat", "fold")
#: test name -> what the caption says
TESTS = {
    "wilcoxon": "two-sided Wilcoxon signed-rank test over the resamples of each data set, "
                "Holm-corrected over the data sets (treelab.stats.wilcoxon_holm)",
    "5x2cv-f": "Alpaydin's combined 5x2cv F test on each data set "
               "(treelab.stats.five_by_two_cv_f)",
    "none": "no significance test (counts by the mean only)",
}
#: what the caption says of the Bayesian columns
BAYESIAN_TEST = ("posterior probabilities of the Bayesian signed-rank test over the data sets "
                 "(Benavoli, Corani, Demsar & Zaffalon 2017; prior 0.5 at 0, 50000 draws, "
                 "seed 0; treelab.stats.bayesian_signed_rank)")


@dataclass(frozen=True)
class ResultTable:
    """A methods x data sets table with its summaries (build it with :func:`table`).

    Attributes
    ----------
    mean, spread : pandas.DataFrame
        (data set x method) mean and standard deviation over the resamples (``spread`` is all
        NaN when there is one value per cell), in display units (times ``scale``).
    best : pandas.DataFrame
        True on the best mean of every row (all tied best cells).
    wins_ties_losses : pandas.DataFrame
        Per method against ``reference``: ``wins``, ``ties``, ``losses`` (by the mean),
        ``significant_wins``, ``significant_losses`` (by ``test``).
    average_rank : pandas.Series
        Average rank of each method over the data sets (1 = best; ties share ranks).
    friedman_chi2, friedman_p, iman_davenport_f, iman_davenport_p : float
        Friedman test over the data sets (NaN with fewer than 2 data sets or fewer than 2
        ranked methods).
    reference, test, measure : str
        The reference method, the significance test's name, the measure's label.
    digits : int
        Decimals shown.
    unranked : tuple
        Methods without a value on any data set: shown with empty cells, left out of the
        ranks (NaN), the wins/ties/losses and the Friedman test, and named in the caption.
    """

    mean: pd.DataFrame
    spread: pd.DataFrame
    best: pd.DataFrame
    wins_ties_losses: pd.DataFrame | None
    average_rank: pd.Series
    friedman_chi2: float
    friedman_p: float
    iman_davenport_f: float
    iman_davenport_p: float
    reference: Any
    test: str
    measure: str
    digits: int
    #: per method against the reference: ``p_better``, ``p_rope``, ``p_worse`` of the Bayesian
    #: signed-rank test over the data sets (None without a ``rope``); and that rope
    bayesian: pd.DataFrame | None = None
    rope: float | None = None
    unranked: tuple = ()

    def cells(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(display strings, bold mask): "mean ± sd" per cell, then the footer rows of average
        rank and of wins/ties/losses against the reference (after the data rows, even when a
        data set bears a footer's name)."""
        text, bold, footer = self._parts()
        return (pd.concat([text, footer]),
                pd.concat([bold, pd.DataFrame(False, index=footer.index,
                                              columns=footer.columns)]))

    def _parts(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The data rows' display strings, their bold mask and the footer rows, apart."""
        has_sd = bool(np.isfinite(self.spread.to_numpy(dtype=float)).any())
        d = self.digits
        text = self.mean.map(lambda v: fmt(v, d)).astype(object)
        if has_sd:
            sd = self.spread.map(lambda v: fmt(v, d))
            text = text.where(sd == "", text + " ± " + sd)
        extra = {"average rank": self.average_rank.map(lambda v: fmt(v, 2))}
        if self.wins_ties_losses is not None:
            w = self.wins_ties_losses
            extra[f"w/t/l vs {self.reference}"] = pd.Series(
                {m: f"{r.wins}/{r.ties}/{r.losses}" for m, r in w.iterrows()}, dtype=object)
            if self.test != "none":
                extra[f"significant w/l vs {self.reference}"] = pd.Series(
                    {m: f"{r.significant_wins}/{r.significant_losses}" for m, r in w.iterrows()},
                    dtype=object)
        if self.bayesian is not None:
            for col, label in (("p_better", "P(better)"), ("p_rope", "P(rope)")):
                extra[f"{label} vs {self.reference}"] = self.bayesian[col].map(
                    lambda v: fmt(v, 2)).astype(object)
        footer = pd.DataFrame([row.reindex(text.columns).fillna("").tolist()
                               for row in extra.values()], columns=text.columns, dtype=object)
        footer.index = pd.Index(list(extra), dtype=object, name=text.index.name)
        return text, self.best.copy(), footer

    def caption(self) -> str:
        """What the table shows, the test named, the Friedman result."""
        parts = [f"{self.measure}: mean" + (" ± sd" if np.isfinite(
            self.spread.to_numpy(dtype=float)).any() else "") + " per data set; best per row "
                 "in bold."]
        if self.wins_ties_losses is not None:
            parts.append(f"Wins/ties/losses against {self.reference} by the mean; significant: "
                         f"{TESTS[self.test]}.")
        if np.isfinite(self.friedman_chi2):
            parts.append(f"Friedman chi2_F = {self.friedman_chi2:.2f}, p = "
                         f"{self.friedman_p:.3g}; Iman-Davenport F_F = "
                         f"{self.iman_davenport_f:.2f}, p = {self.iman_davenport_p:.3g} "
                         f"({self.mean.shape[0]} data sets, "
                         f"{self.mean.shape[1] - len(self.unranked)} methods).")
        else:
            parts.append("Friedman test not computed (it needs at least 2 data sets and 2 "
                         "ranked methods).")
        if self.unranked:
            parts.append("Without a value on any data set (not ranked): "
                         + ", ".join(map(str, self.unranked)) + ".")
        if self.bayesian is not None:
            parts.append(f"P(better), P(rope) against {self.reference}: {BAYESIAN_TEST}, "
                         f"rope = {self.rope:g}.")
        return " ".join(parts)

    def to_markdown(self, caption: bool = True) -> str:
        """The table as Markdown, best per row in bold, the caption below."""
        text, bold, footer = self._parts()
        return to_markdown(text, bold, self.caption() if caption else None, footer)

    def to_latex(self, caption: bool = True) -> str:
        """The table as a LaTeX booktabs tabular (in a table float with the caption)."""
        text, bold, footer = self._parts()
        return to_latex(text, bold, self.caption() if caption else None, footer)

    def to_html(self, caption: bool = True) -> Any:
        """The table as a pandas Styler (``.to_html()`` for the HTML)."""
        text, bold, footer = self._parts()
        return to_html(text, bold, self.caption() if caption else None, footer)


#: Joins the levels of a MultiIndex label into one label: ("UCI", "iris") -> "UCI / iris".
LEVEL_SEPARATOR = " / "


def _flat(index: pd.Index, default: str) -> tuple[list[Any], str]:
    """The labels of ``index`` (a MultiIndex's levels joined by :data:`LEVEL_SEPARATOR`) and
    its name (the level names joined, or ``default``)."""
    if isinstance(index, pd.MultiIndex):
        labels = [LEVEL_SEPARATOR.join(map(str, key)) for key in index]
        names = [n for n in index.names if n is not None]
        name = LEVEL_SEPARATOR.join(map(str, names)) if len(names) == index.nlevels else None
        return labels, name or default
    return list(index), index.name if index.name is not None else default


def _plain(label: Any) -> Any:
    """A NumPy scalar label as the Python value (messages read ``'A'``, not
    ``np.str_('A')``)."""
    return label.item() if isinstance(label, np.generic) else label


def _check_unique(labels: Any, what: str) -> None:
    seen = pd.Index(list(labels))
    if seen.has_duplicates:
        twice = [_plain(x) for x in dict.fromkeys(seen[seen.duplicated()])]
        raise ValueError(f"results has {what} {twice[:5]} more than once; every {what[:-1]} "
                         "must have a label of its own (rename or aggregate them first)")


def _as_dataarray(results: Any, var: str) -> xr.DataArray:
    if isinstance(results, pd.DataFrame):
        rows, row_name = _flat(results.index, "dataset")
        cols, col_name = _flat(results.columns, "ensemble")
        _check_unique(rows, "data sets (rows)")
        _check_unique(cols, "methods (columns)")
        if row_name == col_name:
            col_name = "ensemble" if row_name != "ensemble" else "method"
        try:
            values = results.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"results must hold numbers: {exc}") from None
        return xr.DataArray(values, dims=(row_name, col_name),
                            coords={row_name: np.asarray(rows, dtype=object)
                                    if isinstance(results.index, pd.MultiIndex) else rows,
                                    col_name: np.asarray(cols, dtype=object)
                                    if isinstance(results.columns, pd.MultiIndex) else cols})
    if isinstance(results, xr.Dataset):
        if var not in results:
            raise ValueError(f"var={var!r} is not a variable of results "
                             f"({sorted(map(str, results.data_vars))})")
        return results[var]
    if isinstance(results, xr.DataArray):
        return results
    raise TypeError("results must be an xarray Dataset/DataArray or a pandas DataFrame "
                    f"(data sets x methods), got {type(results).__name__}")


def _ranks(values: pd.DataFrame) -> pd.Series:
    """Average rank of every column over the rows (1 = the smallest value; ties share their
    average rank), as :func:`treelab.stats.friedman` ranks them."""
    ranks = scipy.stats.rankdata(values.to_numpy(dtype=float), axis=1)
    return pd.Series(ranks.mean(axis=0), index=values.columns)


def _significance(da: xr.DataArray, reference: Any, method: Any, test: str, dim_method: str,
                  dim_dataset: str, significance: float) -> pd.Series:
    """+1 / -1 per data set where ``method`` is significantly greater / smaller than the
    reference (in the measure's own direction), 0 otherwise: the direction is the one the
    test rejected toward (Wilcoxon's larger rank sum; the 5x2cv F test's mean difference)."""
    from treelab import stats

    if test == "wilcoxon":
        res = stats.wilcoxon_holm(da, method, reference, dim_method=dim_method,
                                  significance=significance)
        # the median difference can have the other sign than the rank sums the test reads
        diff = res.rank_sum_positive - res.rank_sum_negative
    else:
        res = stats.five_by_two_cv_f(da, method, reference, dim_method=dim_method,
                                     significance=significance)
        diff = res.mean_difference
    sign = xr.where(res.significant.astype(bool), np.sign(diff), 0)
    return sign.transpose(dim_dataset).to_pandas()


def table(
    results: xr.Dataset | xr.DataArray | pd.DataFrame,
    *,
    var: str = "ensemble_error",
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    reference: Any = None,
    test: str = "wilcoxon",
    significance: float = 0.05,
    greater_is_better: bool = False,
    scale: float = 1.0,
    digits: int = 3,
    measure: str | None = None,
    rope: float | None = None,
) -> ResultTable:
    """Methods x data sets with mean (and sd), best per row, wins/ties/losses, ranks, Friedman.

    Values are averaged over ``repeat`` and ``fold`` (the sd is over the same resamples,
    ddof = 1). The best method of a row is the smallest mean (largest with
    ``greater_is_better``); all tied best cells are marked. Against ``reference`` each method
    *wins* on a data set when its mean is better, *loses* when worse, *ties* when equal (means
    equal up to floating-point rounding are equal, as in :func:`treelab.stats.friedman`); the
    *significant* counts keep the data sets where ``test`` rejects equality at
    ``significance``, each counted in the direction the test rejected toward (Wilcoxon: the
    larger of the rank sums R+ and R-, which the median difference need not follow; 5x2cv F:
    the mean difference). Average ranks and the Friedman / Iman-Davenport tests are those of
    :func:`treelab.stats.friedman` (Demsar 2006): with N data sets, k methods and average
    ranks R_j, chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]; with fewer than 2
    data sets or 2 ranked methods the ranks are still given and the test is NaN.

    Labels are text in every format: Markdown, LaTeX and HTML escape what their syntax would
    read as markup, and the footer rows (average rank, wins/ties/losses) follow the data rows
    whatever the data sets are called.

    Parameters
    ----------
    results : xarray.Dataset, DataArray or pandas.DataFrame
        An experiment result (:func:`treelab.experiment.run`) or any values with dims
        ``dim_dataset`` and ``dim_method`` (and optionally ``repeat``/``fold``); a DataFrame is
        one value per cell, rows data sets and columns methods (its index's name, default
        "dataset", and its columns' name, default "ensemble", are the dims). A MultiIndex of
        rows or columns is flattened: each label's levels joined by " / " (``("UCI",
        "iris")`` becomes ``"UCI / iris"``, the level names likewise). Every data set and
        every method must have a label of its own (after flattening). A method without a
        value on any data set is shown with empty cells, left out of the ranks, the
        wins/ties/losses and the Friedman test, and named in the caption (``unranked``); any
        other missing value (a NaN at any repeat or fold makes the mean missing) is refused,
        as the ranks need every method on every data set.
    var : str, default "ensemble_error"
        Variable taken from a Dataset.
    dim_dataset, dim_method : str
        Dims of the rows and of the columns.
    reference : coordinate value, optional
        Method the others are counted against (default: the first method).
    test : {"wilcoxon", "5x2cv-f", "none"}, default "wilcoxon"
        Per-data-set significance test over the resamples: Wilcoxon signed-rank with Holm's
        correction over the data sets, or Alpaydin's 5x2cv F (results of a 5x2 protocol).
        "none" (forced when there is one value per cell) only counts by the mean.
    significance : float, default 0.05
        Level of the test.
    greater_is_better : bool, default False
        True for accuracies.
    scale : float, default 1.0
        Factor applied to the displayed means and sds (100 for percent); a positive finite
        number (NumPy numbers too).
    digits : int, default 3
        Decimals shown (a non-negative integer, NumPy integers too).
    measure : str, optional
        Label of the measure in the caption (default ``var``).
    rope : float, optional
        With a rope (half-width of practical equivalence, in the measure's units before
        ``scale``), rows ``P(better)`` and ``P(rope)`` against the reference from
        :func:`treelab.stats.bayesian_signed_rank` over the data sets (at least 2), named in
        the caption.

    Returns
    -------
    ResultTable
        With ``to_markdown()``, ``to_latex()`` and ``to_html()``.

    Examples
    --------
    >>> import pandas as pd
    >>> errors = pd.DataFrame({"A": [0.10, 0.30, 0.20], "B": [0.20, 0.25, 0.20]},
    ...                       index=pd.Index(["x", "y", "z"], name="dataset"))
    >>> t = table(errors, reference="B", scale=100, digits=1)
    >>> t.average_rank.tolist()
    [1.5, 1.5]
    >>> t.wins_ties_losses.loc["A", ["wins", "ties", "losses"]].tolist()
    [1, 1, 1]
    >>> print(t.to_markdown(caption=False))
    | dataset | A | B |
    |---|---|---|
    | x | **10.0** | 20.0 |
    | y | 30.0 | **25.0** |
    | z | **20.0** | **20.0** |
    | average rank | 1.50 | 1.50 |
    | w/t/l vs B | 1/1/1 |  |
    """
    from treelab import stats

    if test not in TESTS:
        raise ValueError(f"test must be one of {sorted(TESTS)}, got {test!r}")
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) \
            or not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be a non-negative int, got {digits!r}")
    if rope is not None:
        from treelab.stats._bayes import check_rope

        check_rope(rope)
    scale, digits = float(scale), int(digits)
    da = _as_dataarray(results, var)
    for dim, arg in ((dim_dataset, "dim_dataset"), (dim_method, "dim_method")):
        if dim not in da.dims:
            raise ValueError(f"{arg}={dim!r} is not a dim of results (dims {tuple(da.dims)})")
    if dim_dataset == dim_method:
        raise ValueError(f"dim_dataset and dim_method must differ, both are {dim_method!r}")
    _check_unique(da[dim_dataset].values, f"data sets (along {dim_dataset!r})")
    _check_unique(da[dim_method].values, f"methods (along {dim_method!r})")
    if da.dtype.kind not in "fiub":
        raise TypeError(f"results must hold numbers, got dtype {da.dtype}")
    da = da.astype(float)
    if "alpha" in da.dims and dim_method != "alpha":
        da = collapse_alpha(da, dim_method, name="results")
    resample = [d for d in _RESAMPLING if d in da.dims and d not in (dim_dataset, dim_method)]
    other = [d for d in da.dims if d not in (dim_dataset, dim_method, *resample)]
    if any(da.sizes[d] > 1 for d in other):
        big = [d for d in other if da.sizes[d] > 1]
        raise ValueError(f"results has dims {big} besides {dim_dataset!r}, {dim_method!r} and "
                         f"the resamples; select one value of each first (e.g. "
                         f"results.sel({big[0]}=...))")
    da = da.isel({d: 0 for d in other}, drop=True)
    methods = list(da[dim_method].values)
    # a NaN at any resample makes the mean missing, as in treelab.stats.friedman
    mean = da.mean(resample, skipna=False) if resample else da
    n_resamples = int(np.prod([da.sizes[d] for d in resample])) if resample else 1
    spread = da.std(resample, ddof=1) if n_resamples > 1 else xr.full_like(mean, np.nan)

    def frame(x: xr.DataArray) -> pd.DataFrame:
        return x.transpose(dim_dataset, dim_method).to_pandas().astype(float)

    mean_f, spread_f = frame(mean), frame(spread)
    spread_f = spread_f.where(mean_f.notna())
    empty = mean_f.isna().all(axis=0)
    unranked = [m for m, e in zip(methods, empty, strict=True) if e]
    ranked = [m for m in methods if m not in unranked]
    if not ranked:
        raise ValueError(f"results has no value to rank: every method has a missing value "
                         f"(NaN) on every data set along {dim_dataset!r} (a NaN at any "
                         f"{' or '.join(resample) or 'cell'} makes a data set's mean missing)")
    holes = mean_f[ranked].isna()
    if holes.to_numpy().any():
        i, j = np.argwhere(holes.to_numpy())[0]
        raise ValueError(
            f"results has no value for {dim_dataset}={_plain(mean_f.index[i])!r}, "
            f"{dim_method}={_plain(ranked[j])!r}"
            + (f" (a NaN at some {' or '.join(resample)} makes the mean missing)"
               if resample else "")
            + f"; the average ranks and the Friedman test need a value of every method on "
              f"every data set: drop that data set or method first ({int(holes.sum().sum())} "
              f"missing in all)")
    # means that differ only by float rounding are ties for the bold, the wins and the ranks,
    # as in treelab.stats.friedman
    snapped = snap_ties(mean_f)
    values = -snapped if greater_is_better else snapped
    best = values.eq(values.min(axis=1), axis=0)
    if reference is None:
        reference = ranked[0]
    elif not any(m == reference for m in methods):
        raise ValueError(f"reference={reference!r} is not a method of {dim_method!r} "
                         f"({[_plain(m) for m in methods]})")
    elif not any(m == reference for m in ranked):
        raise ValueError(f"reference={reference!r} has no value on any data set of results")
    if len(ranked) >= 2 and mean_f.shape[0] >= 2:
        fried = stats.friedman(da.sel({dim_method: ranked}), dim_dataset=dim_dataset,
                               dim_method=dim_method, var=var,
                               greater_is_better=greater_is_better)
        average_rank = fried.average_rank.to_pandas().reindex(methods)
        chi2, chi2_p = float(fried.chi2), float(fried.chi2_p_value)
        f_f, f_p = float(fried.iman_davenport_f), float(fried.f_p_value)
    else:  # ranks still say something; the test needs 2 data sets and 2 methods
        average_rank = _ranks(values[ranked]).reindex(methods)
        chi2 = chi2_p = f_f = f_p = float("nan")
    if n_resamples < 2:
        test = "none"
    rows = {}
    for m in ranked:
        if m == reference:
            continue
        d = values[m] - values[reference]
        sig = np.zeros(len(d), dtype=int)
        if test != "none":
            sub = da.sel({dim_method: [m, reference]})
            sign = _significance(sub, reference, m, test, dim_method, dim_dataset,
                                 significance).reindex(values.index).to_numpy()
            sig = -sign if greater_is_better else sign
        rows[m] = {"wins": int((d < 0).sum()), "ties": int((d == 0).sum()),
                   "losses": int((d > 0).sum()), "significant_wins": int((sig < 0).sum()),
                   "significant_losses": int((sig > 0).sum())}
    wtl = pd.DataFrame.from_dict(rows, orient="index") if rows else None
    bayes = None
    if rope is not None and len(methods) > 1:
        bayes = pd.DataFrame({m: _bayesian(da, m, reference, rope, dim_dataset, dim_method,
                                           var, greater_is_better)
                              for m in methods if m != reference and m not in unranked}).T
    return ResultTable(
        mean=mean_f * scale, spread=spread_f * scale, best=best,
        wins_ties_losses=wtl, average_rank=average_rank,
        friedman_chi2=chi2, friedman_p=chi2_p, iman_davenport_f=f_f, iman_davenport_p=f_p,
        reference=reference, test=test, measure=measure or var, digits=digits,
        bayesian=bayes, rope=None if rope is None else float(rope),
        unranked=tuple(unranked))


def _bayesian(da: xr.DataArray, method: Any, reference: Any, rope: float, dim_dataset: str,
              dim_method: str, var: str, greater_is_better: bool) -> dict[str, float]:
    """P(method better), P(rope), P(method worse) against the reference over data sets."""
    from treelab import stats

    res = stats.bayesian_signed_rank(da, method, reference, rope=rope, dim_dataset=dim_dataset,
                                     dim_method=dim_method, var=var,
                                     greater_is_better=greater_is_better)
    return {"p_better": float(res.p_a_better), "p_rope": float(res.p_rope),
            "p_worse": float(res.p_b_better)}
