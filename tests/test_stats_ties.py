"""Values that differ only by floating-point rounding are ties in every rank and every
win/tie/loss count of treelab.stats and treelab.report, checked against exact arithmetic
(fractions) and scipy's ranks of the exact values."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr

from treelab import stats
from treelab.report import compare, table
from treelab.stats._ties import TIE_TOLERANCE, snap_rows

A_ROWS = [[3, 3], [3, 3], [2, 2]]  # wrong rows per fold of 50, data sets d0, d1, d2
B_ROWS = [[1, 5], [1, 5], [2, 3]]


def _folds() -> xr.DataArray:
    """Two methods on three data sets, two folds of 50 rows: on d0 and d1 A errs on 3 and 3
    rows, B on 1 and 5 (equal mean errors, 6/100, whose float means differ in the last bit);
    on d2 B errs on one row more."""
    values = [[[[x / 50 for x in rows[d]]] for rows in (A_ROWS, B_ROWS)] for d in range(3)]
    return xr.DataArray(np.array(values), dims=("dataset", "ensemble", "repeat", "fold"),
                        coords={"dataset": ["d0", "d1", "d2"], "ensemble": ["A", "B"]})


def _exact_means() -> np.ndarray:
    return np.array([[float(sum(Fraction(x, 50) for x in rows[d]) / 2)
                      for rows in (A_ROWS, B_ROWS)] for d in range(3)])


def test_the_example_differs_in_the_last_bit():
    means = _folds().mean(["repeat", "fold"]).values
    assert means[0, 0] != means[0, 1]  # 0.06 against 0.060000000000000005
    exact = _exact_means()
    assert exact[0, 0] == exact[0, 1]


def test_ranks_of_float_noise_ties_are_shared():
    da = _folds()
    expected = scipy.stats.rankdata(_exact_means(), axis=1)  # [1.5, 1.5], [1.5, 1.5], [1, 2]
    for result in (stats.friedman(da), stats.nemenyi(da),
                   stats.bonferroni_dunn(da, control="A"),
                   stats.pairwise_over_datasets(da), stats.holm_control(da, control="A")):
        np.testing.assert_array_equal(result["rank"].values, expected)
        np.testing.assert_array_equal(result.average_rank.values, expected.mean(axis=0))


def test_win_tie_loss_counts_of_float_noise_ties():
    da = _folds()
    # A lower on d2 (4 wrong rows against 5), ties on d0 and d1
    assert stats.wins_ties_losses(da, control="B").loc["A", "w/t/l"] == "1/2/0"
    # the sign test splits the two ties evenly (Demsar): 1 + 1 wins of A in 3
    sign = stats.pairwise_over_datasets(da, test="sign")
    assert float(sign.p_value.sel(ensemble="A", versus="B")) == pytest.approx(
        scipy.stats.binomtest(2, 3, 0.5).pvalue)
    t = table(da, reference="B", test="none")
    assert t.wins_ties_losses.loc["A", ["wins", "ties", "losses"]].tolist() == [1, 2, 0]
    assert t.best.loc[["d0", "d1"]].all(axis=None)  # both methods best on d0 and d1
    np.testing.assert_array_equal(t.average_rank.to_numpy(),
                                  scipy.stats.rankdata(_exact_means(), axis=1).mean(axis=0))


def test_tolerance_is_compared_up_to_rounding():
    # |0.4 - 0.3| and |0.3 - 0.2| are 0.1 as decimals; as floats 0.10000000000000003 and
    # 0.09999999999999998: both are ties at tol = 0.1 ("at most tol")
    da = xr.DataArray([[0.3, 0.4], [0.2, 0.3], [0.1, 0.35]], dims=("dataset", "ensemble"),
                      coords={"ensemble": ["A", "B"], "dataset": ["d0", "d1", "d2"]})
    decimal = [abs(Fraction(str(b)) - Fraction(str(a))) for a, b in da.values]
    expected_ties = sum(d <= Fraction("0.1") for d in decimal)
    assert expected_ties == 2
    assert stats.wins_ties_losses(da, control="B", tol=0.1).loc["A", "w/t/l"] == "1/2/0"


def test_the_tolerance_scales_with_the_values():
    # mean squared errors near 12345.6: two values two ulps apart (3.6e-12, above 1e-12)
    # are rounding, a difference of 1e-6 is not
    x = 12345.6
    y = np.nextafter(np.nextafter(x, np.inf), np.inf)
    assert 1e-12 < y - x < TIE_TOLERANCE * x
    da = xr.DataArray([[x, y], [x, x + 1e-6]], dims=("dataset", "ensemble"),
                      coords={"ensemble": ["A", "B"], "dataset": ["d0", "d1"]})
    np.testing.assert_array_equal(stats.friedman(da)["rank"].values, [[1.5, 1.5], [1, 2]])
    np.testing.assert_array_equal(snap_rows(da.values), [[x, x], [x, x + 1e-6]])


def test_compare_ranks_float_noise_ties_as_ties():
    paper = pd.DataFrame({"A": [6.0, 2.0], "B": [6.0, 3.0]}, index=["d0", "d1"])
    means = _folds().mean(["repeat", "fold"]).values[:2] * 100  # d0, d1: 6.0 and 6.000...01
    mine = pd.DataFrame({"A": [means[0, 0], 2.0], "B": [means[0, 1], 3.0]}, index=["d0", "d1"])
    assert mine.loc["d0", "A"] != mine.loc["d0", "B"]
    cmp = compare(paper, mine)
    assert cmp.treelab_rank.tolist() == cmp.paper_rank.tolist() == [1.25, 1.75]
