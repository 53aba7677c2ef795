"""Complete-random trees (alpha = 0) from their own routine (_random_grow.grow_random_tree) are
the trees of the random split law, bit for bit: checked against a pure-Python grower written
from the law (its own splitmix64 generator, bootstrap and subspace draws, depth-first
growth), against the general routine (_grow.grow_tree at alpha = 0), and against digests of
forests fitted before the routine existed."""

import hashlib
import math

import numpy as np
import pytest
from sklearn.datasets import make_classification

import treelab
from treelab.engine.forest import Forest, prepare_features
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels._criteria import xlogx_table
from treelab.engine.kernels._random_grow import grow_random_tree

MASK64 = (1 << 64) - 1


class SplitMix64:
    """splitmix64 (Steele, Lea and Flood 2014) on Python integers."""

    def __init__(self, seed: int):
        self.s = seed & MASK64
        self.next()

    def next(self) -> int:
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self) -> float:  # 53 random bits in [0, 1)
        return float(self.next() >> 11) / 9007199254740992.0

    def below(self, n: int) -> int:
        return min(int(self.uniform() * n), n - 1)


def _midpoint(lo, hi):
    t = lo + (hi - lo) * 0.5
    if not math.isfinite(t):
        t = lo * 0.5 + hi * 0.5
    return lo if t >= hi else t


def _uniform(lo, hi, u):
    t = lo + u * (hi - lo)
    if not math.isfinite(t):
        t = 2.0 * (lo * 0.5 + u * (hi * 0.5 - lo * 0.5))
    return lo if t >= hi else t


def reference_tree(X, y, C, seed, *, bootstrap=False, n_sub=0, sw=None, min_split=4,
                   min_leaf=1, max_depth=2**31 - 1, rule="pair_midpoint"):
    """A complete-random tree grown in plain Python: node arrays as the engine lays them out.

    The law (docs: algorithms, random nodes): a tree draws its bootstrap multiplicities, then
    its feature subspace; each node with enough weight, below the depth limit and holding
    two classes draws features without replacement until one yields a threshold (pair
    midpoint: a random row's value, then a random row with another value, rejection after 8
    failed draws only if the node has fewer than two distinct values; uniform: between the
    node's smallest and largest value); missing values go to the heavier child; a split
    leaving a child lighter than min_leaf is drawn again (10 attempts). Children are numbered
    when their parent splits and grown left subtree first; a child lists the parent's rows
    going left in their order, then those going right in reverse order.
    """
    rng = SplitMix64(seed)
    n, d = X.shape
    w = np.zeros(n, dtype=np.int64)
    if bootstrap:
        for _ in range(n):
            w[rng.below(n)] += 1
    else:
        w[:] = 1
    visible = list(range(d))
    if 0 < n_sub < d:
        order = list(range(d))
        for i in range(n_sub):
            j = i + rng.below(d - i)
            order[i], order[j] = order[j], order[i]
        visible = sorted(order[:n_sub])
    if sw is not None:
        w = w * sw
    perm = list(visible)
    # per node: kind, feature, threshold, child_start, n_children, nan_child, random, depth,
    # counts
    nodes = []

    def new_node(rows, depth):
        counts = np.zeros(C, dtype=np.int64)
        for r in rows:
            counts[y[r]] += w[r]
        nodes.append([0, -1, np.nan, 0, 0, 0, 0, depth, counts])
        return len(nodes) - 1

    def two_values(f, rows):
        vals = {X[r, f] for r in rows if not np.isnan(X[r, f])}
        return len(vals) >= 2

    def draw_threshold(f, rows):
        m = len(rows)
        if rule == "uniform":
            vals = [X[r, f] for r in rows if not np.isnan(X[r, f])]
            if not vals or not min(vals) < max(vals):
                return None
            return _uniform(min(vals), max(vals), rng.uniform())
        va, k = np.nan, 0
        while np.isnan(va):
            va = X[rows[rng.below(m)], f]
            k += 1
            if k == 8 and np.isnan(va) and not two_values(f, rows):
                return None
        k = 0
        while True:
            vb = X[rows[rng.below(m)], f]
            if not np.isnan(vb) and vb != va:
                return _midpoint(min(va, vb), max(va, vb))
            k += 1
            if k == 8 and not two_values(f, rows):
                return None

    def grow(node, rows):
        counts = nodes[node][8]
        weight = float(counts.sum())
        if (weight < min_split or nodes[node][7] >= max_depth
                or np.count_nonzero(counts) <= 1):
            return
        for _ in range(10):
            f = t = None
            for i in range(len(perm)):
                j = i + rng.below(len(perm) - i)
                perm[i], perm[j] = perm[j], perm[i]
                t = draw_threshold(perm[i], rows)
                if t is not None:
                    f = perm[i]
                    break
            if f is None:
                return
            x = X[rows, f]
            wl = float(w[rows][x <= t].sum())
            wn = float(w[rows][np.isnan(x)].sum())
            wr = weight - wl - wn
            nan_child = 0 if wl >= wr else 1
            wl, wr = (wl + wn, wr) if nan_child == 0 else (wl, wr + wn)
            if wl < min_leaf or wr < min_leaf:
                continue
            left = [r for r in rows if X[r, f] <= t or (nan_child == 0 and np.isnan(X[r, f]))]
            right = [r for r in reversed(rows)
                     if not (X[r, f] <= t or (nan_child == 0 and np.isnan(X[r, f])))]
            a = new_node(left, nodes[node][7] + 1)
            new_node(right, nodes[node][7] + 1)
            nodes[node][:7] = [1, f, t, a, 2, nan_child, 1]
            grow(a, left)
            grow(a + 1, right)
            return

    root = new_node([r for r in range(n) if w[r] > 0], 0)
    grow(root, [r for r in range(n) if w[r] > 0])
    cols = list(zip(*nodes, strict=True))
    return [np.array(cols[0], np.int8), np.array(cols[1], np.int32),
            np.array(cols[2], np.float64), np.array(cols[3], np.int32),
            np.array(cols[4], np.int32), np.array(cols[5], np.int32),
            np.array(cols[6], np.int8), np.array(cols[7], np.int32),
            np.array(cols[8], np.int32).reshape(len(nodes), C)]


