"""The random split rules against their definitions (algorithms spec 2.2, 2.4, 2.6; PERT).

Each test grows thousands of depth-one (or depth-two) trees on a tiny fixed data set, so every
tree's root is one independent draw of the rule, and compares the roots' features and thresholds
with the exact law worked out by hand from the definition: a chi-square goodness-of-fit test on
the discrete parts (which pair of values, which feature, which gap between distinct values) and
a Kolmogorov-Smirnov test on the continuous parts. Seeds are fixed, so the tests are
deterministic; the significance level ``LEVEL`` = 1e-6 makes a false alarm negligible, while
every wrong law tried below gives p-values far smaller.

The laws
--------
- ``pair_midpoint`` (Liu et al. 2008): the first value is drawn uniformly over the node's rows
  with a value, the second over the rows with another value. With n_v rows of value v among m,
  the pair {a, b} has probability (n_a n_b / m) (1 / (m - n_a) + 1 / (m - n_b)): not uniform
  over pairs of rows, nor over pairs of distinct values, when values repeat.
- ``uniform`` (Fan et al. 2003): uniform between the node's minimum and maximum of the feature.
- ``pert`` (Cutler & Zhao 2001): a uniformly drawn pair of rows of different classes, a feature
  drawn uniformly among those on which the two rows differ, a threshold uniform between their
  two values: a mixture of uniforms over the valid pairs.
- random feature draw (spec 2.2): uniform over the node's available features only (a continuous
  feature with two distinct values there, a nominal one not used on the path with two values
  present).
- Extra-Trees (Geurts et al. 2006): every one of ``max_features`` drawn features gets one
  threshold uniform in [min, max); the best by the criterion is kept (ties to the first).

Mutations tried (each edited into the engine, the test run and seen to fail, then reverted)
-------------------------------------------------------------------------------------------
- ``_thresholds.pair_midpoint``: after a rejected second value, the first one redrawn too (so the
  pair is uniform over pairs of rows with different values):
  ``test_pair_midpoint_law_with_repeated_values`` fails (p = 2e-10).
- ``_thresholds.uniform_threshold``: ``lo + u (hi - lo)`` changed to ``lo + u^2 (hi - lo)``:
  ``test_uniform_rule_is_uniform_between_min_and_max``, ``test_pert_law_of_feature_and_threshold``
  and both Extra-Trees tests fail (p < 1e-39).
- ``_select.random_select``: the features visited in index order from one random start (so a
  feature after unavailable ones is drawn more often) instead of drawn without replacement:
  ``test_random_feature_draw_is_uniform_over_available_features`` (p = 1e-143) and
  ``test_feature_draw_below_a_nominal_split_excludes_it`` fail.
- ``_select.deterministic_select``: Extra-Trees keeping the first candidate rather than the best:
  ``test_extra_trees_joint_law_of_feature_and_threshold`` fails (p = 0).
- PERT's threshold uniform between the two rows' values replaced by their midpoint:
  ``test_pert_law_of_feature_and_threshold`` fails (p = 3e-85).
Removing the ``used[f]`` exclusion of nominal features alone changes nothing observable: below a
nominal m-ary split every row of a branch holds the same value (missing rows aside), so the
feature is unavailable there anyway; the test of depth-two trees checks the behaviour.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from treelab.estimators import PERT, ExtraTrees, MaxDiverseEnsemble, RandomDecisionTrees

LEVEL = 1e-6
N_TREES = 4000


def roots(model):
    """(kind, feature, threshold) of every tree's root."""
    fr = model.forest_
    r = fr.node_offsets[:-1]
    return fr.kind[r], fr.feature[r], fr.threshold[r]


def chisquare_p(observed, expected_p):
    observed = np.asarray(observed, dtype=float)
    expected_p = np.asarray(expected_p, dtype=float)
    assert expected_p.sum() == pytest.approx(1.0)
    return stats.chisquare(observed, observed.sum() * expected_p).pvalue


