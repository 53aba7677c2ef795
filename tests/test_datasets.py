"""Generators checked against their published definitions (independent computations)."""

import itertools

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import multivariate_normal, norm

from treelab import datasets as D

# ---------------------------------------------------------------- seeding, schema, bad input

SIZED = {
    "led": {"n_samples": 50},
    "waveform": {"n_samples": 50},
    "concepts": {"n_samples": 50},
    "fan_synthetic": {"n_samples": 50},
    "krk": {"n_samples": 50},
    "monks": {"n_samples": 50},
    "m_of_n": {"n_samples": 50},
    "parity": {"n_samples": 50},
    "gaussian_mixture": {"n_samples": 50},
    "noisy_function_2d": {"n_samples": 50},
    "friedman1": {"n_samples": 50},
    "friedman2": {"n_samples": 50},
    "friedman3": {"n_samples": 50},
    "poisson_counts": {"n_samples": 50},
}


@pytest.mark.parametrize("name", sorted(SIZED))
def test_same_seed_same_data_other_seed_other_data(name):
    a = D.generate(name, random_state=3, **SIZED[name])
    b = D.generate(name, random_state=3, **SIZED[name])
    c = D.generate(name, random_state=4, **SIZED[name])
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    assert a.n_samples == 50


@pytest.mark.parametrize("name", sorted(D.GENERATORS))
def test_schema_and_probabilities_are_consistent(name):
    params = dict(SIZED.get(name, {}))
    data = D.generate(name, random_state=0, **params)
    assert data.X.dtype == np.float64 and data.X.ndim == 2
    assert len(data.feature_types) == data.n_features
    for j in np.flatnonzero(data.categorical_features):
        col = data.X[:, j]
        assert np.all(col == np.round(col)) and col.min() >= 0  # codes 0..m-1
    if data.meta.get("task") == "regression":  # real targets: no classes, no probabilities
        assert data.classes.size == 0 and data.y.dtype == np.float64
        assert data.true_proba is None and data.true_target.shape == data.y.shape
    else:
        assert set(np.unique(data.y)) <= set(data.classes.tolist())
    if data.true_proba is not None:
        np.testing.assert_allclose(data.true_proba.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(data.true_proba >= 0)
    frame = data.to_frame()
    assert list(frame.columns) == [*data.feature_names, "target"]


@pytest.mark.parametrize(
    ("call", "exc", "word"),
    [
        (lambda: D.led(0), ValueError, "n_samples"),
        (lambda: D.led(10, noise=1.5), ValueError, "noise"),
        (lambda: D.led(10, n_irrelevant=-1), ValueError, "n_irrelevant"),
        (lambda: D.led(10.5), TypeError, "n_samples"),
        (lambda: D.waveform(10, n_features=20), ValueError, "n_features"),
        (lambda: D.concepts("C"), ValueError, "concept"),
        (lambda: D.fan_synthetic(10, weights=[1, -1, 1, 1, 1]), ValueError, "weights"),
        (lambda: D.monks(4), ValueError, "problem"),
        (lambda: D.monks(1, 500), ValueError, "n_samples"),
        (lambda: D.m_of_n(10, m=5, n=4), ValueError, "m"),
        (lambda: D.krk(10, class_noise=-0.1), ValueError, "class_noise"),
        (lambda: D.led(10, random_state="x"), TypeError, "random_state"),
        (lambda: D.tictactoe(shuffle=1), TypeError, "shuffle"),
        (lambda: D.balance_scale(shuffle=1), TypeError, "shuffle"),
        (lambda: D.image_interpolation(image=np.zeros(3, dtype=int)), ValueError, "image"),
        (lambda: D.generate("nope"), ValueError, "name"),
    ],
)
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


# ---------------------------------------------------------------------------------- LED

# The seven-segment digits written independently as sets of lit segments.
_SEGMENT_NAMES = (
    "top",
    "upper_left",
    "upper_right",
    "middle",
    "lower_left",
    "lower_right",
    "bottom",
)
_DIGITS = {
    0: {"top", "upper_left", "upper_right", "lower_left", "lower_right", "bottom"},
    1: {"upper_right", "lower_right"},
    2: {"top", "upper_right", "middle", "lower_left", "bottom"},
    3: {"top", "upper_right", "middle", "lower_right", "bottom"},
    4: {"upper_left", "upper_right", "middle", "lower_right"},
    5: {"top", "upper_left", "middle", "lower_right", "bottom"},
    6: {"top", "upper_left", "middle", "lower_left", "lower_right", "bottom"},
    7: {"top", "upper_right", "lower_right"},
    8: set(_SEGMENT_NAMES),
    9: {"top", "upper_left", "upper_right", "middle", "lower_right", "bottom"},
}


def test_led_segments_are_the_seven_segment_digits():
    for d, lit in _DIGITS.items():
        expected = [int(s in lit) for s in _SEGMENT_NAMES]
        assert D.LED_SEGMENTS[d].tolist() == expected


def test_led_bayes_error_at_noise_01_is_about_26_percent():
    # brute force over all 128 patterns with the independent digit table
    table = np.array([[int(s in _DIGITS[d]) for s in _SEGMENT_NAMES] for d in range(10)])
    total = 0.0
    for pattern in itertools.product((0, 1), repeat=7):
        mism = (np.array(pattern) != table).sum(axis=1)
        total += np.max(0.1 * 0.1**mism * 0.9 ** (7 - mism))
    assert D.led_bayes_error(0.1) == pytest.approx(1 - total, abs=1e-12)
    assert 0.255 < D.led_bayes_error(0.1) < 0.265
    assert D.led_bayes_error(0.0) == pytest.approx(0.0)


def test_led_noise_rate_bayes_rule_and_true_probabilities():
    data = D.led(40000, n_irrelevant=17, noise=0.1, random_state=1)
    assert data.name == "led24" and data.n_features == 24
    flips = data.X[:, :7] != D.LED_SEGMENTS[data.y]
    assert flips.mean() == pytest.approx(0.1, abs=0.005)
    assert data.X[:, 7:].mean() == pytest.approx(0.5, abs=0.01)
    # the Bayes rule (argmax of the true probabilities) errs at the Bayes rate
    err = np.mean(data.true_proba.argmax(axis=1) != data.y)
    se = np.sqrt(0.26 * 0.74 / data.n_samples)
    assert err == pytest.approx(data.meta["bayes_error"], abs=4 * se)
    # true probabilities match the empirical class frequencies of frequent patterns
    codes = data.X[:, :7] @ (2 ** np.arange(7))
    for code in np.unique(codes):
        rows = codes == code
        if rows.sum() < 2000:
            continue
        freq = np.bincount(data.y[rows], minlength=10) / rows.sum()
        np.testing.assert_allclose(freq, data.true_proba[rows][0], atol=0.04)


# ----------------------------------------------------------------------------- waveform


def _h(i, centre):
    return max(6 - abs(i - centre), 0)


def test_waveform_true_probabilities_match_numerical_integration():
    data = D.waveform(6, n_features=40, random_state=2)
    assert data.n_features == 40 and data.name == "waveform-40"
    i = np.arange(1, 22)
    h1 = np.array([_h(k, 11) for k in i])
    h2 = np.array([_h(k - 4, 11) for k in i])
    h3 = np.array([_h(k + 4, 11) for k in i])
    pairs = [(h1, h2), (h1, h3), (h2, h3)]
    for row in range(data.n_samples):
        x = data.X[row, :21]
        lik = np.array(
            [
                quad(
                    lambda u, a=a, b=b, x=x: np.prod(norm.pdf(x - (u * a + (1 - u) * b))),
                    0,
                    1,
                    epsabs=0,
                    epsrel=1e-10,
                )[0]
                for a, b in pairs
            ]
        )
        np.testing.assert_allclose(data.true_proba[row], lik / lik.sum(), rtol=1e-6, atol=1e-12)


def test_waveform_class_means_and_bayes_error():
    data = D.waveform(30000, random_state=5)
    i = np.arange(1, 22)
    h1 = np.array([_h(k, 11) for k in i])
    h2 = np.array([_h(k - 4, 11) for k in i])
    h3 = np.array([_h(k + 4, 11) for k in i])
    expected = [(h1 + h2) / 2, (h1 + h3) / 2, (h2 + h3) / 2]  # E[u] = 1/2
    for c in range(3):
        np.testing.assert_allclose(data.X[data.y == c, :21].mean(axis=0), expected[c], atol=0.06)
    assert np.bincount(data.y) / data.n_samples == pytest.approx([1 / 3] * 3, abs=0.015)
    err = np.mean(data.true_proba.argmax(axis=1) != data.y)
    assert 0.11 < err < 0.15  # Breiman et al. quote about 14%; the exact rule gives about 13%


# ----------------------------------------------------------------------------- concepts


def test_concepts_labels_noise_and_lattice():
    a = D.concepts("A", 4000, n_irrelevant=3, random_state=0)
    assert a.n_features == 5
    np.testing.assert_array_equal(a.y, (a.X[:, 0] > a.X[:, 1]).astype(int))
    assert a.X.min() >= -1 and a.X.max() <= 1
    b = D.concepts("B", 4000, random_state=0)
    np.testing.assert_array_equal(b.y, (b.X[:, 0] > 0).astype(int))
    noisy = D.concepts("B", 20000, noise=0.4, random_state=0)
    assert np.mean(noisy.y != (noisy.X[:, 0] > 0)) == pytest.approx(0.4, abs=0.012)
    np.testing.assert_allclose(noisy.true_proba[:, 1], np.where(noisy.X[:, 0] > 0, 0.6, 0.4))
    lat = D.concepts_lattice("A")
    assert lat.n_samples == 10000
    axis = np.unique(lat.X[:, 0])
    np.testing.assert_allclose(axis, -1 + (2 * np.arange(100) + 1) / 100)
    assert lat.y.sum() == (10000 - 100) // 2  # the diagonal itself is negative
    assert D.concepts_lattice("B").y.sum() == 5000


# ------------------------------------------------------------------------ Fan's synthetic


def test_fan_synthetic_probabilities_formula_and_frequencies():
    data = D.fan_synthetic(60000, n_features=5, random_state=4)
    r = data.X.sum(axis=1) / 25.0
    expected = np.column_stack([r * (1 - r), r**2, (1 - r) * r, (1 - r) ** 2])
    np.testing.assert_allclose(data.true_proba, expected)
    np.testing.assert_allclose(data.true_proba.sum(axis=1), 1.0)
    assert data.X.min() >= 0 and data.X.max() <= 5
    bins = np.digitize(r, np.linspace(0, 1, 11))
    for b in np.unique(bins):
        rows = bins == b
        if rows.sum() < 3000:
            continue
        freq = np.bincount(data.y[rows], minlength=4) / rows.sum()
        se = np.sqrt(0.25 / rows.sum())
        np.testing.assert_allclose(freq, data.true_proba[rows].mean(axis=0), atol=4 * se)
    w = D.fan_synthetic(10, n_features=3, m=2.0, weights=[1, 0, 3], random_state=0)
    rw = (w.X @ np.array([1, 0, 3])) / (2.0 * 4)
    np.testing.assert_allclose(w.true_proba[:, 1], rw**2)


# --------------------------------------------------------------------------- tic-tac-toe

_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _wins(board, p):
    return any(all(board[i] == p for i in line) for line in _LINES)


def test_tictactoe_has_958_boards_and_626_wins():
    data = D.tictactoe()
    assert data.n_samples == 958
    assert data.y.sum() == 626
    boards = data.X.astype(int)  # x = 0, o = 1, b = 2
    assert len({tuple(b) for b in boards}) == 958
    o_wins = draws = 0
    for b, label in zip(boards, data.y, strict=True):
        nx, no = (b == 0).sum(), (b == 1).sum()
        assert nx - no in (0, 1)  # X moves first and players alternate
        x_won, o_won = _wins(b, 0), _wins(b, 1)
        assert label == int(x_won)
        assert not (x_won and o_won)
        assert x_won or o_won or (b != 2).all()  # play stops only at a win or a full board
        if x_won:
            assert nx == no + 1  # X won on its own move
        if o_won:
            assert nx == no
            o_wins += 1
        draws += not (x_won or o_won)
    assert (o_wins, draws) == (316, 16)
    shuffled = D.tictactoe(shuffle=True, random_state=1)
    assert sorted(map(tuple, shuffled.X)) == sorted(map(tuple, data.X))


def test_balance_scale_is_the_uci_enumeration_with_its_class_counts():
    # the UCI description: 625 rows, 4 attributes of values 1-5, class distribution
    # 46.08% L, 7.84% B, 46.08% R; the file's first rows are B,1,1,1,1 then R,1,1,1,2
    data = D.balance_scale()
    assert data.X.shape == (625, 4) and data.classes.tolist() == [0, 1, 2]
    assert data.meta["class_names"] == ("B", "L", "R")
    names = np.array(data.meta["class_names"])[data.y]
    assert {c: int((names == c).sum()) for c in "LBR"} == {"L": 288, "B": 49, "R": 288}
    assert names[:3].tolist() == ["B", "R", "R"]
    assert data.X[:2].tolist() == [[1, 1, 1, 1], [1, 1, 1, 2]]
    assert len({tuple(r) for r in data.X}) == 625 and set(np.unique(data.X)) == {1, 2, 3, 4, 5}
    hand = {(2, 3, 3, 2): "B", (5, 5, 4, 5): "L", (1, 4, 2, 3): "R", (4, 1, 1, 5): "R",
            (4, 2, 1, 5): "L"}  # torques 6 = 6, 25 > 20, 4 < 6, 4 < 5, 8 > 5
    for (lw, ld, rw, rd), want in hand.items():
        row = np.flatnonzero((data.X == [lw, ld, rw, rd]).all(axis=1))
        assert names[row].tolist() == [want], (lw, ld, rw, rd)
    # B rows: pairs of products equal (49 = sum over products t of (ways to make t)^2)
    ways = np.bincount([a * b for a in range(1, 6) for b in range(1, 6)])
    assert int((ways**2).sum()) == 49
    np.testing.assert_array_equal(data.true_proba.argmax(axis=1), data.y)
    shuffled = D.balance_scale(shuffle=True, random_state=2)
    def rows(d):
        return sorted((*r, c) for r, c in zip(d.X.tolist(), d.y.tolist(), strict=True))

    assert rows(shuffled) == rows(data)


# ----------------------------------------------------------------------------------- KRK


def _naive_illegal(wkf, wkr, wrf, wrr, bkf, bkr):
    squares = [(wkf, wkr), (wrf, wrr), (bkf, bkr)]
    if len(set(squares)) < 3:
        return 1
    if max(abs(wkf - bkf), abs(wkr - bkr)) <= 1:
        return 1
    if wrf == bkf:
        lo, hi = sorted((wrr, bkr))
        if not (wkf == wrf and lo < wkr < hi):
            return 1
    if wrr == bkr:
        lo, hi = sorted((wrf, bkf))
        if not (wkr == wrr and lo < wkf < hi):
            return 1
    return 0


def test_krk_illegal_share_and_rule():
    every = D.krk(exhaustive=True)
    assert every.n_samples == 8**6
    assert every.y.mean() == pytest.approx(0.33, abs=0.01)
    rng = np.random.default_rng(0)
    for row in rng.choice(every.n_samples, size=3000, replace=False):
        assert every.y[row] == _naive_illegal(*every.X[row].astype(int))
    sample = D.krk(20000, random_state=1)
    assert sample.y.mean() == pytest.approx(every.y.mean(), abs=0.015)
    noisy = D.krk(20000, attribute_noise=0.2, class_noise=0.1, random_state=1)
    assert noisy.true_proba is None
    assert noisy.X.min() >= 1 and noisy.X.max() <= 8
    # attribute noise resamples 20% of values uniformly: 20% * 7/8 change
    assert np.mean(noisy.X != sample.X) == pytest.approx(0.2 * 7 / 8, abs=0.01)


# -------------------------------------------------------------------------------- MONK's


def test_monks_rules_class_counts_and_noise():
    counts = {1: 216, 2: 142, 3: 228}  # positives among the 432 test examples
    for problem, positives in counts.items():
        full = D.monks(problem)
        assert full.n_samples == 432 and full.y.sum() == positives
        assert [len(np.unique(full.X[:, j])) for j in range(6)] == [3, 3, 2, 3, 4, 2]
    a = D.monks(1).X.astype(int) + 1
    np.testing.assert_array_equal(D.monks(1).y, ((a[:, 0] == a[:, 1]) | (a[:, 4] == 1)))
    np.testing.assert_array_equal(D.monks(2).y, (a == 1).sum(axis=1) == 2)
    train = D.monks(3, 122, random_state=0)
    assert train.meta["n_noisy"] == 6  # 5% of 122, as in Thrun et al.
    wrong = train.y != train.true_proba.argmax(axis=1)
    assert wrong.sum() == 6
    assert len({tuple(r) for r in train.X}) == 122
    assert D.monks(3, 122, noise=0.0, random_state=0).meta["n_noisy"] == 0


# -------------------------------------------------------------------- m-of-n and parity


def test_m_of_n_and_parity_truth_tables():
    mn = D.m_of_n(None, m=2, n=4, n_irrelevant=2)
    assert mn.n_samples == 64
    np.testing.assert_array_equal(mn.y, mn.X[:, :4].sum(axis=1) >= 2)
    par = D.parity(None, n_relevant=3, n_irrelevant=2)
    assert par.n_samples == 32
    np.testing.assert_array_equal(par.y, mn_parity := par.X[:, :3].sum(axis=1) % 2)
    assert mn_parity.mean() == 0.5
    for j in range(par.n_features):  # no single attribute carries information
        assert par.y[par.X[:, j] == 1].mean() == 0.5
    noisy = D.parity(20000, noise=0.25, random_state=0)
    assert np.mean(noisy.y != noisy.X.sum(axis=1) % 2) == pytest.approx(0.25, abs=0.012)


# ------------------------------------------------------------------ 2-D pictures and mixture


def test_gaussian_mixture_probabilities_and_fixed_distribution():
    a = D.gaussian_mixture(300, random_state=0)
    b = D.gaussian_mixture(300, random_state=1)
    np.testing.assert_array_equal(a.meta["centers"], b.meta["centers"])
    centers = a.meta["centers"]
    dens = np.stack(
        [sum(multivariate_normal(m, np.eye(2) / 5).pdf(a.X) for m in centers[c]) for c in range(2)],
        axis=1,
    )
    np.testing.assert_allclose(a.true_proba, dens / dens.sum(axis=1, keepdims=True), atol=1e-10)
    big = D.gaussian_mixture(20000, random_state=2)
    assert np.mean(big.true_proba.argmax(axis=1) != big.y) < 0.3


def test_noisy_function_2d_noise_and_boundaries():
    data = D.noisy_function_2d(30000, random_state=0)
    clean = D.noisy_function_label(data.X)
    assert np.mean(data.y != clean) == pytest.approx(0.1, abs=0.006)
    x1, x2 = data.X[:, 0], data.X[:, 1]
    regions = [
        (x1 - 0.25) ** 2 + (x2 - 0.72) ** 2 < 0.15**2,
        (x1 - 0.68) ** 2 + (x2 - 0.32) ** 2 < 0.2**2,
        x2 > 0.5 + 0.15 * np.sin(4 * np.pi * x1),
        x2 > x1,
    ]
    np.testing.assert_array_equal(clean, np.sum(regions, axis=0) % 2)
    assert 0.3 < clean.mean() < 0.7


def test_image_interpolation_grids():
    small = D.image_interpolation(20)
    big = D.image_interpolation(160)
    assert small.n_samples == 400 and big.n_samples == 25600
    assert set(np.unique(small.y)) == {0, 1, 2, 3} == set(np.unique(big.y))
    img = big.y.reshape(big.meta["shape"])
    assert img.shape == (160, 160)
    # pixel (row 51, col 48) has centre (0.303, 0.322): inside the disc
    assert img[51, 48] == 1
    custom = np.array([[0, 1], [2, 2]])
    data = D.image_interpolation(image=custom)
    np.testing.assert_array_equal(data.y.reshape(2, 2), custom)
    np.testing.assert_allclose(data.X[1], [0.75, 0.25])  # row 0, column 1
