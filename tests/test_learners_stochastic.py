"""Stochastic ID3 (algorithms spec 2.7) against a pure-Python reference written from the spec."""

import warnings

import numpy as np
import pytest
from helpers_trees import children, tree_nodes
from scipy import stats

import treelab

TIE_RTOL = 1e-12


def laplace_entropy(counts):
    """H_L of one branch: entropy of (n_c + 1) / (n + C), in bits."""
    counts = np.asarray(counts, dtype=float)
    p = (counts + 1.0) / (counts.sum() + counts.size)
    return float(-(p * np.log2(p)).sum())


def plain_entropy(counts):
    """H of one branch from its class counts, in bits (0 log 0 = 0)."""
    counts = np.asarray(counts, dtype=float)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def split_score(y, parts, n_classes, lap=True):
    """Weighted entropy sum_b (n_b / n) H(b) of a partition of labels y (H_L if ``lap``)."""
    n = len(y)
    h = laplace_entropy if lap else plain_entropy
    return sum(len(y[p]) / n * h(np.bincount(y[p], minlength=n_classes))
               for p in parts if p.any())


def tie(a, b):
    return abs(a - b) <= TIE_RTOL * max(abs(a), abs(b))


def midpoint(lo, hi):
    t = lo + (hi - lo) * 0.5
    return lo if t >= hi else t


class Reference:
    """Deterministic (beta = 1) stochastic ID3 on continuous features, recursively."""

    def __init__(self, X, y, n_classes, lookahead, min_split=2, max_depth=10**9, lap=True):
        self.X, self.y, self.C, self.lap = X, y, n_classes, lap
        self.lookahead, self.min_split, self.max_depth = lookahead, min_split, max_depth

    def candidates(self, idx):
        """(score, feature, threshold) of every feature's best threshold at rows idx."""
        out = []
        y = self.y[idx]
        for f in range(self.X.shape[1]):
            x = self.X[idx, f]
            values = np.unique(x)
            best = None
            for lo, hi in zip(values[:-1], values[1:], strict=True):
                left = x <= lo
                score = split_score(y, [left, ~left], self.C, self.lap)
                if best is None or (score < best[0] and not tie(score, best[0])):
                    best = (score, f, midpoint(lo, hi))
            if best is not None:
                out.append(best)
        return out

    def will_split(self, idx, depth):
        y = self.y[idx]
        return len(np.unique(y)) > 1 and len(y) >= self.min_split and depth < self.max_depth

    def rescored(self, idx, depth, cands):
        if not self.lookahead:
            return cands
        n = len(idx)
        out = []
        for _, f, t in cands:
            total = 0.0
            for side in (self.X[idx, f] <= t, self.X[idx, f] > t):
                child = idx[side]
                if not child.size:
                    continue
                h = laplace_entropy if self.lap else plain_entropy
                own = h(np.bincount(self.y[child], minlength=self.C))
                sub = self.candidates(child) if self.will_split(child, depth + 1) else []
                best = min(s for s, _, _ in sub) if sub else own
                total += len(child) / n * best
            out.append((total, f, t))
        return out

    def build(self, idx, depth=0):
        """Nested nodes: (counts, None) for a leaf, (counts, (feature, threshold, left, right))."""
        counts = np.bincount(self.y[idx], minlength=self.C)
        if not self.will_split(idx, depth):
            return counts, None
        cands = self.rescored(idx, depth, self.candidates(idx))
        if not cands:
            return counts, None
        e_min = min(s for s, _, _ in cands)
        _, f, t = next(c for c in cands if c[0] == e_min or tie(c[0], e_min))
        left = self.X[idx, f] <= t
        return counts, (f, t, self.build(idx[left], depth + 1),
                        self.build(idx[~left], depth + 1))


def assert_same_tree(nodes, ref, i=0):
    counts, split = ref
    np.testing.assert_array_equal(nodes["counts"][i], counts)
    if split is None:
        assert nodes["kind"][i] == 0
        return
    f, t, left, right = split
    assert nodes["kind"][i] == 1 and nodes["feature"][i] == f
    assert nodes["threshold"][i] == pytest.approx(t, rel=1e-12, abs=1e-12)
    kids = list(children(nodes, i))
    assert_same_tree(nodes, left, kids[0])
    assert_same_tree(nodes, right, kids[1])


def continuous_data(seed, n=160, d=4, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(3)
    score = X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] + 0.6 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("lookahead", [0, 1])
@pytest.mark.parametrize("entropy_laplace", ["all", "weights"])
def test_beta_one_without_ties_reproduces_the_deterministic_reference_tree(lookahead,
                                                                            entropy_laplace):
    X, y = continuous_data(7, n=300)
    est = treelab.StochasticID3(n_estimators=2, beta=1.0, lookahead=lookahead, max_depth=4,
                                min_samples_split=12, entropy_laplace=entropy_laplace,
                                random_state=0).fit(X, y)
    stats_ = est.tree_stats()
    # no gain ties at any node of these trees: the comparison does not lean on tie-breaking
    assert stats_.gain_ties.values.tolist() == [0, 0]
    assert stats_.n_nodes.values.min() >= 27
    ref = Reference(X, y, 3, lookahead, min_split=12, max_depth=4,
                    lap=entropy_laplace == "all").build(np.arange(len(y)))
    for t in range(2):  # beta = 1 draws nothing: both trees are the reference tree
        assert_same_tree(tree_nodes(est.forest_, t), ref)


