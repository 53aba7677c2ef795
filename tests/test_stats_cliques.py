"""Pairwise Wilcoxon/sign tests over data sets with Holm's correction, comparison with a
control, any p-value matrix, and the critical-difference diagram's cliques."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr

from treelab import plot, stats


def _errors(table: np.ndarray, names: list[str]) -> xr.DataArray:
    return xr.DataArray(table, dims=("dataset", "ensemble"),
                        coords={"dataset": [f"d{i}" for i in range(table.shape[0])],
                                "ensemble": names})


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's adjusted p-values worked from the definition: sorted ascending, the i-th
    (0-based) times (m - i), running maximum, capped at 1."""
    m = p.size
    order = np.argsort(p)
    adj = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        adj[j] = running
    return adj


@pytest.fixture
def four_methods() -> xr.DataArray:
    rng = np.random.default_rng(4)
    base = rng.uniform(0.05, 0.35, 20)
    table = np.stack([base, base + 0.02 + rng.normal(0, 0.01, 20),
                      base + 0.021 + rng.normal(0, 0.01, 20),
                      base + 0.06 + rng.normal(0, 0.01, 20)], axis=1)
    return _errors(table, ["A", "B", "C", "D"])


def test_pairwise_wilcoxon_holm_against_scikit_posthocs(four_methods):
    sp = pytest.importorskip("scikit_posthocs")
    res = stats.pairwise_over_datasets(four_methods)
    long = four_methods.to_dataframe(name="v").reset_index()
    ref = sp.posthoc_wilcoxon(long, val_col="v", group_col="ensemble", p_adjust="holm",
                              zero_method="wilcox")
    ours = res.p_holm.to_pandas().loc[ref.index, ref.columns].to_numpy()
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose(ours[off], ref.to_numpy()[off], rtol=1e-10)
    # and from the definition: scipy's Wilcoxon p per pair, Holm by hand
    names = list(four_methods.ensemble.values)
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    raw = np.array([scipy.stats.wilcoxon(four_methods.values[:, i] - four_methods.values[:, j])
                    .pvalue for i, j in pairs])
    adj = _holm(raw)
    for (i, j), q in zip(pairs, adj, strict=True):
        assert float(res.p_holm.sel(ensemble=names[i], versus=names[j])) == \
            pytest.approx(q, rel=1e-12)
    assert "Wilcoxon" in res.attrs["test"]


def test_decision_does_not_depend_on_the_pool():
    # A beats B on each of 12 data sets. Alone, Nemenyi finds them different; add two methods
    # worse than both and A and B keep ranks 1 and 2 on every data set, yet Nemenyi's standard
    # error sqrt(k (k + 1) / (6 N)) grows with k and the same pair is no longer different.
    # The Wilcoxon test of A against B reads their values only: its p-value does not move.
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 0.3, 12)
    b = a + 0.01 + rng.uniform(0, 0.002, 12)
    pair = _errors(np.stack([a, b], 1), ["A", "B"])
    worse = [b + 0.05 * (i + 1) for i in range(2)]
    pool = _errors(np.stack([a, b, *worse], 1), ["A", "B", "W0", "W1"])
    p_pair = float(stats.pairwise_over_datasets(pair).p_value.sel(ensemble="A", versus="B"))
    p_pool = float(stats.pairwise_over_datasets(pool).p_value.sel(ensemble="A", versus="B"))
    assert p_pair == p_pool
    n_pair = float(stats.nemenyi(pair).p_value.sel(ensemble="A", versus="B"))
    n_pool = float(stats.nemenyi(pool).p_value.sel(ensemble="A", versus="B"))
    assert n_pair < 0.05 < n_pool


def test_sign_test_splits_ties():
    # A better on 7 data sets, worse on 1, 2 ties: Demsar's sign test counts 8 wins of 10
    a = np.array([0.1] * 7 + [0.3] + [0.2, 0.2])
    b = np.array([0.2] * 7 + [0.2] + [0.2, 0.2])
    res = stats.pairwise_over_datasets(_errors(np.stack([a, b], 1), ["A", "B"]), test="sign")
    expected = scipy.stats.binomtest(8, 10, 0.5).pvalue
    assert float(res.p_value.sel(ensemble="A", versus="B")) == pytest.approx(expected)


def test_holm_control_by_hand(four_methods):
    res = stats.holm_control(four_methods, control="A")
    t = four_methods.values
    raw = np.array([scipy.stats.wilcoxon(t[:, j] - t[:, 0]).pvalue for j in (1, 2, 3)])
    np.testing.assert_allclose(res.p_holm.values[1:], _holm(raw), rtol=1e-12)
    assert not bool(res.significant.sel(ensemble="A"))
    ranks = stats.holm_control(four_methods, control="A", test="ranks")
    fr = stats.friedman(four_methods)
    z = (fr.average_rank.values[1:] - fr.average_rank.values[0]) / np.sqrt(4 * 5 / (6 * 20))
    np.testing.assert_allclose(ranks.p_holm.values[1:],
                               _holm(2 * scipy.stats.norm.sf(np.abs(z))), rtol=1e-12)


