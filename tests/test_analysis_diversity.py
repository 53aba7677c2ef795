"""Errors, phi_e / phi*, error ratio and error arrangements against the naive references."""

import math
import warnings

import naive_analysis as naive
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

from treelab.analysis import error_arrangement, error_correlation, error_ratio, errors

FAST = settings(max_examples=150, deadline=None)


def assert_close(a, b, tol=1e-12):
    if math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, abs=tol)


@FAST
@given(naive.member_problem())
def test_phi_matches_naive(problem):
    L, y, C = problem
    ds = error_correlation(L, y, n_classes=C)
    assert_close(float(ds.phi_e), naive.phi_e(L.tolist(), y.tolist()))
    assert_close(float(ds.phi_star), naive.phi_star(L.tolist(), y.tolist(), C))
    if L.shape[0] < 2:
        assert str(ds.relation.values) == "undefined"
    else:
        gap = float(ds.phi_gap)
        assert gap == pytest.approx(float(ds.phi_e) - float(ds.phi_star))
        expected = "positive" if gap > 1e-9 else "negative" if gap < -1e-9 else "uncorrelated"
        if abs(gap) > 1e-9 or gap == 0:
            assert str(ds.relation.values) == expected


@FAST
@given(naive.member_problem())
def test_errors_match_naive(problem):
    L, y, C = problem
    ds = errors(L, y, n_classes=C)
    np.testing.assert_allclose(ds.member_error.values, naive.member_errors(L.tolist(), y.tolist()))
    assert float(ds.ensemble_error) == pytest.approx(naive.vote_error(L.tolist(), y.tolist(), C))
    own = errors(L, y, ensemble_labels=L[0], n_classes=C)
    assert float(own.ensemble_error) == pytest.approx(float(ds.member_error[0]))


@settings(max_examples=120, deadline=None)
@given(naive.member_problem(max_trees=4, max_samples=5, max_classes=3))
def test_arrangement_matches_naive(problem):
    L, y, C = problem
    ds = error_arrangement(L, y, n_classes=C)
    k = (L != y[None, :]).sum(axis=1)
    n = len(y)
    brute = naive.independent_vote_error_bruteforce(L.tolist(), y.tolist(), C)
    assert float(ds.independent_error) == pytest.approx(brute, abs=1e-12)
    assert float(ds.independent_error_se) == 0
    assert float(ds.optimal_error) == pytest.approx(naive.optimal_error_bruteforce(k.tolist(), n))
    assert float(ds.observed_error) == pytest.approx(naive.vote_error(L.tolist(), y.tolist(), C))
    if C <= 2:
        # the source's arrangement counts errors, not votes: a lower bound on the voting error
        # only when every error is a vote for the same rival class
        assert float(ds.optimal_error) <= float(ds.observed_error) + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60))
