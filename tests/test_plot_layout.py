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


# ------------------------------------------------------------------ multi-panel figures
# (each built as its notebook builds it, at the page width it is exported at)


def test_error_ratio_panels_at_page_width():
    """Notebook 02: E_r against phi_e and against gain ties, a fit per combination."""
    rng = np.random.default_rng(7)
    coords = {"dataset": ["tic-tac-toe", "monks-2", "led", "krk", "monks-1", "2-of-4"],
              "ensemble": ["uniform voting", "distribution summation", "likelihood",
                           "Bayesian"], "noise": [0.0, 0.2]}
    shape = tuple(len(v) for v in coords.values())
    phi = rng.uniform(0.03, 0.4, shape)
    means = xr.Dataset({"phi_e": (tuple(coords), phi),
                        "error_ratio": (tuple(coords), 0.2 + 2 * phi
                                        + rng.normal(0, 0.05, shape)),
                        "mean_g": (tuple(coords), rng.uniform(0.1, 0.5, shape))},
                       coords=coords)
    fig, axes = plot.panels(2, width="double")
    plot.error_ratio_vs_phi(means, fit="hue", ax=axes[0])
    plot.error_ratio_vs_gain_ties(means, fit="hue", ax=axes[1])
    assert_clean(fig, "double")


def test_surface_panels_layout():
    """Notebook 04 (the picture and four bagged ensembles, no points) and notebook 05 (a
    truth function, training points and a colour bar)."""
    pixels = image_interpolation(12)
    models = {f"bagged {name}": est.fit(pixels.X, pixels.y) for name, est in {
        "RDT": treelab.VRTrees(alpha=0.0, n_estimators=3, random_state=0),
        "ERDT": treelab.BaggedTrees(criterion="entropy", c45=False, n_estimators=3,
                                    random_state=0),
        "MMDT": treelab.BaggedMMDT(n_estimators=3, random_state=0),
        "CVDT": treelab.BaggedCVDT(n_estimators=3, random_state=0)}.items()}
    assert_clean(plot.surface_panels(models, pixels, truth=image_interpolation(40),
                                     truth_title="the picture (160 x 160)",
                                     bounds=(0, 1, 0, 1), resolution=40, points=False),
                 "double")
    from treelab.datasets import noisy_function_2d, noisy_function_label

    train = noisy_function_2d(300, noise=0.1, random_state=0)
    forests = {"Random forest": treelab.RandomForest(n_estimators=3),
               "Rotation forest (random axes)": treelab.RotationForest(n_estimators=3),
               "Rotation forest (PCA)": treelab.RotationForest(n_estimators=3,
                                                               rotation="pca")}
    forests = {k: m.set_params(random_state=0).fit(train.X, train.y)
               for k, m in forests.items()}
    assert_clean(plot.surface_panels(forests, train, truth=noisy_function_label,
                                     truth_title="noise-free concept", bounds=(0, 1, 0, 1),
                                     resolution=30, colorbar=True), "double")


@pytest.fixture(scope="module")
def workbench_outputs():
    """Member labels of VR-Trees at three alphas on three versions of concept A."""
    from treelab.datasets import concepts

    out = {}
    for name, kwargs in {"noise-free": {}, "20% class noise": {"noise": 0.2},
                         "8 irrelevant attributes": {"n_irrelevant": 8}}.items():
        train = concepts("A", 150, random_state=0, **kwargs)
        test = concepts("A", 200, random_state=1, **kwargs)
        labels = [treelab.VRTrees(alpha=a, n_estimators=8, random_state=0)
                  .fit(train.X, train.y).member_predict(test.X) for a in (0.0, 0.5, 1.0)]
        out[name] = (xr.DataArray(np.array(labels), dims=("alpha", "tree", "sample"),
                                  coords={"alpha": [0.0, 0.5, 1.0]}), test.y)
    return out


def test_kappa_error_and_margin_panels_layout(workbench_outputs):
    """Notebook 06: a kappa-error diagram and a margin distribution per data version."""
    from treelab.analysis import margins, pairwise_diversity

    pairwise = {k: pairwise_diversity(lab, y) for k, (lab, y) in workbench_outputs.items()}
    assert_clean(plot.facet(plot.kappa_error_diagram, pairwise, sharey=True,
                            palette="viridis"), "double")
    assert_clean(plot.facet(plot.margin_cdf, {k: margins(lab, y) for k, (lab, y)
                                              in workbench_outputs.items()}, sharey=True),
                 "double")


