"""The binned split search's kernel (``_binned.binned_candidate``) against a slow NumPy search
written from the definition: class counts per occupied bin, every cut between consecutive
occupied bins (missing rows tried on both sides), Gini or entropy decrease, the first best cut
kept and the cuts tying it counted."""

from __future__ import annotations

import numpy as np
import pytest

from treelab.engine.kernels._binned import binned_candidate
from treelab.engine.kernels._criteria import ENTROPY, GINI, parent_mass, xlogx_table

TIE = 1e-12


def xlogx(v):
    v = np.asarray(v, dtype=float)
    return np.where(v > 0, v * np.log2(np.where(v > 0, v, 1.0)), 0.0)


def impurity_mass(counts, criterion):
    """Gini: sum n_c^2 / n (larger is purer); entropy: n H in bits (smaller is purer)."""
    n = counts.sum()
    if criterion == GINI:
        return (counts ** 2).sum() / n
    return float(xlogx(n) - xlogx(counts).sum())


def slow_search(bins, cls, w, nd, C, criterion, min_side):
    """(k, gain, last bin going left, missing-left flag, ties, rows left) by brute force."""
    miss = bins == nd
    node = np.bincount(cls, weights=w, minlength=C)
    n = node.sum()
    nan = np.bincount(cls[miss], weights=w[miss], minlength=C)
    occupied = np.unique(bins[~miss])
    parent = impurity_mass(node, criterion)
    results = []
    for i, b in enumerate(occupied[:-1]):
        go = (bins <= b) & ~miss
        left = np.bincount(cls[go], weights=w[go], minlength=C)
        for nan_left in ([True, False] if nan.sum() > 0 else [False]):
            lc = left + nan if nan_left else left
            rc = node - lc
            if lc.sum() < min_side or rc.sum() < min_side:
                continue
            ml, mr = impurity_mass(lc, criterion), impurity_mass(rc, criterion)
            g = (ml + mr - parent) / n if criterion == GINI else (parent - ml - mr) / n
            results.append((g, i, b, nan_left, left.sum()))
    if not results:
        return len(occupied), -np.inf, -1, False, 1, 0.0
    best = max(r[0] for r in results)
    first = next(r for r in results if abs(r[0] - best) <= TIE * abs(best))
    ties = sum(1 for r in results if abs(r[0] - best) <= TIE * abs(best))
    return len(occupied), first[0], first[2], first[3], ties, first[4]


def run_kernel(bins, cls, w, nd, C, criterion, min_side, n_bins=None):
    """binned_candidate on one feature, the node holding every row (classes all present)."""
    m = bins.shape[0]
    B = (nd if n_bins is None else n_bins) + 1
    rows = (np.arange(m, dtype=np.int64) << 32) | (w.astype(np.int64) << 16) | cls
    R = bins.astype(np.int32).reshape(1, m)
    node = np.bincount(cls, weights=w, minlength=C).astype(float)
    n = node.sum()
    table = xlogx_table(int(n) + 1)
    hist = np.zeros(C * B, dtype=np.int64)
    occ = np.zeros(B, dtype=np.uint8)
    lst = np.empty(B, dtype=np.int64)
    out = binned_candidate(criterion, 0, rows, 0, m, R, m, nd, hist, B, occ, lst,
                           np.arange(C, dtype=np.int64), C, np.zeros(C), node, n,
                           parent_mass(criterion, node, n, table), table, float(min_side),
                           np.zeros(C), np.zeros(C), np.zeros(C))
    # the histogram is left clean for the next candidate
    assert not hist.any() and not occ.any()
    return out


CASES = [
    # (rows, classes, bins, missing share, max weight, min_side)
    (400, 2, 256, 0.0, 1, 1),   # two classes: the scalar scan; dense walk of the bins
    (12, 2, 256, 0.0, 1, 1),    # few rows among many bins: the sorted occupied list
    (300, 2, 40, 0.0, 3, 5),    # weights (bootstrap multiplicities), min_samples_leaf
    (500, 3, 64, 0.0, 1, 1),    # three classes, no missing rows
    (500, 3, 64, 0.1, 1, 1),    # missing rows tried on both sides
    (200, 2, 32, 0.2, 2, 3),    # two classes with missing rows: the general scan
    (150, 4, 2000, 0.0, 1, 1),  # many bins, occupied list past the insertion sort
    (60, 3, 5, 0.0, 1, 1),      # few bins: many ties
    # fewer rows than bins, with missing rows (counted in the missing bin, then taken out of
    # the occupied list): insertion-sorted, sorted, and walked occupied lists
    (20, 3, 256, 0.2, 1, 1),
    (120, 2, 1000, 0.1, 2, 1),
    (150, 2, 200, 0.15, 1, 2),
]