def messy_data(n, d, n_classes, seed):
    """Rounded values (ties, a near-constant feature), missing values, several classes."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    X[:, -1] = np.where(rng.random(n) < 0.97, 0.5, 1.5)  # pair draws often meet one value
    X[rng.random(X.shape) < 0.08] = np.nan
    score = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y.astype(np.int32)


def tree_slice(forest: Forest, t: int) -> list:
    lo, hi = forest.node_offsets[t], forest.node_offsets[t + 1]
    return [getattr(forest, name)[lo:hi] for name in
            ("kind", "feature", "threshold", "child_start", "n_children", "nan_child",
             "random", "depth", "counts")]


def assert_same_tree(a, b):
    for name, x, y in zip(("kind", "feature", "threshold", "child_start", "n_children",
                           "nan_child", "random", "depth", "counts"), a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


@pytest.mark.parametrize(("kw", "n_classes", "seed"), [
    ({}, 2, 0),
    ({"sampling": "bootstrap"}, 3, 1),
    ({"sampling": "bootstrap+subspace", "subspace_fraction": 0.5}, 4, 2),
    ({"random_split": "uniform", "min_samples_leaf": 3}, 3, 3),
    ({"min_samples_split": 2, "max_depth": 6}, 5, 4),
], ids=["plain", "bootstrap", "bag-subspace", "uniform-minleaf", "split2-depth6"])
def test_vrtrees_alpha0_match_a_pure_python_grower(kw, n_classes, seed):
    X, y = messy_data(260, 5, n_classes, seed)
    m = treelab.VRTrees(n_estimators=3, alpha=0.0, random_state=seed, **kw).fit(X, y)
    fr = m.forest_
    n_sub = 0
    if "subspace" in kw.get("sampling", ""):
        n_sub = int(round(kw["subspace_fraction"] * X.shape[1]))
    for t in range(fr.n_trees):
        ref = reference_tree(
            X, y, n_classes, int(fr.seed[t]), bootstrap="bootstrap" in kw.get("sampling", ""),
            n_sub=n_sub, min_split=kw.get("min_samples_split", 4),
            min_leaf=kw.get("min_samples_leaf", 1),
            max_depth=kw.get("max_depth") or 2**31 - 1,
            rule=kw.get("random_split", "pair_midpoint"))
        assert ref[0].shape[0] > 20
        assert_same_tree(tree_slice(fr, t), ref)


def test_weighted_rows_match_the_pure_python_grower():
    X, y = messy_data(200, 4, 3, 5)
    sw = np.random.default_rng(5).integers(0, 4, size=200).astype(np.int32)
    feats = prepare_features(X, np.zeros(4, bool), np.zeros(4, np.int64), ranks=False)
    ip = _iparams(min_split=4, min_leaf=2, local=1, rule=G.RS_PAIR)
    got = grow_random_tree(feats.Xc, np.ascontiguousarray(feats.Xc.T), y, 3, ip, np.uint64(99),
                           G.ROWS_BOOTSTRAP, np.zeros(200, np.int32), 0, 0, sw)
    ref = reference_tree(X, y, 3, 99, bootstrap=True, sw=sw, min_leaf=2)
    assert ref[0].shape[0] > 20
    assert_same_tree(list(got[:9]), ref)


def _iparams(min_split=4, min_leaf=1, max_depth=2**31 - 1, local=1, rule=G.RS_PAIR):
    ip = np.zeros(G.N_PARAMS, dtype=np.int64)
    ip[G.P_MIN_SPLIT] = min_split
    ip[G.P_MIN_LEAF] = min_leaf
    ip[G.P_MAX_DEPTH] = max_depth
    ip[G.P_MAX_FEATURES] = 1
    ip[G.P_RANDOM_SPLIT] = rule
    ip[G.P_PRESORT] = 1
    ip[G.P_LOCAL] = local
    return ip


@pytest.mark.parametrize("local", [0, 1])
@pytest.mark.parametrize(("row_mode", "n_sub", "rule", "min_leaf", "weighted"), [
    (G.ROWS_ALL, 0, G.RS_PAIR, 1, False),
    (G.ROWS_BOOTSTRAP, 0, G.RS_PAIR, 2, True),
    (G.ROWS_BOOTSTRAP, 30, G.RS_UNIFORM, 1, False),
    (G.ROWS_ALL, 45, G.RS_UNIFORM, 4, True),
])
def test_grow_random_tree_equals_grow_tree_at_alpha_zero(row_mode, n_sub, rule, min_leaf,
                                                         weighted, local):
    """The general routine at alpha = 0 grows the same trees, every returned array bit for
    bit, with localized subtrees (more rows than one block holds at 60 features) and
    without."""
    rng = np.random.default_rng(21)
    n, d = 6000, 60
    X = np.round(rng.normal(size=(n, d)), 2)
    X[rng.random(X.shape) < 0.03] = np.nan
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 + rng.normal(size=n) > 1).astype(np.int32)
    y[y == 1] += rng.integers(0, 2, size=int((y == 1).sum())).astype(np.int32)  # 3 classes
    sw = (rng.integers(0, 3, size=n) if weighted else np.ones(n)).astype(np.int32)
    feats = prepare_features(X, np.zeros(d, bool), np.zeros(d, np.int64), ranks=False)
    ip = _iparams(min_leaf=min_leaf, local=local, rule=rule)
    for seed in (1, 2):
        a = grow_random_tree(feats.Xc, np.ascontiguousarray(feats.Xc.T), y, 3, ip,
                             np.uint64(seed), row_mode, np.zeros(n, np.int32), 0, n_sub, sw)
        b = G.grow_tree(feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq,
                        feats.uniq_off, feats.nominal, y, 3, ip, 0.0, xlogx_table(3 * n),
                        np.uint64(seed), row_mode, np.zeros(n, np.int32), 0, n_sub,
                        *G.NO_REFERENCE, None, True, sw)
        assert a[0].shape[0] > 500
        assert len(a) == len(b)
        for x, z in zip(a, b, strict=True):
            x, z = np.asarray(x), np.asarray(z)
            assert x.dtype == z.dtype and x.shape == z.shape
            assert x.tobytes() == z.tobytes()


def _digest(forest: Forest) -> str:
    h = hashlib.sha256()
    for name in ("node_offsets", "kind", "feature", "threshold", "child_start", "n_children",
                 "nan_child", "random", "depth", "counts", "rows_seen"):
        a = np.ascontiguousarray(getattr(forest, name))
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _digest_data(n, d, classes, nan_frac, dup, seed):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=min(d - 2, 6),
                               n_redundant=1, n_classes=classes, n_clusters_per_class=1,
                               random_state=seed)
    if dup:
        X = np.round(X, 1)
    if nan_frac:
        X[np.random.default_rng(seed).random(X.shape) < nan_frac] = np.nan
    return X, y


@pytest.mark.parametrize(("data", "kw", "digest", "n_nodes"), [
    ((12000, 20, 2, 0.0, False, 0), {"random_state": 0}, "b6299431088d0111", 51456),
    ((9000, 12, 3, 0.05, True, 1), {"random_state": 1, "sampling": "bootstrap+subspace"},
     "f716cf81ca11a8d8", 35360),
    ((5000, 7, 4, 0.1, True, 2), {"random_state": 2, "min_samples_leaf": 3, "max_depth": 9,
                                  "random_split": "uniform"}, "08de19bf06494553", 1260),
], ids=["plain", "bag-subspace-nan", "uniform-leaf-depth"])
def test_forests_match_those_grown_before_the_random_routine(data, kw, digest, n_nodes):
    """Digests of VRTrees(alpha=0) forests computed with the general routine (grow_tree, the
    engine before _random_grow existed): the same forests, bit for bit."""
    X, y = _digest_data(*data)
    fr = treelab.VRTrees(n_estimators=6, alpha=0.0, **kw).fit(X, y).forest_
    assert int(fr.node_offsets[-1]) == n_nodes
    assert _digest(fr) == digest


def test_routine_is_used_for_continuous_alpha_zero_trees_only(monkeypatch):
    """Complete-random trees on continuous features go to grow_random_tree; a nominal
    feature, another threshold rule or alpha > 0 go to grow_tree."""
    import pandas as pd

    import treelab.engine.forest as F

    seen = []
    real_random, real_general = F.grow_random_tree, F.grow_tree
    monkeypatch.setattr(F, "grow_random_tree",
                        lambda *a: seen.append("random") or real_random(*a))
    monkeypatch.setattr(F, "grow_tree", lambda *a: seen.append("general") or real_general(*a))
    X, y = messy_data(300, 4, 2, 9)
    treelab.VRTrees(n_estimators=2, alpha=0.0, random_state=0).fit(X, y)
    assert seen == ["random"] * 2
    seen.clear()
    treelab.VRTrees(n_estimators=2, alpha=0.0, random_split="pert", random_state=0).fit(X, y)
    assert seen == ["general"] * 2
    seen.clear()
    df = pd.DataFrame(X, columns=list("abcd"))
    df["g"] = pd.Categorical(np.arange(300) % 3)
    treelab.VRTrees(n_estimators=2, alpha=0.0, random_state=0).fit(df, y)
    assert seen == ["general"] * 2
    seen.clear()
    treelab.Coalescence(n_estimators=3, random_state=0).fit(X, y)  # alphas 0, 1/3, 2/3
    assert seen.count("random") == 1
