"""Pairwise diversity without the (tree, tree_other) matrices (issue 39, item 23): the mean
measures streamed over pairs equal the means of the matrices and a slow loop over pairs
written from Kuncheva & Whitaker's definitions; the matrices are built only when they fit a
memory bound or are asked for, and asked for above it they are refused."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from treelab.analysis import kuncheva, pairwise_diversity

MEANS = ["mean_q_statistic", "mean_correlation", "mean_disagreement", "mean_double_fault",
         "mean_kappa"]


def slow_pair_means(labels: np.ndarray, y: np.ndarray, n_classes: int) -> dict[str, float]:
    """Every pair t < k in a Python loop, from the definitions (Kuncheva & Whitaker 2003,
    section 3.1; Cohen's kappa between the labels), averaged where defined."""
    T, n = labels.shape
    vals: dict[str, list[float]] = {k: [] for k in MEANS}
    for t in range(T):
        for k in range(t + 1, T):
            a, b = labels[t] == y, labels[k] == y
            n11 = int(np.sum(a & b))
            n10 = int(np.sum(a & ~b))
            n01 = int(np.sum(~a & b))
            n00 = int(np.sum(~a & ~b))
            num = n11 * n00 - n01 * n10
            den_q = n11 * n00 + n01 * n10
            den_r = ((n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)) ** 0.5
            vals["mean_q_statistic"].append(num / den_q if den_q else np.nan)
            vals["mean_correlation"].append(num / den_r if den_r else np.nan)
            vals["mean_disagreement"].append((n01 + n10) / n)
            vals["mean_double_fault"].append(n00 / n)
            p_o = np.mean(labels[t] == labels[k])
            p_e = sum(np.mean(labels[t] == c) * np.mean(labels[k] == c)
                      for c in range(n_classes))
            vals["mean_kappa"].append((p_o - p_e) / (1 - p_e) if abs(1 - p_e) > 1e-12
                                      else np.nan)
    out = {}
    for key, v in vals.items():
        arr = np.asarray(v, dtype=float)
        ok = ~np.isnan(arr)
        out[key] = float(arr[ok].mean()) if ok.any() else np.nan
    return out


def _case(seed: int, T: int, n: int, C: int, skill: float = 0.6):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    right = rng.random((T, n)) < skill
    labels = np.where(right, y[None, :], rng.integers(0, C, (T, n)))
    return labels, y


CASES = [(0, 7, 40, 2), (1, 12, 33, 3), (2, 9, 50, 5), (3, 2, 5, 2), (4, 30, 17, 4),
         (5, 6, 130, 300), (6, 8, 64, 2), (7, 5, 65, 9)]


@pytest.mark.parametrize(("seed", "T", "n", "C"), CASES)
def test_streamed_means_equal_the_matrix_means_and_a_slow_loop(seed, T, n, C):
    labels, y = _case(seed, T, n, C)
    full = pairwise_diversity(labels, y, n_classes=C, pair_matrix=True)
    streamed = pairwise_diversity(labels, y, n_classes=C, pair_matrix=False)
    slow = slow_pair_means(labels, y, C)
    assert "kappa" in full and "kappa" not in streamed and "q_statistic" not in streamed
    for key in MEANS:
        np.testing.assert_allclose(float(streamed[key]), float(full[key]), rtol=1e-12,
                                   atol=1e-15, err_msg=key)
        np.testing.assert_allclose(float(streamed[key]), slow[key], rtol=1e-12, atol=1e-15,
                                   err_msg=key)
    np.testing.assert_array_equal(streamed.member_error.values, full.member_error.values)


def test_undefined_pairs_are_left_out_of_the_means_as_with_the_matrices():
    # member 0 right everywhere (Q and rho 0/0 with anyone), members 1 and 2 identical and
    # constant (kappa 0/0 between them)
    y = np.array([0, 1, 2, 0, 1, 2])
    labels = np.array([y, [1] * 6, [1] * 6, [0, 1, 1, 0, 2, 2]])
    full = pairwise_diversity(labels, y, pair_matrix=True)
    streamed = pairwise_diversity(labels, y, pair_matrix=False)
    slow = slow_pair_means(labels, y, 3)
    assert np.isnan(full.q_statistic.values[0, 1]) and np.isnan(full.kappa.values[1, 2])
    for key in MEANS:
        np.testing.assert_allclose(float(streamed[key]), slow[key], rtol=1e-12)
        np.testing.assert_allclose(float(streamed[key]), float(full[key]), rtol=1e-12)


def test_one_tree_gives_nan_means_streamed_too():
    ds = pairwise_diversity([[0, 1, 1]], [0, 1, 0], pair_matrix=False)
    assert all(np.isnan(float(ds[key])) for key in MEANS)
    full = pairwise_diversity([[0, 1, 1]], [0, 1, 0], pair_matrix=True)
    np.testing.assert_array_equal(ds.member_error.values, full.member_error.values)
    assert ds.member_error.values.tolist() == pytest.approx([1 / 3], rel=1e-15)


def test_leading_dims_stream_per_ensemble():
    rng = np.random.default_rng(5)
    L = xr.DataArray(rng.integers(0, 3, (2, 3, 6, 25)), dims=("alpha", "fold", "tree", "sample"),
                     coords={"alpha": [0.0, 1.0]})
    y = xr.DataArray(rng.integers(0, 3, (3, 25)), dims=("fold", "sample"))
    full = pairwise_diversity(L, y, n_classes=3, pair_matrix=True)
    streamed = pairwise_diversity(L, y, n_classes=3, pair_matrix=False)
    for key in MEANS:
        assert streamed[key].dims == ("alpha", "fold")
        xr.testing.assert_allclose(streamed[key], full[key], rtol=1e-12)
    for a in range(2):
        for f in range(3):
            slow = slow_pair_means(L.values[a, f], y.values[f], 3)
            np.testing.assert_allclose(float(streamed.mean_kappa[a, f]), slow["mean_kappa"],
                                       rtol=1e-12)


def test_default_builds_the_matrices_under_the_bound_bit_for_bit(monkeypatch):
    labels, y = _case(7, 10, 30, 3)
    default = pairwise_diversity(labels, y)
    asked = pairwise_diversity(labels, y, pair_matrix=True)
    xr.testing.assert_identical(default, asked)
    assert "pair_matrix" not in default.attrs


def test_above_the_bound_the_default_leaves_the_matrices_out_and_true_is_refused(monkeypatch):
    labels, y = _case(8, 10, 30, 3)
    monkeypatch.setattr(kuncheva, "MAX_PAIR_MATRIX_BYTES", 6 * 8 * 10 * 10 - 1)
    ds = pairwise_diversity(labels, y)
    assert "kappa" not in ds and "pair_error" not in ds
    assert ds.attrs["pair_matrix"].startswith("not built")
    np.testing.assert_allclose(float(ds.mean_kappa), slow_pair_means(labels, y, 3)["mean_kappa"],
                               rtol=1e-12)
    with pytest.raises(ValueError, match="pair_matrix=True: the \\(tree, tree_other\\) matrices "
                                         "of 10 trees take .* pass pair_matrix=False"):
        pairwise_diversity(labels, y, pair_matrix=True)
    with pytest.raises(TypeError, match="pair_matrix must be True, False or None"):
        pairwise_diversity(labels, y, pair_matrix="yes")


def test_a_forest_read_on_X_streams_the_same_means():
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=15, max_depth=2, random_state=0).fit(X[::2], y[::2])
    full = pairwise_diversity(rf, y[1::2], X=X[1::2], pair_matrix=True)
    streamed = pairwise_diversity(rf, y[1::2], X=X[1::2], pair_matrix=False)
    for key in MEANS:
        np.testing.assert_allclose(float(streamed[key]), float(full[key]), rtol=1e-12)
