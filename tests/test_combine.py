"""Combination functions against hand-worked examples and the naive references."""

import math

import naive_analysis as naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelab import combine
from treelab.combine import vote_predict, vote_tiebreak

FAST = settings(max_examples=150, deadline=None)


@FAST
@given(naive.counts_problem(), st.booleans())
def test_average_matches_naive(counts, laplace):
    np.testing.assert_allclose(
        combine.average(counts, laplace=laplace), naive.average(counts, laplace), atol=1e-12
    )


@FAST
@given(naive.counts_problem())
def test_vote_and_sum_match_naive(counts):
    np.testing.assert_array_equal(combine.vote_predict(counts), naive.vote_predict(counts))
    frac = combine.vote(counts)
    np.testing.assert_allclose(frac.sum(axis=1), 1.0)
    winners = np.argmax(counts, axis=2)
    for c in range(counts.shape[2]):
        np.testing.assert_allclose(frac[:, c], np.mean(winners == c, axis=0))
    np.testing.assert_allclose(
        combine.distribution_sum(counts), naive.distribution_sum(counts), atol=1e-12
    )


@FAST
@given(naive.counts_problem(), st.data())
def test_likelihood_matches_naive(counts, data):
    T, _, C = counts.shape
    extra = data.draw(hnp.arrays(np.int64, (T, C), elements=st.integers(0, 20)))
    totals = counts.max(axis=1) + extra  # totals hold at least the leaf counts
    out = combine.likelihood(counts, totals)
    np.testing.assert_allclose(out, naive.likelihood(counts, totals), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


@FAST
@given(naive.counts_problem(), st.data())
def test_bayesian_matches_naive(counts, data):
    T, _, C = counts.shape
    leaves = [
        data.draw(
            st.lists(st.lists(st.integers(0, 9), min_size=C, max_size=C), min_size=1, max_size=4)
        )
        for _ in range(T)
    ]
    leaf_counts = np.array([leaf for tree in leaves for leaf in tree], dtype=np.float64)
    leaf_tree = np.array([t for t, tree in enumerate(leaves) for _ in tree])
    log_ev = combine.tree_log_evidence(leaf_counts, leaf_tree, T)
    np.testing.assert_allclose(log_ev, naive.log_evidence(leaves), rtol=1e-12, atol=1e-9)
    out = combine.bayesian(counts, log_ev)
    np.testing.assert_allclose(out, naive.bayesian(counts, list(log_ev)), atol=1e-12)


def test_likelihood_two_tree_hand_example():
    counts = np.array([[[3.0, 0.0]], [[1.0, 2.0]]])  # (tree, sample, class)
    totals = np.array([[6, 4], [5, 5]])
    # LS_A(c0) = (4/8)/(1/6) = 3, LS_B(c0) = (2/7)/(3/7) = 2/3; prior odds (6.5/12)/(5.5/12)
    # posterior odds O(c0) = 13/11 * 3 * 2/3 = 26/11 -> p0 = 26/37
    out = combine.likelihood(counts, totals)
    np.testing.assert_allclose(out, [[26 / 37, 11 / 37]], rtol=1e-12)


def test_likelihood_log_odds_hand_example_and_saturated_classes():
    counts = np.array([[[3.0, 0.0]], [[1.0, 2.0]]])
    totals = np.array([[6, 4], [5, 5]])
    # posterior odds 26/11 for class 0 and 11/26 for class 1 (the hand example above)
    np.testing.assert_allclose(combine.likelihood_log_odds(counts, totals),
                               [[math.log(26 / 11), math.log(11 / 26)]], rtol=1e-12)
    # eleven trees answering (9, 10, 0) of totals (9, 10, 1000): posterior odds of class 1
    # e^45.30, of class 0 e^44.07 (computed in exact fractions below); both probabilities
    # O / (1 + O) round to 1, so only the log odds rank them
    counts = np.tile([9.0, 10.0, 0.0], (11, 1, 1))
    totals = np.tile([9.0, 10.0, 1000.0], (11, 1))
    from fractions import Fraction as F

    def odds(c):
        n, N = [9, 10, 0], [9, 10, 1000]
        p = F(N[c] + 1, sum(N) + 3)
        ls = F(n[c] + 1, N[c] + 2) / F(sum(n) - n[c] + 1, sum(N) - N[c] + 2)
        return p / (1 - p) * ls ** 11

    z = combine.likelihood_log_odds(counts, totals)[0]
    np.testing.assert_allclose(z, [math.log(odds(c)) for c in range(3)], rtol=1e-12)
    assert np.argmax(z) == 1
    np.testing.assert_allclose(combine.likelihood(counts, totals)[0, :2], [0.5, 0.5])


def test_bayesian_two_tree_hand_example():
    # tree A leaves (3,0), (3,4): evidence 1/4 * 1/280; tree B leaves (1,2), (4,3): 1/12 * 1/280
    leaf_counts = np.array([[3, 0], [3, 4], [1, 2], [4, 3]])
    log_ev = combine.tree_log_evidence(leaf_counts, np.array([0, 0, 1, 1]), 2)
    np.testing.assert_allclose(np.exp(log_ev), [1 / 1120, 1 / 3360], rtol=1e-12)
    counts = np.array([[[3.0, 0.0]], [[1.0, 2.0]]])
    # weights 3/4, 1/4; Laplace (4/5, 1/5) and (2/5, 3/5)
    out = combine.bayesian(counts, log_ev)
    np.testing.assert_allclose(out, [[0.7, 0.3]], rtol=1e-12)
    assert combine.tree_log_evidence(leaf_counts, np.array([0, 0, 0, 0]), 3)[2] == 0


def test_vote_tie_break():
    counts = np.array(
        [
            # row 0: one vote each for 0 and 1; summed probability favours 1 (0.6+0.9 vs 0.4+0.1)
            # row 1: one vote each, equal summed probability -> lower index 0
            # row 2: classes 1, 2 tie on votes; class 0 has the largest summed probability but
            #        fewer votes, so it never wins; 2 has more summed probability than 1
            [[6, 4, 0], [6, 4, 0], [4, 5, 1]],
            [[1, 9, 0], [4, 6, 0], [4, 0, 6]],
        ],
        dtype=float,
    )
    np.testing.assert_array_equal(combine.vote_predict(counts), [1, 0, 2])
    np.testing.assert_allclose(combine.vote(counts)[0], [0.5, 0.5, 0.0])


def test_combine_proba_and_registry():
    assert set(combine.COMBINERS) == {"average", "vote", "sum", "likelihood", "bayesian"}
    counts = np.array([[[3.0, 1.0]], [[0.0, 2.0]]])
    np.testing.assert_allclose(combine.combine_proba("average", counts), [[0.375, 0.625]])
    np.testing.assert_allclose(
        combine.combine_proba("average", counts, laplace=True),
        [[(4 / 6 + 1 / 4) / 2, (2 / 6 + 3 / 4) / 2]],
    )
    np.testing.assert_allclose(combine.combine_proba("sum", counts), [[0.5, 0.5]])
    np.testing.assert_allclose(combine.combine_proba("distribution_sum", counts), [[0.5, 0.5]])
    np.testing.assert_allclose(combine.combine_proba("vote", counts), [[0.5, 0.5]])
    totals = np.array([[5, 5], [5, 5]])
    np.testing.assert_allclose(
        combine.combine_proba("likelihood", counts, class_totals=totals),
        combine.likelihood(counts, totals),
    )
    np.testing.assert_allclose(
        combine.combine_proba("bayesian", counts, log_evidence=[0.0, 0.0]),
        combine.average(counts, laplace=True),
    )
    with pytest.raises(ValueError, match="unknown"):
        combine.combine_proba("median", counts)
    with pytest.raises(ValueError, match="class_totals"):
        combine.combine_proba("likelihood", counts)
    with pytest.raises(ValueError, match="log_evidence"):
        combine.combine_proba("bayesian", counts)


def test_empty_leaf_is_uniform_and_large_counts_stable():
    counts = np.zeros((2, 1, 4))
    np.testing.assert_allclose(combine.average(counts), [[0.25] * 4])
    np.testing.assert_allclose(combine.distribution_sum(counts), [[0.25] * 4])
    big = np.array([[[1e6, 0.0]]] * 400)  # 400 trees of strong evidence: no overflow
    out = combine.likelihood(big, np.array([[2e6, 2e6]] * 400))
    assert np.all(np.isfinite(out)) and out[0, 0] == pytest.approx(1.0)
    ev = np.array([-1e5, -1e5 - math.log(3)])
    np.testing.assert_allclose(
        combine.bayesian(np.array([[[1.0, 0.0]], [[0.0, 1.0]]]), ev), [[7 / 12, 5 / 12]]
    )


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: combine.average(np.ones((2, 3))), "counts"),
        (lambda: combine.vote(-np.ones((1, 2, 3))), "counts"),
        (lambda: combine.likelihood(np.ones((2, 3, 2)), np.ones((3, 2))), "class_totals"),
        (lambda: combine.bayesian(np.ones((2, 3, 2)), np.zeros(3)), "log_evidence"),
        (lambda: combine.tree_log_evidence(np.ones((2, 2)), np.array([0, 5]), 2), "leaf_tree"),
        (lambda: combine.tree_log_evidence(np.ones(2), np.array([0, 1]), 2), "leaf_counts"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_vote_predict_with_laplace_is_the_estimators_vote():
    # predict(combine="vote", laplace=True) breaks vote ties by the summed Laplace estimates;
    # vote_predict(member_counts, laplace=True) must give the same classes, and on these
    # small forests the frequencies' tie-break gives other classes on some rows
    import treelab

    differ = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        X, y = rng.integers(0, 3, (12, 2)).astype(float), rng.integers(0, 3, 12)
        est = treelab.DisjointSampleTrees(n_estimators=2, combine="vote", laplace=True,
                                          random_state=seed).fit(X, y)
        counts = est.member_counts(X)
        np.testing.assert_array_equal(est.classes_[vote_predict(counts, laplace=True)],
                                      est.predict(X))
        differ += int(np.any(vote_predict(counts) != vote_predict(counts, laplace=True)))
    assert differ > 0


def test_vote_tiebreak_refuses_mismatched_inputs():
    with pytest.raises(ValueError, match="one shape"):
        vote_tiebreak(np.zeros((2, 3)), np.zeros((2, 2)), 3)
    with pytest.raises(ValueError, match="n_trees"):
        vote_tiebreak(np.zeros((2, 3)), np.zeros((2, 3)), 0)
    with pytest.raises(TypeError, match="laplace"):
        vote_predict(np.ones((2, 1, 2)), laplace="yes")