def test_measure_grid_layouts():
    """Notebook 06: eight diversity measures against alpha (a panel each), and the
    bias-variance-diversity terms (a panel per data version)."""
    rng = np.random.default_rng(8)
    data = ["noise-free", "20% class noise", "8 irrelevant attributes"]
    coords = {"data": data, "alpha": [0.0, 0.25, 0.5, 0.75, 1.0], "repeat": [0, 1, 2]}
    shape = tuple(len(v) for v in coords.values())
    measures = ["disagreement", "double fault", "Q statistic", "kappa", "KW variance",
                "entropy", "difficulty", "generalized diversity"]
    kuncheva = xr.Dataset({m: (tuple(coords), rng.uniform(0, 1, shape)) for m in measures},
                          coords=coords)
    assert_clean(plot.measure_grid(kuncheva, x="alpha", hue="data",
                                   ylabel="mean over the 3 ensembles"), "double")
    terms = ["expected loss", "noise", "average bias", "average variance", "diversity"]
    decomposition = kuncheva.mean("repeat").rename(dict(zip(measures, terms + measures[5:],
                                                             strict=True)))[terms]
    assert_clean(plot.measure_grid(decomposition, x="alpha", hue="variable", col="data",
                                   ylabel="cross-entropy (nats)"), "double")


def test_irrelevant_attribute_panels_layout():
    """Notebook 05: accuracy against irrelevant attributes, a panel per data set."""
    rng = np.random.default_rng(9)
    coords = {"dataset": ["noisy 2-D", "wine", "breast cancer"],
              "ensemble": ["Random forest", "Rotation (random)", "Rotation (PCA)"],
              "n_irrelevant": [0, 4, 16, 64], "repeat": [0], "fold": list(range(5))}
    err = rng.uniform(0.0, 0.4, tuple(len(v) for v in coords.values()))
    result = xr.Dataset({"ensemble_error": (tuple(coords), err)}, coords=coords)
    fig = plot.facet(plot.irrelevant_attributes,
                     {name: result.sel(dataset=name) for name in coords["dataset"]},
                     sharey=True)
    assert_clean(fig, "double")


def test_a_row_of_panels_in_one_column_gets_rows_it_can_be_read_in(result, tmp_path):
    # the README's export of the three-panel spectrum grid at width="single" gave a figure
    # 3.5 x 0.70 in: squashed panels, overprinted tick labels
    from matplotlib.image import imread

    from treelab.plot.export import MIN_PANEL_IN

    grid = plot.spectrum(result, col="dataset")
    panels = list(grid.axes_dict.values())
    specs = [ax.get_subplotspec() for ax in panels]
    size = grid.figure.get_size_inches().copy()
    with export_size(grid, "single") as figure:
        figure.canvas.draw()
        assert layout_problems(figure) == []
        boxes = [ax.get_window_extent() for ax in panels]
        rows = sorted({round(b.y0) for b in boxes})
        assert len(rows) == 3  # 3.5 in less the legend holds one panel a row
        for box in boxes:
            assert box.width / figure.dpi >= 0.7 * MIN_PANEL_IN  # the data areas
            assert box.height / figure.dpi >= 0.6
        assert figure.get_size_inches()[1] >= 2.0
    # the grid is given back as it was: one row, its size, its labels
    assert [ax.get_subplotspec() for ax in panels] == specs
    assert len({round(ax.get_position().y0, 6) for ax in panels}) == 1
    assert [ax.get_ylabel() != "" for ax in panels] == [True, False, False]
    np.testing.assert_allclose(grid.figure.get_size_inches(), size)
    (png,) = plot.savefig(grid, tmp_path / "spectrum.png", width="single", dpi=100)
    height, width = imread(png).shape[:2]
    assert width == 350 and height >= 200  # 3.5 in wide, at least 2 in high
    # a grid that fits keeps its row: at the page width, three panels side by side
    with export_size(grid, "double") as figure:
        figure.canvas.draw()
        assert len({round(ax.get_window_extent().y0) for ax in panels}) == 1
