"""The posterior plots and the Wilcoxon-Holm critical-difference diagram at their journal
widths, checked by the layout checker of ``tests/test_plot_layout.py``."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402
from test_plot_layout import assert_clean  # noqa: E402

from treelab import plot, stats  # noqa: E402


def _errors(n_methods=5, n_sets=12, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.05, 0.35, n_sets)
    table = base[:, None] + 0.01 * np.arange(n_methods)[None, :] + rng.normal(
        0, 0.008, (n_sets, n_methods))
    return xr.DataArray(table, dims=("dataset", "ensemble"),
                        coords={"ensemble": [f"method {i}" for i in range(n_methods)]})


def test_posterior_simplex_layout():
    res = stats.bayesian_signed_rank(_errors(), "method 0", "method 1", rope=0.005,
                                     n_samples=3000)
    assert_clean(plot.posterior_simplex(res).figure, "single")
    plt.close("all")


def test_posterior_t_layout():
    rng = np.random.default_rng(1)
    folds = xr.DataArray(np.stack([0.2 + rng.normal(0, 0.01, 10),
                                   0.21 + rng.normal(0, 0.01, 10)]),
                         dims=("ensemble", "fold"), coords={"ensemble": ["RF", "VR-Trees"]})
    res = stats.bayesian_correlated_t(folds, "RF", "VR-Trees", rope=0.005, test_fraction=0.1,
                                      n_samples=100)
    assert_clean(plot.posterior_t(res).figure, "single")
    plt.close("all")


def test_wilcoxon_holm_critical_difference_layout():
    assert_clean(plot.critical_difference(_errors(6)).figure, "double")
    plt.close("all")