def pair_law(values):
    """Exact law of the pair-midpoint threshold over the midpoints of distinct value pairs."""
    vals, counts = np.unique(values[~np.isnan(values)], return_counts=True)
    m = counts.sum()
    law = {}
    for (a, na), (b, nb) in itertools.combinations(zip(vals, counts, strict=True), 2):
        law[(a + b) / 2] = na * nb / m * (1 / (m - na) + 1 / (m - nb))
    return law


def test_pair_midpoint_law_with_repeated_values():
    # value 0 three times, 1 once, 3 once, and a missing value: pairs {0,1} and {0,3} each have
    # probability 0.45 and {1,3} 0.1 (uniform over row pairs would give 3/7, 3/7, 1/7)
    x = np.array([0.0, 0.0, 0.0, 1.0, 3.0, np.nan])
    y = np.array([0, 1, 0, 1, 0, 1])
    law = pair_law(x)
    assert law == pytest.approx({0.5: 0.45, 1.5: 0.45, 2.0: 0.1})
    model = MaxDiverseEnsemble(n_estimators=N_TREES, max_depth=1, random_split="pair_midpoint",
                               random_state=0).fit(x[:, None], y)
    kind, _, thr = roots(model)
    assert (kind == 1).all()
    keys = sorted(law)
    assert set(np.unique(thr)) <= set(keys)
    observed = [(thr == k).sum() for k in keys]
    assert chisquare_p(observed, [law[k] for k in keys]) > LEVEL
    # the wrong laws are far off with this many trees
    assert chisquare_p(observed, [3 / 7, 3 / 7, 1 / 7]) < LEVEL
    assert chisquare_p(observed, [1 / 3, 1 / 3, 1 / 3]) < LEVEL


def test_pair_midpoint_law_many_values():
    # five distinct values with multiplicities 4, 1, 2, 1, 3: ten pairs
    x = np.repeat([0.0, 1.0, 2.5, 4.0, 7.0], [4, 1, 2, 1, 3])
    y = np.arange(x.size) % 2
    law = pair_law(x)
    assert sum(law.values()) == pytest.approx(1.0)
    model = MaxDiverseEnsemble(n_estimators=N_TREES, max_depth=1, random_state=1).fit(
        x[:, None], y)
    _, _, thr = roots(model)
    keys = sorted(law)
    assert np.isin(thr, keys).all()
    assert chisquare_p([(thr == k).sum() for k in keys], [law[k] for k in keys]) > LEVEL


def test_uniform_rule_is_uniform_between_min_and_max():
    x = np.array([-2.0, -2.0, 0.5, 1.0, np.nan, 6.0, 6.0])
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    for cls in (MaxDiverseEnsemble, RandomDecisionTrees):
        model = cls(n_estimators=N_TREES, max_depth=1, random_split="uniform",
                    random_state=2).fit(x[:, None], y)
        kind, _, thr = roots(model)
        assert (kind == 1).all()
        assert ((thr >= -2.0) & (thr < 6.0)).all()
        assert stats.kstest(thr, stats.uniform(-2.0, 8.0).cdf).pvalue > LEVEL
        # not uniform over the gaps between distinct values, nor between their midpoints
        assert stats.kstest(thr, stats.uniform(-1.25, 6.75).cdf).pvalue < LEVEL


def pert_law(X, y):
    """Per valid pair of rows (different classes, some differing feature): the probability of
    each feature, and the pair's (lo, hi) on it. Every valid unordered pair is equally likely."""
    rows = []
    for a, b in itertools.combinations(range(len(y)), 2):
        if y[a] == y[b]:
            continue
        differ = [f for f in range(X.shape[1]) if X[a, f] != X[b, f]]
        for f in differ:
            lo, hi = sorted((X[a, f], X[b, f]))
            rows.append((f, 1.0 / len(differ), lo, hi))
    n_pairs = sum(w for _, w, _, _ in rows)
    return [(f, w / n_pairs, lo, hi) for f, w, lo, hi in rows]