@pytest.mark.parametrize("lookahead", [0, 1])
@pytest.mark.parametrize("entropy_laplace", ["all", "weights"])
def test_beta_one_grown_to_purity_matches_the_reference_ties_included(lookahead,
                                                                      entropy_laplace):
    X, y = continuous_data(3, n=120)
    est = treelab.StochasticID3(n_estimators=1, beta=1.0, lookahead=lookahead,
                                entropy_laplace=entropy_laplace, random_state=0).fit(X, y)
    assert est.tree_stats().gain_ties.item() > 0  # small nodes tie: lowest feature wins
    ref = Reference(X, y, 3, lookahead, lap=entropy_laplace == "all")
    assert_same_tree(tree_nodes(est.forest_, 0), ref.build(np.arange(len(y))))


def test_beta_one_breaks_ties_by_the_lowest_feature_and_records_them():
    X, y = continuous_data(4, n=80)
    X = np.column_stack([X[:, 1], X])  # column 0 duplicates column 2: every split on it ties
    est = treelab.StochasticID3(n_estimators=1, beta=1.0, lookahead=0, entropy_laplace="all",
                                random_state=0).fit(X, y)
    ref = Reference(X, y, 3, 0).build(np.arange(len(y)))
    nodes = tree_nodes(est.forest_, 0)
    assert_same_tree(nodes, ref)
    assert 2 not in nodes["feature"]  # the later duplicate never wins a tie
    stats_ = est.tree_stats()
    assert stats_.gain_ties.item() >= (nodes["feature"] == 0).sum() > 0


@pytest.mark.parametrize("choice, entropy_laplace, beta", [
    ("entropy", "all", 1.21), ("entropy", "weights", 1.1), ("gain", "all", 1.5),
    ("gain", "weights", 1.5)])
def test_choice_frequencies_follow_inverse_entropy_weights(choice, entropy_laplace, beta):
    X, y = continuous_data(5, n=200, d=5, n_classes=2)
    n_trees = 3000
    est = treelab.StochasticID3(n_estimators=n_trees, beta=beta, lookahead=0, max_depth=1,
                                choice=choice, entropy_laplace=entropy_laplace,
                                random_state=11).fit(X, y)
    roots = est.forest_.feature[est.forest_.node_offsets[:-1]]
    lap = entropy_laplace == "all"
    ref = Reference(X, y, 2, 0, lap=lap)
    cands = ref.candidates(np.arange(len(y)))
    scores = np.array([s for s, _, _ in cands])
    if choice == "entropy":
        in_set = scores <= beta * scores.min()
    else:  # gain = H(node) - E within a factor beta of the best gain
        h = (laplace_entropy if lap else plain_entropy)(np.bincount(y))
        in_set = h - scores >= (h - scores.min()) / beta
    assert 1 < in_set.sum() < len(scores)  # a real choice, and some features left out
    # the weights are 1 / (Laplace-corrected entropy of the same split) in every reading
    lap_scores = np.array([split_score(y, [X[:, f] <= t, X[:, f] > t], 2)
                           for _, f, t in cands])
    weights = np.where(in_set, 1.0 / lap_scores, 0.0)
    expected = n_trees * weights / weights.sum()
    observed = np.bincount(roots, minlength=len(scores))
    assert observed[~in_set].sum() == 0
    chi2, p = stats.chisquare(observed[in_set], expected[in_set])
    assert p > 0.01, (observed, expected, chi2)


def xor_data():
    """XOR of x0 and x1 (binary); x2 agrees with y on 70% of the rows, x3 on 55%."""
    rng = np.random.default_rng(0)
    x0 = np.repeat([0, 0, 1, 1], 30)
    x1 = np.tile(np.repeat([0, 1], 15), 4)
    y = x0 ^ x1
    x2 = np.where(rng.random(120) < 0.7, y, 1 - y)
    x3 = np.where(rng.random(120) < 0.55, y, 1 - y)
    return np.column_stack([x0, x1, x2, x3]).astype(float), y


def test_lookahead_finds_the_xor_split_that_greedy_misses():
    X, y = xor_data()
    greedy = treelab.StochasticID3(n_estimators=1, beta=1.0, lookahead=0,
                                   random_state=0).fit(X, y)
    look = treelab.StochasticID3(n_estimators=1, beta=1.0, lookahead=1,
                                 random_state=0).fit(X, y)
    g = tree_nodes(greedy.forest_, 0)
    la = tree_nodes(look.forest_, 0)
    assert g["feature"][0] == 2  # the noisy proxy looks best one step ahead
    assert la["feature"][0] in (0, 1)
    other = 1 - la["feature"][0]
    for c in children(la, 0):  # two levels: the other XOR input, then pure leaves
        assert la["kind"][c] == 1 and la["feature"][c] == other
        for g2 in children(la, c):
            assert la["kind"][g2] == 0 and (la["counts"][g2] > 0).sum() == 1
    assert look.tree_stats().depth.item() == 2
    assert greedy.tree_stats().depth.item() > 2
    assert look.score(X, y) == 1.0


