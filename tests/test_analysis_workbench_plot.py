"""Kappa-error diagram and margin CDF figures carry exactly the measures' values."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

from treelab import plot  # noqa: E402
from treelab.analysis import margins, pairwise_diversity  # noqa: E402


def _labels():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 50)
    L = np.where(rng.random((2, 5, 50)) < [[[0.9]], [[0.6]]], y, rng.integers(0, 3, (2, 5, 50)))
    return xr.DataArray(L, dims=("alpha", "tree", "sample"), coords={"alpha": [1.0, 0.0]}), y


def test_kappa_error_points_and_diagram():
    L, y = _labels()
    pw = pairwise_diversity(L, y, n_classes=3)
    pts = plot.kappa_error_points(pw)
    assert len(pts) == 2 * 10  # 10 pairs of 5 members per alpha
    one = pts[pts.ensemble == "alpha=0.0"]
    ref = pairwise_diversity(L.values[1], y, n_classes=3)
    np.testing.assert_allclose(one.kappa, ref.kappa.values[one.tree, one.tree_other])
    np.testing.assert_allclose(one.pair_error,
                               ref.pair_error.values[one.tree, one.tree_other])
    ax = plot.kappa_error_diagram({"A": pw.sel(alpha=1.0), "B": pw.sel(alpha=0.0)})
    offsets = np.concatenate([c.get_offsets() for c in ax.collections])
    assert offsets.shape == (20, 2)
    np.testing.assert_allclose(np.sort(offsets[:, 0]), np.sort(pts.kappa.values))
    plt.close("all")
    with pytest.raises(ValueError, match="pairwise_diversity"):
        plot.kappa_error_diagram({"A": xr.Dataset()})


def test_margin_cdf_curves():
    L, y = _labels()
    m = margins(L, y, n_classes=3)
    ax = plot.margin_cdf(m)
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
    assert len(lines) == 2
    # the step curve of alpha=1.0 reaches, at theta = 0, the share of rows with margin <= 0
    x, yy = lines[0].get_xdata(), lines[0].get_ydata()
    at0 = yy[np.searchsorted(x, 0.0, side="right") - 1]
    assert at0 == pytest.approx(float((m.sel(alpha=1.0) <= 0).mean()))
    plt.close("all")
    with pytest.raises(TypeError, match="margins"):
        plot.margin_cdf(np.zeros(3))