def test_missing_cells_refused_or_dropped_by_the_stated_rule(four_methods):
    holey = four_methods.copy()
    holey[3, 2] = np.nan
    with pytest.raises(ValueError, match="missing"):
        stats.pairwise_over_datasets(holey)
    res = stats.pairwise_over_datasets(holey, missing="drop_datasets")
    assert res.attrs["dropped_datasets"] == "d3"
    full = stats.pairwise_over_datasets(four_methods.drop_sel(dataset="d3"))
    np.testing.assert_array_equal(res.p_holm.values, full.p_holm.values)
    np.testing.assert_array_equal(res.average_rank.values, full.average_rank.values)
    with pytest.raises(ValueError, match="missing must be"):
        stats.pairwise_over_datasets(four_methods, missing="ignore")


def test_significance_cliques_hand_worked():
    ranks = np.array([1.2, 1.5, 2.9, 3.1, 3.3])
    sig = np.zeros((5, 5), dtype=bool)
    for i, j in [(0, 2), (0, 3), (0, 4), (1, 3), (1, 4)]:
        sig[i, j] = sig[j, i] = True
    # in rank order: {0, 1} and {1, 2} and {2, 3, 4} are cliques; {1, 2} is not contained in
    # another
    assert stats.significance_cliques(ranks, sig) == [(0, 1), (1, 2), (2, 4)]
    shuffled = [3, 0, 4, 1, 2]
    assert stats.significance_cliques(ranks[shuffled], sig[np.ix_(shuffled, shuffled)]) == \
        [(0, 1), (1, 2), (2, 4)]


def _bars_by_definition(ranks, sig):
    """Maximal rank intervals [lo, hi] over the distinct ranks whose methods (all those with a
    rank in it, two at least) hold no significant pair, as (first, last) sorted positions."""
    order = np.argsort(ranks, kind="stable")
    r = ranks[order]
    levels = sorted(set(r.tolist()))
    found = []
    for lo in levels:
        for hi in levels:
            inside = [i for i in range(len(r)) if lo <= r[i] <= hi]
            if hi < lo or len(inside) < 2:
                continue
            members = order[inside]
            if not sig[np.ix_(members, members)].any():
                found.append((inside[0], inside[-1]))
    return sorted(b for b in found
                  if not any(o != b and o[0] <= b[0] and b[1] <= o[1] for o in found))


def test_significance_cliques_keep_tied_methods_together():
    # ranks 1, 2, 2, 3; only m0 and m2 differ. m1 and m2 sit at one point of the axis, so a
    # bar from rank 1 to rank 2 would join m0 and m2 too: the one bar is m1, m2, m3. Listing
    # m1 before m2 had given the bars (0, 1) and (1, 3), listing m2 first (1, 3) alone
    ranks = np.array([1.0, 2.0, 2.0, 3.0])
    sig = np.zeros((4, 4), dtype=bool)
    sig[0, 2] = sig[2, 0] = True
    assert stats.significance_cliques(ranks, sig) == [(1, 3)]
    swapped = [0, 2, 1, 3]
    assert stats.significance_cliques(ranks[swapped], sig[np.ix_(swapped, swapped)]) == [(1, 3)]
    assert _bars_by_definition(ranks, sig) == [(1, 3)]
    # two methods of one rank that differ: no bar covers that rank
    sig = np.zeros((4, 4), dtype=bool)
    sig[1, 2] = sig[2, 1] = True
    assert stats.significance_cliques(ranks, sig) == []


def test_significance_cliques_match_the_definition_with_ties():
    rng = np.random.default_rng(11)
    for _ in range(1500):
        k = int(rng.integers(2, 8))
        ranks = rng.integers(1, 5, k) / 2.0  # few distinct values: many ties
        sig = np.triu(rng.random((k, k)) < 0.3, 1)
        sig = sig | sig.T
        perm = rng.permutation(k)
        got = stats.significance_cliques(ranks, sig)
        assert sorted(got) == _bars_by_definition(ranks, sig), (ranks, sig)
        # in bar terms (rank intervals) the answer does not depend on the methods' order
        as_ranks = {(float(np.sort(ranks)[a]), float(np.sort(ranks)[b])) for a, b in got}
        shuffled = stats.significance_cliques(ranks[perm], sig[np.ix_(perm, perm)])
        assert {(float(np.sort(ranks)[a]), float(np.sort(ranks)[b])) for a, b in shuffled} \
            == as_ranks