def test_single_model_is_beta_one_and_lookahead_is_kept():
    est = treelab.StochasticID3(beta=1.6, lookahead=0, n_estimators=5, random_state=3)
    single = est.single_model()
    assert isinstance(single, treelab.StochasticID3)
    assert single.beta == 1.0 and single.n_estimators == 1 and single.lookahead == 0


@pytest.mark.parametrize("combine", ["vote", "average", "sum", "likelihood", "bayesian"])
def test_every_combination_function(combine):
    X, y = continuous_data(6, n=120)
    est = treelab.StochasticID3(n_estimators=5, combine=combine, random_state=0).fit(X, y)
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert est.score(X, y) > 0.9


def test_nominal_and_missing_values():
    rng = np.random.default_rng(2)
    n = 150
    color = rng.integers(0, 3, size=n).astype(float)
    x = rng.normal(size=n)
    y = ((color == 1) ^ (x > 0.3)).astype(int)
    X = np.column_stack([x, color])
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.1, 1] = np.nan
    est = treelab.StochasticID3(n_estimators=3, categorical_features=[1], random_state=0)
    est.fit(X, y)
    fr = est.forest_
    for t in range(fr.n_trees):
        nodes = tree_nodes(fr, t)
        for i in np.flatnonzero(nodes["kind"] != 0):
            kids = list(children(nodes, i))
            np.testing.assert_array_equal(nodes["counts"][kids].sum(axis=0), nodes["counts"][i])
            if nodes["kind"][i] == 2:
                assert len(kids) == 3
    assert est.score(X, y) > 0.85


@pytest.mark.parametrize("kwargs, name, exc", [
    ({"beta": 0.9}, "beta", ValueError),
    ({"beta": "wide"}, "beta", TypeError),
    ({"lookahead": 2}, "lookahead", ValueError),
    ({"lookahead": 0.5}, "lookahead", TypeError),
    ({"choice": "ratio"}, "choice", ValueError),
    ({"entropy_laplace": "none"}, "entropy_laplace", ValueError),
])
def test_bad_parameters_name_themselves(kwargs, name, exc):
    X, y = continuous_data(1, n=30)
    with pytest.raises(exc, match=name):
        treelab.StochasticID3(**kwargs).fit(X, y)


def test_lookahead_on_many_features_warns_before_any_work():
    from treelab.estimators.learners import LookaheadCostWarning
    X = np.zeros((20, 10_000))
    y = np.arange(20) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", LookaheadCostWarning)  # stop at the warning
        with pytest.raises(LookaheadCostWarning, match="lookahead=0"):
            treelab.StochasticID3(lookahead=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LookaheadCostWarning)
        treelab.StochasticID3(n_estimators=2, lookahead=0).fit(X[:, :50], y)  # no warning


def _param_doc(cls, name):
    """The description of parameter ``name`` in a numpydoc docstring, on one line."""
    lines = cls.__doc__.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith(f"{name} : "))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for ln in lines[start + 1:]:
        if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
            break
        body.append(ln.strip())
    return " ".join(body)


def test_choice_and_laplace_options_are_documented_next_to_their_rules():
    # the rules the frequencies test above checks, read from the docstring: each option must
    # be named beside its own rule (they were once listed {"gain", "entropy"} and described
    # in the other order, so the default "gain" read as the entropy rule)
    choice = _param_doc(treelab.StochasticID3, "choice")
    assert choice.index('"gain"') < choice.index("best gain / beta") < choice.index(
        '"entropy"') < choice.index("E <= beta E_min")
    laplace = _param_doc(treelab.StochasticID3, "entropy_laplace")
    assert laplace.index('"all"') < laplace.index("in every entropy") < laplace.index(
        '"weights"') < laplace.index("only in the 1 / E draw weights")


@pytest.mark.parametrize("beta", [np.inf, np.nan, 0.5])
def test_refused_beta_is_told_the_half_open_range(beta):
    # beta = inf is refused, so the range the message gives must not contain it
    X, y = continuous_data(0, n=20, n_classes=2)
    with pytest.raises(ValueError, match=r"^beta must be in \[1\.0, inf\), got "):
        treelab.StochasticID3(beta=beta).fit(X, y)


def test_lookahead_changes_nothing_where_the_children_reach_max_depth():
    # the children of a depth-1 tree's root are leaves, so the lookahead scores they would
    # get are their own entropies: the same trees as without lookahead; deeper, it matters
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (60, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int) ^ (X[:, 2] > 1)

    def fit(lookahead, depth):
        return treelab.StochasticID3(n_estimators=5, lookahead=lookahead, max_depth=depth,
                                     random_state=0).fit(X, y).forest_

    np.testing.assert_array_equal(fit(1, 1).feature, fit(0, 1).feature)
    assert not np.array_equal(fit(1, 3).feature, fit(0, 3).feature)