def test_independent_error_large_t(e):
    rng = np.random.default_rng(len(e))
    n = 200
    # member labels whose error rates are round(e * n) / n
    y = np.zeros(n, dtype=np.int64)
    L = np.zeros((len(e), n), dtype=np.int64)
    for t, p in enumerate(e):
        L[t, rng.permutation(n)[: round(p * n)]] = 1
    ds = error_arrangement(L, y, n_classes=2)
    rates = (L != 0).mean(axis=1).tolist()
    assert float(ds.independent_error) == pytest.approx(naive.independent_error(rates), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(naive.member_problem(max_trees=6, max_samples=10, max_classes=4))
def test_independent_error_many_classes_matches_bruteforce(problem):
    L, y, C = problem
    ds = error_arrangement(L, y, n_classes=C)
    brute = naive.independent_vote_error_bruteforce(L.tolist(), y.tolist(), C)
    assert float(ds.independent_error) == pytest.approx(brute, abs=1e-12)


def test_independent_error_three_classes_hand_worked():
    # every member errs on one row of three; the two wrong votes for class 1 (members 0 and 2)
    # beat class 0 only together: P = 1/3 * 1/3. A three-way tie goes to class 0. The old
    # majority-wrong bound was P(at least 2 of 3 wrong) = 7/27.
    y = np.zeros(3, dtype=np.int64)
    L = np.array([[1, 0, 0], [0, 2, 0], [0, 0, 1]])
    ds = error_arrangement(L, y, n_classes=3)
    assert float(ds.independent_error) == pytest.approx(1 / 9)
    assert float(ds.observed_error) == 0


def test_independent_error_two_class_tie_rule():
    # T = 2, each member wrong on half the rows: the 1:1 tie goes to the lower class index,
    # so it is correct on class-0 rows and wrong on class-1 rows.
    y = np.array([0, 0, 1, 1])
    L = np.array([[1, 0, 0, 1], [0, 1, 0, 1]])  # e = 1/2 each
    ds = error_arrangement(L, y, n_classes=2)
    # class 0: lose only if both wrong (1/4); class 1: lose if at least one wrong (3/4)
    assert float(ds.independent_error) == pytest.approx(0.5 * 0.25 + 0.5 * 0.75)


def test_independent_error_monte_carlo_agrees_with_exact():
    rng = np.random.default_rng(2)
    T, n, C = 25, 300, 5
    y = rng.integers(0, C, n)
    L = np.where(rng.random((T, n)) < 0.4, rng.integers(0, C, (T, n)), y[None, :])
    exact = error_arrangement(L, y, n_classes=C, max_states=10**7)
    mc = error_arrangement(L, y, n_classes=C, max_states=1, n_draws=40_000, random_state=3)
    assert "exact" in exact.independent_error.attrs["description"]
    assert "monte carlo" in mc.independent_error.attrs["description"]
    se = float(mc.independent_error_se)
    assert 0 < se < 0.01
    assert abs(float(mc.independent_error) - float(exact.independent_error)) < 4 * se
    again = error_arrangement(L, y, n_classes=C, max_states=1, n_draws=40_000, random_state=3)
    assert float(again.independent_error) == float(mc.independent_error)


def test_error_arrangement_bad_options():
    with pytest.raises(ValueError, match="n_draws"):
        error_arrangement([[0, 1]], [0, 1], n_draws=0)


def test_phi_e_two_members_is_identical_error_rate():
    y = np.array([0, 0, 1, 1, 2, 2, 0, 1])
    a = np.array([1, 0, 0, 1, 0, 2, 2, 1])
    b = np.array([1, 2, 0, 0, 0, 2, 2, 1])
    same_wrong = np.mean((a == b) & (a != y))  # rows 0, 2, 4, 6
    assert same_wrong == 0.5
    assert float(error_correlation(np.stack([a, b]), y).phi_e) == pytest.approx(same_wrong)


@pytest.mark.parametrize("n_trees", [2, 3, 7])
def test_phi_e_identical_members_is_error_rate(n_trees):
    y = np.array([0, 1, 2, 0, 1, 2, 2])
    f = np.array([0, 2, 2, 1, 1, 0, 2])
    ds = error_correlation(np.tile(f, (n_trees, 1)), y)
    assert float(ds.phi_e) == pytest.approx(np.mean(f != y))
    assert str(ds.relation.values) == "positive"


def test_single_tree_is_nan():
    ds = error_correlation(np.array([[0, 1, 1]]), np.array([0, 0, 1]))
    assert np.isnan(ds.phi_e) and np.isnan(ds.phi_star)
    assert str(ds.relation.values) == "undefined"
    assert "single tree" in ds.phi_e.attrs["description"]


def test_all_right_and_all_wrong():
    y = np.array([0, 1, 1, 0])
    right = error_correlation(np.tile(y, (3, 1)), y)
    assert float(right.phi_e) == 0 and float(right.phi_star) == 0
    assert str(right.relation.values) == "uncorrelated"
    wrong = error_arrangement(np.tile(1 - y, (3, 1)), y)
    assert float(wrong.observed_error) == 1 and float(wrong.optimal_error) == 1
    assert float(wrong.independent_error) == pytest.approx(1)


def test_optimal_arrangement_hand_example():
    # T = 3 members each wrong on 2 of 6 rows: 6 errors fit one per row -> no row lost.
    y = np.zeros(6, dtype=np.int64)
    L = np.array([[1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0]])
    ds = error_arrangement(L, y, n_classes=2)
    assert float(ds.observed_error) == pytest.approx(2 / 6)
    assert float(ds.optimal_error) == 0
    # independent: P(>= 2 of 3 wrong) with e = 1/3
    assert float(ds.independent_error) == pytest.approx(3 * (1 / 3) ** 2 * (2 / 3) + (1 / 3) ** 3)


def test_optimal_error_is_below_the_greedy_filling():
    # T = 4 (m = 2), n = 6, k = (6, 4, 2, 2). The source's greedy filling (most error-prone
    # first, each member's errors on the rows with the fewest so far) puts 1, then 2 errors
    # on every row and the last member's 2 errors make 2 rows of 3: 2 / 6. Losing one row
    # early is better: it takes 4 errors, the other 5 rows take 10 = 2 * 5, so 1 / 6.
    y = np.zeros(6, dtype=np.int64)
    L = np.zeros((4, 6), dtype=np.int64)
    for t, k in enumerate((6, 4, 2, 2)):
        L[t, :k] = 1
    ds = error_arrangement(L, y, n_classes=2)
    assert float(ds.optimal_error) == pytest.approx(1 / 6)


def test_optimal_error_counts_errors_not_votes():
    # three members, two wrong with different classes: 2 > m = 1 errors lose the row in the
    # arrangement, while the vote is a three-way tie that goes to the true class 0
    ds = error_arrangement(np.array([[1], [2], [0]]), np.array([0]), n_classes=3)
    assert float(ds.optimal_error) == 1 and float(ds.observed_error) == 0


def test_error_ratio():
    r = error_ratio(0.1, 0.2)
    assert float(r) == pytest.approx(0.5)
    assert r.name == "error_ratio" and "long_name" in r.attrs
    with pytest.warns(RuntimeWarning, match="single-model error is 0"):
        r0 = error_ratio([0.1, 0.3], [0.0, 0.3])
    assert np.isnan(r0[0]) and float(r0[1]) == 1
    da = xr.DataArray([0.1, 0.2], dims=["alpha"], coords={"alpha": [0.0, 0.5]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = error_ratio(da, 0.4)
    assert out.dims == ("alpha",) and list(out.alpha.values) == [0.0, 0.5]
    with pytest.raises(ValueError, match="single_error"):
        error_ratio(0.1, -1.0)


def test_classes_and_dataarray_inputs():
    y = np.array(["a", "b", "b", "c"])
    L = np.array([["a", "b", "c", "c"], ["b", "b", "b", "c"]])
    classes = ["a", "b", "c"]
    codes = {c: i for i, c in enumerate(classes)}
    enc = np.vectorize(codes.get)
    ref = error_correlation(enc(L), enc(y), n_classes=3)
    out = error_correlation(L, y, classes=classes)
    assert float(out.phi_e) == float(ref.phi_e)
    da = xr.DataArray(enc(L).T, dims=["sample", "tree"], coords={"sample": [10, 11, 12, 13]})
    ds = errors(da, enc(y))
    assert list(ds.tree.values) == [0, 1]
    assert float(ds.member_error[1]) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("L", "y", "kwargs", "exc", "match"),
    [
        (np.zeros((2, 3)), np.zeros(4), {}, ValueError, "samples"),
        (np.zeros(3), np.zeros(3), {}, ValueError, "member_labels"),
        (np.zeros((2, 3)), np.zeros((3, 1)), {}, ValueError, "y"),
        (np.array([[0, 3, 1]]), np.zeros(3), {"n_classes": 3}, ValueError, "member_labels"),
        (np.array([[0, -1, 1]]), np.zeros(3), {}, ValueError, "member_labels"),
        (np.array([[0, 1, 1]]), np.array([0, 0.5, 1]), {}, ValueError, "y"),
        # text labels need no classes= (issue 25), but text against numbers is refused
        (np.array([["a", "b"]]), np.array([0, 1]), {}, TypeError, "member_labels"),
        (np.array([["a", "z"]]), np.array(["a", "b"]), {"classes": ["a", "b"]}, ValueError, "z"),
        (xr.DataArray(np.zeros((2, 3)), dims=["x", "y"]), np.zeros(3), {}, ValueError, "dims"),
    ],
)
def test_bad_input(L, y, kwargs, exc, match):
    for fn in (error_correlation, error_arrangement, errors):
        with pytest.raises(exc, match=match):
            fn(L, y, **kwargs)


def test_independent_error_union_bound_path_brackets_the_exact_value():
    rng = np.random.default_rng(5)
    T, n, C = 9, 400, 4
    y = rng.integers(0, C, n)
    L = np.where(rng.random((T, n)) < 0.12, (y[None, :] + rng.integers(1, C, (T, n))) % C,
                 y[None, :])
    exact = error_arrangement(L, y, n_classes=C, max_states=10**7)
    bounded = error_arrangement(L, y, n_classes=C, max_states=1, n_draws=1000)
    assert "union bound" in bounded.independent_error.attrs["description"]
    assert float(bounded.independent_error) == 0.0
    se = float(bounded.independent_error_se)
    assert 0 < float(exact.independent_error) <= 2 * se  # 0 <= value <= sum of bounds
    assert se < 1 / 1000


def _phi_star_of_rates(q, p_class):
    """phi* of members with per-class confusion rates q[t, k, l] = P(member t says l | y = k):
    the chance that two members, erring independently given the class, make the same error,
    averaged over pairs (Ali & Pazzani 1995, section 5.3)."""
    T = q.shape[0]
    same = [sum(p_class[k] * sum(q[a, k, l] * q[b, k, l] for l in range(q.shape[2]) if l != k)
                for k in range(q.shape[1]))
            for a in range(T) for b in range(a + 1, T)]
    return float(np.mean(same))


def test_phi_star_is_the_error_correlation_of_simulated_independent_members():
    """A second, differently derived check of phi*: members drawn independently given the class
    from fixed confusion rates. Their observed phi_e estimates the closed-form value of the
    rates, and so does phi* computed from their outputs; both agree within a few standard
    errors of the simulation (200,000 rows; standard error about 4e-4).

    Mutations tried in ``diversity.phi_e_phi_star``: the class rates q divided by the number of
    rows instead of the rows of the class, and the diagonal (agreeing on the right class) not
    removed: each fails here."""
    rng = np.random.default_rng(20)
    T, C, n = 5, 3, 200_000
    p_class = np.array([0.5, 0.3, 0.2])
    q = rng.dirichlet([1.0, 1.0, 1.0], size=(T, C))
    q[:, np.arange(C), np.arange(C)] += 2.0  # mostly right
    q /= q.sum(axis=2, keepdims=True)
    y = rng.choice(C, size=n, p=p_class)
    cum = np.cumsum(q[:, y, :], axis=2)  # (member, row, class)
    L = (rng.random((T, n, 1)) > cum).sum(axis=2)
    L = np.minimum(L, C - 1)
    expected = _phi_star_of_rates(q, p_class)
    ds = error_correlation(L, y, n_classes=C)
    assert 0.02 < expected < 0.2
    assert float(ds.phi_e) == pytest.approx(expected, abs=2e-3)
    assert float(ds.phi_star) == pytest.approx(expected, abs=2e-3)
    assert float(ds.phi_star) == pytest.approx(float(ds.phi_e), abs=2e-3)


def test_phi_star_is_the_mean_error_correlation_under_within_class_shuffles():
    """phi* is exactly the expected phi_e when every member's outputs are shuffled among the rows
    of each class independently (which keeps each member's confusion counts and makes members
    independent given the class): checked on a fitted forest's members, averaging phi_e over
    400 such shuffles. Both mutations of the previous test fail here too."""
    import treelab

    rng = np.random.default_rng(21)
    n = 300
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 0.7)
    model = treelab.RandomForest(n_estimators=6, random_state=0).fit(X[:200], y[:200])
    L = model.member_predict(X[200:])
    yt = y[200:]
    ds = error_correlation(L, yt, n_classes=3)
    phi_e_obs, phi_star = float(ds.phi_e), float(ds.phi_star)
    shuffled = []
    for _ in range(400):
        Ls = L.copy()
        for t in range(L.shape[0]):
            for k in range(3):
                rows = np.flatnonzero(yt == k)
                Ls[t, rows] = L[t, rng.permutation(rows)]
        shuffled.append(float(error_correlation(Ls, yt, n_classes=3).phi_e))
    se = np.std(shuffled) / np.sqrt(len(shuffled))
    assert abs(np.mean(shuffled) - phi_star) < 5 * se + 1e-12
    # the trees' errors are positively correlated: the observed phi_e lies far above
    assert phi_e_obs > phi_star + 10 * se


def _lost_draws_reference(cum, k, n_draws, seed):
    """The Monte Carlo kernel's law on Python integers: splitmix64 draws, each member votes
    the first class c < C - 1 with u < cum[t, c] (a linear scan), most votes wins, ties to the
    lower class index."""
    # by module name (pytest puts tests/ on sys.path): a dependency ships a top-level
    # package named `tests` that would shadow this folder as `tests.`
    from test_random_growth import SplitMix64

    rng = SplitMix64(int(seed))
    n_trees, n_classes = cum.shape
    lost = 0
    for _ in range(n_draws):
        counts = [0] * n_classes
        for t in range(n_trees):
            u = rng.uniform()
            c = 0
            while c < n_classes - 1 and u >= cum[t, c]:
                c += 1
            counts[c] += 1
        lost += int(np.argmax(counts)) != k
    return lost


@pytest.mark.parametrize("case", range(8))
def test_lost_draws_matches_linear_scan(case):
    # the kernel's guide table must land on the class of the plain scan for every draw:
    # zero-probability classes (repeated edges), mass on the first or last class, many
    # classes, one class, and a last edge below its neighbour (the guard against rounding)
    from treelab.engine.kernels._votes import lost_draws

    rng = np.random.default_rng(case)
    n_classes = [1, 2, 3, 7, 29, 40, 5, 12][case]
    n_trees = [1, 5, 9, 13, 11, 7, 17, 3][case]
    p = rng.random((n_trees, n_classes)) ** 3
    p[rng.random(p.shape) < 0.4] = 0.0
    p[:, case % n_classes] += 2.0 * rng.random(n_trees)  # most mass on one class
    p /= p.sum(axis=1, keepdims=True)
    cum = np.cumsum(p, axis=1)
    cum[:, -1] = 1.0
    if case == 6:
        cum[:, -2] = np.nextafter(1.0, 2.0)  # rounding past 1 before the last column
    for k in {0, n_classes - 1, case % n_classes}:
        seed = np.uint64(rng.integers(0, 2**63))
        assert lost_draws(cum, k, 300, seed) == _lost_draws_reference(cum, k, 300, seed)


def _vote_table_reference(p, k, wrong):
    """The NumPy whole-table DP the kernel replaced (one step a member, axis by axis)."""
    n_trees, W = p.shape[0], wrong.size
    table = np.zeros((n_trees + 1,) * W)
    table[(0,) * W] = 1.0
    for t in range(n_trees):
        new = table * p[t, k]
        for axis, cls in enumerate(wrong):
            if p[t, cls] == 0.0:
                continue
            src = [slice(None)] * W
            dst = [slice(None)] * W
            src[axis], dst[axis] = slice(0, n_trees), slice(1, n_trees + 1)
            new[tuple(dst)] += p[t, cls] * table[tuple(src)]
        table = new
    return table


@pytest.mark.parametrize(("n_trees", "n_classes", "k", "wrong"), [
    (1, 2, 0, [1]), (100, 2, 1, [0]), (100, 3, 1, [0, 2]), (7, 4, 2, [0, 1, 3]),
    (30, 5, 0, [1, 3]), (4, 6, 5, [0, 1, 2, 3, 4]),
])
def test_vote_table_is_the_numpy_dp_bit_for_bit(n_trees, n_classes, k, wrong):
    from treelab.engine.kernels._votes import vote_table

    rng = np.random.default_rng(n_trees * 31 + n_classes)
    for _ in range(3):
        p = rng.random((n_trees, n_classes)) ** 3
        p[rng.random(p.shape) < 0.25] = 0.0  # members that never vote a class: steps skipped
        p /= np.where(p.sum(axis=1, keepdims=True) > 0, p.sum(axis=1, keepdims=True), 1.0)
        w = np.array(wrong, dtype=np.int64)
        got = vote_table(p, k, w).reshape((n_trees + 1,) * len(wrong))
        want = _vote_table_reference(p, k, w)
        assert got.tobytes() == want.tobytes()
        assert abs(got.sum() - p[:, [k, *wrong]].sum(axis=1).prod()) < 1e-9