def test_any_p_value_matrix_and_the_diagram(four_methods):
    import matplotlib.pyplot as plt

    p = pd.DataFrame(np.ones((4, 4)), index=list("ABCD"), columns=list("ABCD"))
    p.loc["A", "D"] = p.loc["D", "A"] = 0.001
    ranks = stats.friedman(four_methods).average_rank.to_pandas()
    res = stats.pairwise_p_values(p, ranks, test="a test")
    ax = plot.critical_difference(res)
    bars = [line for line in ax.get_lines() if line.get_gid() == "clique"]
    assert len(bars) == len(stats.significance_cliques(ranks.values, res.significant.values))
    assert len(bars) == 2  # {A, B, C} and {B, C, D}
    with pytest.raises(ValueError, match="symmetric"):
        bad = p.copy()
        bad.loc["A", "B"] = 0.5
        stats.pairwise_p_values(bad, ranks)
    # a raw result: Wilcoxon-Holm by default, Nemenyi on request
    ax = plot.critical_difference(four_methods)
    assert any("Wilcoxon" in t.get_text() for t in ax.texts)
    ax = plot.critical_difference(four_methods, test="nemenyi")
    assert any(t.get_text().startswith("CD = ") for t in ax.texts)
    ax = plot.critical_difference(stats.holm_control(four_methods, control="A"))
    assert [line for line in ax.get_lines() if line.get_gid() == "control-interval"]
    with pytest.raises(ValueError, match="friedman"):
        plot.critical_difference(stats.friedman(four_methods))
    plt.close("all")


@pytest.mark.parametrize("test", ["holm_control", "bonferroni_dunn"])
def test_a_control_that_is_no_method_is_refused_naming_it(test):
    errors = xr.DataArray(np.arange(12.0).reshape(4, 3) % 5, dims=("dataset", "ensemble"),
                          coords={"ensemble": ["A", "B", "C"]})
    with pytest.raises(ValueError, match=r"control='D' is not a method of 'ensemble' "
                                         r"\(\['A', 'B', 'C'\]\)"):
        getattr(stats, test)(errors, control="D")


def test_holm_rejects_strictly_below_the_level_everywhere():
    # six data sets, A lower on all: the exact two-sided Wilcoxon p is 2 / 2^6 = 0.03125
    a = np.array([0.10, 0.20, 0.30, 0.40, 0.50, 0.60])
    diff = np.array([0.01, 0.02, 0.03, 0.04, 0.05, 0.06])
    assert scipy.stats.wilcoxon(-diff).pvalue == 2 / 2**6
    # A against B and C alike: Holm over two comparisons, p_(1) = 0.03125 = alpha / 2 and
    # p~ = 0.0625 = alpha exactly: "rejected while p_(i) < alpha / (m - i + 1)" rejects none
    three = xr.DataArray(np.column_stack([a, a + diff, a + 2 * diff]),
                         dims=("dataset", "ensemble"), coords={"ensemble": ["A", "B", "C"]})
    alpha = 2 * 2 / 2**6
    hc = stats.holm_control(three, control="A", significance=alpha)
    np.testing.assert_array_equal(hc.p_holm.values, [1.0, alpha, alpha])
    assert not hc.significant.values.any()
    assert stats.holm_control(three, control="A",
                              significance=np.nextafter(alpha, 1)).significant.values.tolist() \
        == [0, 1, 1]
    # all three pairs have p 0.03125: Holm over m = 3 gives 0.09375 for every pair
    pw = stats.pairwise_over_datasets(three, significance=3 / 2**5)
    assert float(pw.p_holm.sel(ensemble="A", versus="B")) == 3 / 2**5
    assert not pw.significant.values.any()
    # the same p-values given as a matrix: pairwise_p_values decides p < significance alike
    given = stats.pairwise_p_values(pw.p_holm.to_pandas(), pw.average_rank.to_pandas(),
                                    significance=3 / 2**5)
    np.testing.assert_array_equal(given.significant.values, pw.significant.values)
    # wilcoxon_holm over folds: two data sets, each six folds all in A's favour
    folds = xr.DataArray(np.stack([np.stack([a, a]), np.stack([a + diff, a + diff])]),
                         dims=("ensemble", "dataset", "fold"),
                         coords={"ensemble": ["A", "B"], "dataset": ["d0", "d1"]})
    wh = stats.wilcoxon_holm(folds, "A", "B", significance=alpha)
    np.testing.assert_array_equal(wh.p_holm.values, [alpha, alpha])
    assert not wh.significant.values.any()