def test_pert_law_of_feature_and_threshold():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [3.0, 2.0], [3.0, 4.0], [4.0, 9.0]])
    y = np.array([0, 1, 0, 1, 1])
    law = pert_law(X, y)
    model = PERT(n_estimators=N_TREES, max_depth=1, bootstrap=False, random_state=3).fit(X, y)
    kind, feat, thr = roots(model)
    # a leaf only after ten draws of same-class pairs: (13/25)^10 ~ 0.0014 per tree
    split = kind == 1
    assert split.mean() > 0.99
    feat, thr = feat[split], thr[split]
    p_feature = [sum(w for f, w, _, _ in law if f == g) for g in range(2)]
    assert chisquare_p(np.bincount(feat, minlength=2), p_feature) > LEVEL
    for g in range(2):
        parts = [(w, lo, hi) for f, w, lo, hi in law if f == g]
        tot = sum(w for w, _, _ in parts)

        def cdf(t, parts=parts, tot=tot):
            t = np.asarray(t, dtype=float)
            return sum(w * np.clip((t - lo) / (hi - lo), 0, 1) for w, lo, hi in parts) / tot

        assert stats.kstest(thr[feat == g], cdf).pvalue > LEVEL
    # the midpoint of the two rows' values instead: a discrete law, far from the mixture
    assert np.unique(thr).size > 100


def test_random_feature_draw_is_uniform_over_available_features():
    rng = np.random.default_rng(4)
    n = 12
    y = np.arange(n) % 2
    X = np.column_stack([
        np.full(n, 2.0),                  # 0: constant, never available
        rng.integers(0, 3, n),            # 1: nominal, three values
        rng.normal(size=n),               # 2: continuous
        np.where(np.arange(n) < 6, 1.0, np.nan),  # 3: one value and missing ones
        rng.normal(size=n),               # 4: continuous
        np.full(n, -1.0),                 # 5: constant
    ])
    X[0, 1], X[1, 1], X[2, 1] = 0, 1, 2
    for rule in ("pair_midpoint", "uniform", "pert"):
        model = MaxDiverseEnsemble(n_estimators=N_TREES, max_depth=1, random_split=rule,
                                   categorical_features=[1], random_state=5).fit(X, y)
        kind, feat, _ = roots(model)
        split = kind != 0
        counts = np.bincount(feat[split], minlength=6)
        assert counts[[0, 3, 5]].sum() == 0
        if rule == "pert":
            continue  # PERT draws among the features on which a pair differs (its own test)
        assert split.all()
        assert (kind[feat == 1] == 2).all()
        assert chisquare_p(counts[[1, 2, 4]], [1 / 3] * 3) > LEVEL
        # feature order biases (the next feature after an unavailable one) are far off
        assert chisquare_p(counts[[1, 2, 4]], [0.5, 1 / 6, 1 / 3]) < LEVEL


