"""A published table beside a measured one: paper, treelab and gap per cell.

:func:`compare` aligns the two tables on their common rows and columns and reports, per
column, the mean absolute gap and Spearman's rank correlation between the paper's and
treelab's values over the rows (do the data sets come out in the same order?), and over the
columns the Spearman correlation of the methods' average ranks (do the methods come out in
the same order?).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from treelab.report._render import fmt, to_html, to_latex, to_markdown
from treelab.stats._ties import snap_ties

__all__ = ["Comparison", "compare"]


def _spearman(a: pd.Series, b: pd.Series) -> float:
    ok = a.notna() & b.notna()
    if ok.sum() < 3 or a[ok].nunique() < 2 or b[ok].nunique() < 2:
        return float("nan")
    return float(scipy.stats.spearmanr(a[ok], b[ok]).statistic)


@dataclass(frozen=True)
class Comparison:
    """Paper beside treelab (build it with :func:`compare`).

    Attributes
    ----------
    paper, treelab, gap : pandas.DataFrame
        Aligned values (rows x columns) and ``treelab - paper``.
    mean_abs_gap : pandas.Series
        Mean of ``|gap|`` per column over the rows where both have a value.
    spearman : pandas.Series
        Spearman's rho per column between paper and treelab over those rows (NaN with fewer
        than 3 rows or a constant column).
    paper_rank, treelab_rank : pandas.Series
        Average rank of every column over the rows both fill (1 = smallest value, or largest
        with ``greater_is_better``); NaN with one column.
    rank_spearman : float
        Spearman's rho between the two average-rank vectors (NaN with fewer than 3 columns).
    overall_mean_abs_gap : float
        Mean ``|gap|`` over every cell both fill.
    digits : int
        Decimals shown.
    """

    paper: pd.DataFrame
    treelab: pd.DataFrame
    gap: pd.DataFrame
    mean_abs_gap: pd.Series
    spearman: pd.Series
    paper_rank: pd.Series
    treelab_rank: pd.Series
    rank_spearman: float
    overall_mean_abs_gap: float
    digits: int
    labels: tuple[str, str] = ("paper", "treelab")

    def cells(self) -> pd.DataFrame:
        """Display strings: for every column, paper | treelab | gap, then the footer rows
        (mean |gap|, Spearman rho, average rank of paper and treelab), after the data rows
        even when a row bears a footer's name."""
        body, footer = self._parts()
        return pd.concat([body, footer])

    def _parts(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The data rows' display strings and the footer rows, apart."""
        d = self.digits
        lp, lt = self.labels
        cols, footer = {}, {}
        for c in self.paper.columns:
            cols[f"{c} ({lp})"] = self.paper[c].map(lambda v: fmt(v, d))
            cols[f"{c} ({lt})"] = self.treelab[c].map(lambda v: fmt(v, d))
            cols[f"{c} gap"] = self.gap[c].map(lambda v: "" if pd.isna(v) else f"{v:+.{d}f}")
            footer[f"{c} gap"] = {"mean |gap|": fmt(self.mean_abs_gap[c], d),
                                  "Spearman rho": fmt(self.spearman[c], 2)}
            if self.paper_rank.notna().any():
                footer[f"{c} ({lp})"] = {"average rank": fmt(self.paper_rank[c], 2)}
                footer[f"{c} ({lt})"] = {"average rank": fmt(self.treelab_rank[c], 2)}
        body = pd.DataFrame(cols, index=self.paper.index).fillna("")
        rows = ["mean |gap|", "Spearman rho"] + (["average rank"]
                                                 if self.paper_rank.notna().any() else [])
        foot = pd.DataFrame([[footer.get(c, {}).get(r, "") for c in body.columns]
                             for r in rows], columns=body.columns, dtype=object)
        if isinstance(body.index, pd.MultiIndex):  # the label in the first level
            foot.index = pd.MultiIndex.from_tuples(
                [(r,) + ("",) * (body.index.nlevels - 1) for r in rows], names=body.index.names)
        else:
            foot.index = pd.Index(rows, dtype=object, name=body.index.name)
        return body, foot

    def caption(self) -> str:
        """The summaries in words."""
        text = (f"gap = {self.labels[1]} - {self.labels[0]}; mean |gap| over all "
                f"{int(self.gap.notna().to_numpy().sum())} cells both fill: "
                f"{fmt(self.overall_mean_abs_gap, self.digits)}.")
        if np.isfinite(self.rank_spearman):
            text += (f" Spearman rho of the columns' average ranks: "
                     f"{self.rank_spearman:.2f}.")
        return text

    def to_markdown(self, caption: bool = True) -> str:
        """The comparison as Markdown."""
        body, footer = self._parts()
        return to_markdown(body, None, self.caption() if caption else None, footer)

    def to_latex(self, caption: bool = True) -> str:
        """The comparison as a LaTeX booktabs tabular."""
        body, footer = self._parts()
        return to_latex(body, None, self.caption() if caption else None, footer)

    def to_html(self, caption: bool = True) -> Any:
        """The comparison as a pandas Styler."""
        body, footer = self._parts()
        return to_html(body, None, self.caption() if caption else None, footer)


def compare(
    paper: pd.DataFrame | pd.Series,
    treelab: pd.DataFrame | pd.Series,
    *,
    greater_is_better: bool = False,
    digits: int = 1,
    labels: tuple[str, str] = ("paper", "treelab"),
    ranks: bool = True,
) -> Comparison:
    """The paper's table beside treelab's: gap per cell, mean absolute gap and Spearman's rho.

    Both tables are aligned on their common rows and columns (in the paper's order); cells
    either leaves empty stay empty and count in no summary. With ``gap = treelab - paper``,
    the mean absolute gap of a column is mean_i |gap_i| over its filled rows, and Spearman's
    rho is the Pearson correlation of the two columns' ranks (``scipy.stats.spearmanr``).
    The methods' order is compared by their average ranks over the rows both fill.

    Parameters
    ----------
    paper, treelab : pandas.DataFrame or Series
        Rows (data sets, conditions) x columns (methods), numbers in the same units.
    greater_is_better : bool, default False
        Rank the largest value first when averaging ranks (accuracies).
    digits : int, default 1
        Decimals shown (a non-negative integer).
    labels : (str, str), default ("paper", "treelab")
        Names of the two sources in the headers.
    ranks : bool, default True
        Rank the columns against each other (methods); False when the columns are different
        quantities.

    Returns
    -------
    Comparison
        With ``to_markdown()``, ``to_latex()`` and ``to_html()``.

    Examples
    --------
    >>> import pandas as pd
    >>> paper = pd.DataFrame({"RF": [10.0, 20.0, 30.0]}, index=["a", "b", "c"])
    >>> mine = pd.DataFrame({"RF": [11.0, 19.0, 33.0]}, index=["a", "b", "c"])
    >>> c = compare(paper, mine)
    >>> c.gap["RF"].tolist(), float(c.mean_abs_gap["RF"]), float(c.spearman["RF"])
    ([1.0, -1.0, 3.0], 1.6666666666666667, 1.0)
    """
    if isinstance(paper, pd.Series):
        paper = paper.to_frame()
    if isinstance(treelab, pd.Series):
        treelab = treelab.to_frame()
    if not isinstance(paper, pd.DataFrame) or not isinstance(treelab, pd.DataFrame):
        raise TypeError("paper and treelab must be pandas DataFrames or Series")
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be a non-negative int, got {digits!r}")
    digits = int(digits)
    if isinstance(labels, str) or not isinstance(labels, Sequence) or len(labels) != 2 \
            or not all(isinstance(x, str) for x in labels):
        raise TypeError(f"labels must be two strings (paper's, treelab's), got {labels!r}")
    for frame, arg in ((paper, "paper"), (treelab, "treelab")):
        for axis, what in ((frame.index, "row"), (frame.columns, "column")):
            if axis.has_duplicates:
                twice = list(dict.fromkeys(axis[axis.duplicated()]))[:5]
                raise ValueError(f"{arg} has the {what} labels {twice} more than once: rows "
                                 "and columns are matched by label, so each must be unique")
    rows = [r for r in paper.index if r in treelab.index]
    cols = [c for c in paper.columns if c in treelab.columns]
    if not rows or not cols:
        raise ValueError("paper and treelab share no row and column: nothing to compare "
                         f"(rows {list(paper.index)[:5]}... vs {list(treelab.index)[:5]}...)")
    p = paper.loc[rows, cols].apply(pd.to_numeric, errors="coerce").astype(float)
    t = treelab.loc[rows, cols].apply(pd.to_numeric, errors="coerce").astype(float)
    gap = t - p
    both = gap.notna()
    mean_abs = gap.abs().where(both).mean()
    spear = pd.Series({c: _spearman(p[c], t[c]) for c in cols}, dtype=float)
    full = both.all(axis=1)
    sign = -1.0 if greater_is_better else 1.0
    if ranks and len(cols) > 1 and full.any():
        # values equal up to float rounding tie, as in treelab.stats.friedman
        pr = (sign * snap_ties(p[full])).rank(axis=1).mean()
        tr = (sign * snap_ties(t[full])).rank(axis=1).mean()
    else:
        pr = tr = pd.Series(np.nan, index=cols)
    rank_rho = _spearman(pr, tr) if len(cols) >= 3 else float("nan")
    overall = float(gap.abs().to_numpy()[both.to_numpy()].mean()) if both.to_numpy().any() \
        else float("nan")
    return Comparison(paper=p, treelab=t, gap=gap, mean_abs_gap=mean_abs, spearman=spear,
                      paper_rank=pr, treelab_rank=tr, rank_spearman=rank_rho,
                      overall_mean_abs_gap=overall, digits=digits, labels=tuple(labels))