@pytest.mark.parametrize("criterion", [GINI, ENTROPY])
@pytest.mark.parametrize("m, C, nd, missing, wmax, min_side", CASES)
def test_binned_candidate_matches_a_slow_numpy_search(m, C, nd, missing, wmax, min_side,
                                                      criterion):
    rng = np.random.default_rng(m * 7 + C + nd)
    for trial in range(5):
        # informative bins (class shifts the bin), so the best cut is not arbitrary
        cls = rng.integers(0, C, size=m)
        cls[:C] = np.arange(C)
        spread = max(nd // (C + 1), 1)
        bins = np.clip(cls * spread + rng.integers(0, 2 * spread + 1, size=m), 0, nd - 1)
        if trial % 2:
            bins = rng.integers(0, nd, size=m)  # no signal: many near-equal cuts
        bins[rng.random(m) < missing] = nd
        bins[C] = 0  # at least two occupied bins
        bins[C + 1] = nd - 1
        w = rng.integers(1, wmax + 1, size=m)
        k, g, b, nan_left, nt, si, nl, nn = run_kernel(bins, cls, w, nd, C, criterion,
                                                      min_side)
        sk, sg, sb, s_nan_left, snt, snl = slow_search(bins, cls, w, nd, C, criterion,
                                                       min_side)
        assert k == sk
        assert b == sb
        if sb >= 0:
            assert g == pytest.approx(sg, rel=1e-9, abs=1e-12)
            assert nt == snt
            assert nl == snl
            assert nn == w[bins == nd].sum()
            if nn > 0:
                assert nan_left == s_nan_left


def test_binned_candidate_no_cut_when_one_bin_or_all_missing():
    cls = np.array([0, 1, 0, 1, 1])
    w = np.ones(5, dtype=np.int64)
    k, g, b = run_kernel(np.full(5, 3), cls, w, 8, 2, GINI, 1)[:3]
    assert (k, b) == (1, -1) and g == -np.inf
    k, g, b = run_kernel(np.full(5, 8), cls, w, 8, 2, GINI, 1)[:3]
    assert (k, b) == (0, -1)
    # two bins, but min_side leaves no cut
    k, g, b = run_kernel(np.array([0, 0, 0, 0, 5]), cls, w, 8, 2, GINI, 2)[:3]
    assert (k, b) == (2, -1)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("missing, d", [(0.0, 6), (0.03, 6), (0.0, 140)])
def test_two_class_binned_forest_is_the_exact_forest_on_the_bin_codes(criterion, missing, d):
    """Two classes and 256 bins (the scalar scan, the bin walk of large nodes and the sorted
    occupied list of small ones): the same trees, node counts and gain ties as the exact
    search on the bin codes (test_engine_binning's reference, computed from the rule). At
    140 features (no localized blocks) small nodes gather their candidates' codes from the
    row-major byte copy (_binned.gather_codes)."""
    from sklearn.datasets import make_classification
    from test_engine_binning import exact_on_codes

    import treelab

    X, y = make_classification(2500, d, n_informative=4, random_state=7)
    X = np.round(X, 2)
    if missing:
        X[np.random.default_rng(3).random(X.shape) < missing] = np.nan
    make = lambda mb: treelab.RandomForest(n_estimators=3, criterion=criterion,  # noqa: E731
                                          random_state=5, max_bins=mb)
    binned = make(256).fit(X, y)
    codes, _ = exact_on_codes(binned, X, 256)
    reference = make(None).fit(codes, y)
    for name in ("node_offsets", "kind", "feature", "child_start", "nan_child", "counts",
                 "ties_feature", "ties_test"):
        np.testing.assert_array_equal(getattr(binned.forest_, name),
                                      getattr(reference.forest_, name), err_msg=name)


def _splitmix_draws(seed, nv, k):
    """The first k steps of a Fisher-Yates shuffle of range(nv) driven by splitmix64 as
    _rng.new_state / rand_int define it, written out in Python integers."""
    mask = (1 << 64) - 1
    state = [seed & mask]

    def nxt():
        state[0] = (state[0] + 0x9E3779B97F4A7C15) & mask
        z = state[0]
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    nxt()  # new_state advances once
    perm = list(range(nv))
    for i in range(k):
        j = i + min(int(float(nxt() >> 11) * (1.0 / 9007199254740992.0) * (nv - i)),
                    nv - i - 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


@pytest.mark.parametrize("sample", [True, False])
def test_gathered_codes_are_the_drawn_candidates_codes(sample):
    """gather_codes draws the candidates as the selection's loop does (checked against the
    generator written out) and copies their codes at the node's rows; the binned search on the
    gathered codes returns what it returns on the feature-major codes."""
    from treelab.engine.kernels._binned import gather_codes
    from treelab.engine.kernels._rng import new_state

    rng = np.random.default_rng(11)
    n, d, nd, C = 3000, 40, 200, 3
    R = rng.integers(0, nd + 1, size=(d, n)).astype(np.int32)  # nd: missing
    Rt = np.ascontiguousarray(R.T).astype(np.uint8)
    y = rng.integers(0, C, size=n)
    w = rng.integers(1, 4, size=n)
    node = np.sort(rng.choice(n, size=150, replace=False))
    entries = (node.astype(np.int64) << 32) | (w[node].astype(np.int64) << 16) | y[node]
    rows = np.concatenate([np.zeros(7, np.int64), entries, np.zeros(5, np.int64)])
    s, e = 7, 7 + node.size
    k = 9
    vis = np.arange(d, dtype=np.int64)[::-1].copy()
    perm = vis.copy()
    state = new_state(np.uint64(1234))
    bg = np.full((k, 200), -1, dtype=np.int32)
    brows = np.full(200, -1, dtype=np.int64)
    gather_codes(k, sample, d, vis, perm, state, rows, s, e, Rt, bg, brows)
    order = _splitmix_draws(1234, d, k if sample else 0)
    drawn = vis[order[:k]] if sample else vis[:k]
    if sample:
        np.testing.assert_array_equal(perm[:k], drawn)
        # the generator stands where the loop's own k draws leave it
        assert int(state[0]) == (1234 + (k + 1) * 0x9E3779B97F4A7C15) % (1 << 64)
    else:
        np.testing.assert_array_equal(perm, vis)
    np.testing.assert_array_equal(bg[:, :node.size], R[drawn][:, node])
    np.testing.assert_array_equal(brows[:node.size] >> 32, np.arange(node.size))
    np.testing.assert_array_equal(brows[:node.size] & 0xFFFFFFFF, entries & 0xFFFFFFFF)
    B = nd + 1
    counts = np.bincount(y[node], weights=w[node], minlength=C).astype(float)
    table = xlogx_table(int(counts.sum()) + 1)
    for i, f in enumerate(drawn):
        outs = []
        for args in ((f, rows, s, e, R, n), (i, brows, 0, node.size, bg, 0)):
            hist = np.zeros(C * B, dtype=np.int64)
            outs.append(binned_candidate(
                GINI, *args, nd, hist, B, np.zeros(B, np.uint8), np.empty(B, np.int64),
                np.arange(C, dtype=np.int64), C, np.zeros(C), counts, counts.sum(),
                parent_mass(GINI, counts, counts.sum(), table), table, 1.0, np.zeros(C),
                np.zeros(C), np.zeros(C)))
        assert outs[0] == outs[1]
        assert outs[0][2] >= 0


def test_row_major_codes_bytes_or_none():
    from treelab.engine.features import row_major_codes

    R = np.random.default_rng(0).integers(0, 256, size=(7, 10001)).astype(np.int32)
    Rt = row_major_codes(R, n_threads=2)
    assert Rt.dtype == np.uint8 and Rt.flags.c_contiguous
    np.testing.assert_array_equal(Rt, R.T)
    # a missing value's code at 256 bins does not fit a byte: no copy
    R[3, 17] = 256
    assert row_major_codes(R).shape == (0, 0)
