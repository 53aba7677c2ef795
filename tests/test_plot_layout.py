"""Every figure function, at the size it is exported at, has a clean layout.

Each test builds a figure as a user would, gives it its exported size with
:func:`treelab.plot.export.export_size` (what :func:`treelab.plot.savefig` writes), and asks
:func:`layout_checks.layout_problems` for overlapping text, legends over data, cut labels
and cut markers. The first test proves the checker can fail.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from layout_checks import layout_problems  # noqa: E402
from test_plot import demsar_table, fake_result  # noqa: E402

import treelab  # noqa: E402
from treelab import plot, stats  # noqa: E402
from treelab.analysis import bias_variance, reliability  # noqa: E402
from treelab.datasets import gaussian_mixture, image_interpolation  # noqa: E402
from treelab.plot.export import export_size  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def result():
    return fake_result(seed=2)


def assert_clean(fig, width):
    with export_size(fig, width) as figure:
        problems = layout_problems(figure)
    assert problems == [], "\n".join(problems)


# ------------------------------------------------------------------ the checker itself


def test_checker_catches_a_broken_figure():
    fig, (a, b) = plt.subplots(1, 2, figsize=(4, 2))
    x = np.linspace(0, 1, 50)
    a.plot(x, x, "o", label="points")
    a.legend(loc="center")  # over the data
    a.set_title("a very long title that runs into its neighbour's title")
    b.set_title("the neighbour's own long title")
    a.set_xlabel("x")
    a.set_ylabel("y")
    b.plot([0, 1], [0, 1], "o", markersize=12)  # markers at the corners, cut in half
    b.set(xlim=(0, 1), ylim=(0, 1))
    problems = "\n".join(layout_problems(fig))
    assert "overlaps" in problems
    assert "covers" in problems
    assert "cut at the axes' edge" in problems
    assert "no x label" in problems  # b has ticks but no labels


def test_checker_passes_a_clean_figure():
    fig, ax = plt.subplots(figsize=(3.5, 2.6), layout="constrained")
    ax.plot([0, 1], [0.2, 0.4], label="line")
    ax.set(xlabel="x", ylabel="y", title="clean")
    fig.legend(loc="outside right upper")
    assert layout_problems(fig) == []


# ------------------------------------------------------------------ figure functions


def test_spectrum_layout(result):
    assert_clean(plot.spectrum(result, dataset="wine").figure, "single")


def test_spectrum_facets_layout(result):
    assert_clean(plot.spectrum(result, col="dataset"), "double")


def test_strength_correlation_layout(result):
    assert_clean(plot.strength_correlation(result, dataset="waveform").figure, "single")


def test_error_ratio_layouts(result):
    assert_clean(plot.error_ratio_vs_phi(result).figure, "single")
    assert_clean(plot.error_ratio_vs_gain_ties(result, fit="hue").figure, "single")


def test_reliability_layout():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(3), 400)
    y = np.array([rng.choice(3, p=row) for row in p])
    assert_clean(plot.reliability(reliability(p, y, bins=10)).figure, "single")


def test_three_reliability_panels_at_double_width():
    rng = np.random.default_rng(1)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.8), layout="constrained")
    for i, ax in enumerate(axes):
        p = rng.dirichlet(np.ones(4) * (i + 1), 300)
        y = np.array([rng.choice(4, p=row) for row in p])
        plot.reliability(reliability(p, y, bins=8), ax=ax)
        ax.set_title(f"method {i} with a longer title")
    assert_clean(fig, "double")


@pytest.mark.parametrize("n", [3, 4, 6])
def test_bias_variance_layout(n):
    rng = np.random.default_rng(4)
    target = rng.dirichlet(np.ones(3), 30)
    names = ["unpruned tree", "pruned tree", "RD", "RF+", "BT+", "DST"][:n]
    parts = [bias_variance(rng.dirichlet(np.ones(3) * s, (8, 30)), target)[["bias", "variance"]]
             for s in range(1, n + 1)]
    ds = xr.concat(parts, dim="ensemble").assign_coords(ensemble=names)
    assert_clean(plot.bias_variance(ds).figure, "single")


def test_critical_difference_layout():
    res = stats.nemenyi(demsar_table(), greater_is_better=True, significance=0.10)
    assert_clean(plot.critical_difference(res).figure, "double")


def test_decision_surface_layout():
    data = gaussian_mixture(2000, random_state=0)
    model = treelab.VRTrees(n_estimators=3, random_state=0).fit(data.X, data.y)
    assert_clean(plot.decision_surface(model, data, resolution=20, colorbar=True).figure,
                 "single")
    img = image_interpolation(10)
    multi = treelab.VRTrees(n_estimators=3, alpha=1.0, random_state=0).fit(img.X, img.y)
    assert_clean(plot.decision_surface(multi, img, resolution=20).figure, "single")


def irrelevant_result():
    rng = np.random.default_rng(5)
    coords = {"dataset": ["d"], "ensemble": ["bagged RDT", "bagged ERDT", "bagged MMDT",
                                             "bagged CVDT"],
              "alpha": [np.nan], "n_irrelevant": [0, 4, 16, 64], "repeat": [0, 1, 2],
              "fold": [0, 1]}
    err = rng.uniform(0.0, 0.3, tuple(len(v) for v in coords.values()))
    err[:, 0, :, 0] = 0.0  # perfect accuracy at 0 attributes: markers at exactly 1
    return xr.Dataset({"ensemble_error": (tuple(coords), err)}, coords=coords)


def test_irrelevant_attributes_layout():
    assert_clean(plot.irrelevant_attributes(irrelevant_result()).figure, "single")


def test_measure_curve_layout():
    rng = np.random.default_rng(6)
    coords = {"ensemble": ["unpruned tree", "RD", "RF+"], "alpha": [np.nan],
              "train_size": [0.05, 0.1, 0.25, 0.5, 1.0], "repeat": [0, 1, 2], "fold": [0]}
    mse = rng.uniform(0.01, 0.2, tuple(len(v) for v in coords.values()))
    ds = xr.Dataset({"exact_mse": (tuple(coords), mse)}, coords=coords)
    assert_clean(plot.measure_curve(ds, var="exact_mse", dim="train_size",
                                    xscale="log").figure, "single")


# ------------------------------------------------------------------ what the layout rests on


def test_one_colour_per_ensemble_whatever_else_is_drawn(result):
    from treelab.plot._common import palette_for

    alone = palette_for(["bagged CVDT"])
    with_others = palette_for(["bagged RDT", "bagged ERDT", "bagged MMDT", "bagged CVDT"])
    assert alone["bagged CVDT"] == with_others["bagged CVDT"]
    assert len(set(with_others.values())) == 4
    # the spectrum and the strength-correlation figure give Bagging the same colour
    spec = {ln.get_label(): ln.get_color() for ln in plot.spectrum(
        result, dataset="wine").get_lines()}
    sc = {ln.get_label(): ln.get_color() for ln in plot.strength_correlation(
        result, dataset="wine", ensembles=["Bag."]).get_lines()}
    assert matplotlib.colors.same_color(spec["Bag."], sc["Bag."])
    # unknown names still get distinct colours, none taken by a known ensemble drawn with them
    mixed = palette_for(["Aggregating", "mine", "yours"])
    assert len(set(mixed.values())) == 3


def test_sd_bands_stop_at_the_valid_range():
    coords = {"ensemble": ["A"], "alpha": [0.0, 1.0], "repeat": [0, 1, 2]}
    err = np.array([[[0.0, 0.0, 0.09], [0.5, 0.6, 0.7]]])  # mean 0.03, sd 0.052 at alpha 0
    ds = xr.Dataset({"ensemble_error": (tuple(coords), err)}, coords=coords)
    ax = plot.spectrum(ds)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == 0.0  # mean - sd = -0.022 is clipped at 0
    ds.ensemble_error.attrs["valid_range"] = [0.01, 1.0]
    band = plot.spectrum(ds).collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(0.01)  # the attr wins over the known range
    acc = plot.irrelevant_attributes(irrelevant_result())
    for band in acc.collections:
        assert band.get_paths()[0].vertices[:, 1].max() <= 1.0  # accuracy stops at 1


def test_log_axes_show_the_swept_values():
    ax = plot.irrelevant_attributes(irrelevant_result())
    ax.figure.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "4", "16", "64"]


def test_export_scales_fonts_of_a_wide_figure_and_restores_them():
    from treelab.plot.export import MIN_FONT_PT

    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.5), layout="constrained")
    for ax in axes:
        ax.set_title("panel", fontsize=12)
    with export_size(fig, "double") as figure:
        assert figure.get_size_inches()[0] == 7.0
        assert axes[0].title.get_fontsize() == pytest.approx(max(MIN_FONT_PT, 12 * 7 / 10.5))
    assert axes[0].title.get_fontsize() == 12
    np.testing.assert_allclose(fig.get_size_inches(), [10.5, 3.5])


def test_decision_surface_leaves_the_surface_visible():
    data = gaussian_mixture(2000, random_state=0)
    model = treelab.VRTrees(n_estimators=3, random_state=0).fit(data.X, data.y)
    ax = plot.decision_surface(model, data.X, data.y, resolution=12)
    assert len(ax.collections[0].get_offsets()) == 500  # an evenly spaced subset


def test_error_ratio_with_long_fit_labels_keeps_its_panel(result):
    named = result.assign_coords(ensemble=["uniform voting", "distribution summation", "RF"])
    ax = plot.error_ratio_vs_phi(named, fit="hue")
    assert_clean(ax.figure, "single")
    with export_size(ax.figure, "single") as figure:
        figure.canvas.draw()
        legend = ax.get_legend().get_window_extent()
        assert legend.y1 <= ax.get_window_extent().y0  # under the panel, not beside it
        assert ax.get_window_extent().width > 0.5 * figure.bbox.width