def test_feature_draw_below_a_nominal_split_excludes_it():
    # depth-two complete-random trees: below a nominal root, the two continuous features share
    # the draws evenly and the nominal feature is never drawn again
    rng = np.random.default_rng(6)
    n = 24
    X = np.column_stack([np.repeat([0.0, 1.0], n // 2), rng.normal(size=n), rng.normal(size=n)])
    y = np.tile([0, 1, 1], n // 3)
    model = MaxDiverseEnsemble(n_estimators=N_TREES, max_depth=2, categorical_features=[0],
                               random_state=7).fit(X, y)
    fr = model.forest_
    r = fr.node_offsets[:-1]
    kind_root = fr.kind[r]
    assert chisquare_p(np.bincount(fr.feature[r], minlength=3), [1 / 3] * 3) > LEVEL
    nominal_roots = r[kind_root == 2]
    kids = (fr.node_offsets[:-1][kind_root == 2][:, None]
            + fr.child_start[nominal_roots][:, None] + np.arange(2)[None, :]).ravel()
    assert (fr.kind[kids] == 1).all()
    kid_feat = fr.feature[kids]
    assert (kid_feat != 0).all()
    assert chisquare_p(np.bincount(kid_feat, minlength=3)[1:], [0.5, 0.5]) > LEVEL


def gini_gain(x, y, t):
    def gini(v):
        if v.size == 0:
            return 0.0
        p = np.bincount(v, minlength=2) / v.size
        return 1 - (p ** 2).sum()

    left = x <= t
    n = y.size
    return gini(y) - left.sum() / n * gini(y[left]) - (~left).sum() / n * gini(y[~left])


def extra_trees_law(X, y):
    """P(feature f, threshold in gap j) for Extra-Trees with max_features = d (every feature a
    candidate in index order, one uniform threshold each, best gain kept, ties to the first)."""
    d = X.shape[1]
    gaps = []
    for f in range(d):
        u = np.unique(X[:, f])
        width = np.diff(u) / (u[-1] - u[0])
        gain = np.array([gini_gain(X[:, f], y, u[j]) for j in range(u.size - 1)])
        gaps.append((u, width, gain))
    law = {}
    for f, (_, width, gain) in enumerate(gaps):
        for j in range(width.size):
            p = width[j]
            for g, (_, w2, gain2) in enumerate(gaps):
                if g == f:
                    continue
                tie = np.isclose(gain2, gain[j], rtol=1e-12, atol=0)
                beats = gain2 > gain[j]
                # an earlier feature wins ties, a later one loses them
                lose = beats & ~tie | (tie if g < f else np.zeros_like(tie))
                p *= 1 - w2[lose].sum()
            law[(f, j)] = p
    return law, gaps


def test_extra_trees_joint_law_of_feature_and_threshold():
    X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 3.0], [3.0, 3.2], [4.0, 6.0], [5.0, 6.1],
                  [6.0, 9.0], [7.0, 10.0]])
    y = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    law, gaps = extra_trees_law(X, y)
    assert sum(law.values()) == pytest.approx(1.0)
    model = ExtraTrees(n_estimators=N_TREES, max_features=None, max_depth=1,
                       random_state=8).fit(X, y)
    kind, feat, thr = roots(model)
    assert (kind == 1).all()
    keys = sorted(law)
    gap = np.array([np.searchsorted(gaps[f][0], t, side="right") - 1
                    for f, t in zip(feat, thr, strict=True)])
    observed = [((feat == f) & (gap == j)).sum() for f, j in keys]
    expected = np.array([law[k] for k in keys])
    big = expected * N_TREES >= 5
    # cells expected below 5 times pooled into one
    obs = np.append(np.array(observed)[big], np.array(observed)[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    assert chisquare_p(obs, exp) > LEVEL
    # within its gap the threshold is uniform
    u_lo = np.array([gaps[f][0][j] for f, j in zip(feat, gap, strict=True)])
    u_hi = np.array([gaps[f][0][j + 1] for f, j in zip(feat, gap, strict=True)])
    assert stats.kstest((thr - u_lo) / (u_hi - u_lo), "uniform").pvalue > LEVEL
    # keeping the first candidate instead of the best: feature 0 always, its gaps by width
    assert chisquare_p([(feat == 0).sum(), (feat == 1).sum()],
                       [1 - 1e-9, 1e-9]) < LEVEL


def test_extra_trees_feature_draw_skips_constant_features():
    rng = np.random.default_rng(9)
    n = 10
    X = np.column_stack([np.full(n, 3.0), rng.normal(size=n), np.full(n, 0.0),
                         rng.normal(size=n), rng.normal(size=n)])
    y = np.arange(n) % 2
    model = ExtraTrees(n_estimators=N_TREES, max_features=1, max_depth=1,
                       random_state=10).fit(X, y)
    kind, feat, thr = roots(model)
    assert (kind == 1).all()
    counts = np.bincount(feat, minlength=5)
    assert counts[[0, 2]].sum() == 0
    assert chisquare_p(counts[[1, 3, 4]], [1 / 3] * 3) > LEVEL
    for f in (1, 3, 4):
        lo, hi = X[:, f].min(), X[:, f].max()
        assert stats.kstest(thr[feat == f], stats.uniform(lo, hi - lo).cdf).pvalue > LEVEL
