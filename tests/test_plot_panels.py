"""treelab.plot multi-panel figures (panels, facet, surface_panels, measure_grid): built at the
exported width, each panel drawing exactly what its plot function draws alone."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import treelab  # noqa: E402
from treelab import plot  # noqa: E402
from treelab.datasets import image_interpolation, noisy_function_2d  # noqa: E402
from treelab.plot.export import export_size  # noqa: E402
from treelab.plot.surface import class_colours  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def sweep(seed=0, hue=("noise-free", "noisy"), variables=("disagreement", "kappa")):
    """Measures against alpha over three repeats, a line per coordinate of ``data``."""
    rng = np.random.default_rng(seed)
    coords = {"data": list(hue), "alpha": [0.0, 0.5, 1.0], "repeat": [0, 1, 2]}
    shape = tuple(len(v) for v in coords.values())
    return xr.Dataset({v: (tuple(coords), rng.uniform(0, 1, shape)) for v in variables},
                      coords=coords)


def lines_by_label(ax):
    return {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}


# ------------------------------------------------------------------ panels


def test_panels_are_made_at_the_exported_width():
    fig, axes = plot.panels(5, width="double", aspect=1.0)
    assert fig.get_size_inches()[0] == 7.0
    assert len(axes) == 5 and len(fig.axes) == 5  # the sixth cell of the 2 x 3 grid is gone
    assert axes[0].get_subplotspec().get_gridspec().get_geometry() == (2, 3)
    assert fig.get_layout_engine() is not None  # constrained layout
    # exporting at the width it was made at changes no font
    axes[0].set_title("panel", fontsize=10)
    with export_size(fig, "double"):
        assert axes[0].title.get_fontsize() == 10
    fig, axes = plot.panels(3, width=3.5, height=2.0)
    np.testing.assert_allclose(fig.get_size_inches(), [3.5, 2.0])
    assert plot.panels(8)[1][0].get_subplotspec().get_gridspec().get_geometry() == (2, 4)


@pytest.mark.parametrize("kwargs, match", [
    ({"n": 0}, "n must"), ({"n": 2, "ncols": 0}, "ncols"), ({"n": 2, "width": "triple"},
                                                            "width"),
    ({"n": 2, "aspect": -1}, "aspect"), ({"n": 2, "height": 0}, "height"),
])
def test_panels_refuse_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot.panels(**kwargs)
    with pytest.raises(TypeError, match="sharey"):
        plot.panels(2, sharey="yes")


# ------------------------------------------------------------------ facet


def test_facet_draws_each_entry_and_merges_the_legends():
    data = sweep()
    entries = {f"{v} panel": data.rename({v: "m"}) for v in ("disagreement", "kappa")}
    fig = plot.facet(plot.measure_curve, entries, var="m", dim="alpha", hue="data",
                     sharey=True)
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["disagreement panel", "kappa panel"]
    for ax, v in zip(axes, ("disagreement", "kappa"), strict=True):
        lines = lines_by_label(ax)
        for name in ("noise-free", "noisy"):  # each panel: the means of its own variable
            np.testing.assert_allclose(lines[name].get_ydata(),
                                       data[v].sel(data=name).mean("repeat").values)
    # one legend for the figure, outside the panels, none left on them
    assert all(ax.get_legend() is None for ax in axes)
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["noise-free", "noisy"]
    # the axis labels every panel repeats are said once for the figure
    assert fig._supylabel.get_text() == "m"
    assert fig._supxlabel.get_text().startswith(r"$\alpha$")
    assert all(ax.get_xlabel() == "" for ax in axes)


def test_facet_refuses_bad_input():
    with pytest.raises(TypeError, match="draw"):
        plot.facet("spectrum", {"a": 1})
    with pytest.raises(ValueError, match="entries"):
        plot.facet(plot.margin_cdf, {})
    with pytest.raises(TypeError, match="legend"):
        plot.facet(plot.margin_cdf, {"a": 1}, legend="yes")


def test_facet_wraps_titles_to_the_panel_width():
    fig = plot.facet(lambda v, ax: ax.plot([0, 1], [v, v], label="line"),
                     {"a title much longer than a quarter of the page": 1, "b": 2, "c": 3,
                      "d": 4}, legend=False)
    assert "\n" in fig.axes[0].get_title() and fig.axes[1].get_title() == "b"


# ------------------------------------------------------------------ surface_panels


@pytest.fixture(scope="module")
def pixel_models():
    pixels = image_interpolation(12)
    models = {"RDT": treelab.VRTrees(alpha=0.0, n_estimators=3, random_state=0),
              "MMDT": treelab.BaggedMMDT(n_estimators=3, random_state=0)}
    return pixels, {k: m.fit(pixels.X, pixels.y) for k, m in models.items()}


def test_surface_panels_show_the_picture_then_each_model(pixel_models):
    pixels, models = pixel_models
    truth = image_interpolation(16)
    fig = plot.surface_panels(models, pixels, truth=truth, bounds=(0, 1, 0, 1), resolution=16,
                              points=False)
    first, *rest = fig.axes
    # the picture: each pixel in its class colour, row-major from the bottom row up
    expected = class_colours(4)[truth.y.reshape(16, 16)]
    np.testing.assert_allclose(first.images[0].get_array(), expected)
    np.testing.assert_allclose(first.images[0].get_extent(), [0, 1, 0, 1])
    for ax, (name, model) in zip(rest, models.items(), strict=True):
        assert ax.get_title() == name
        alone = plot.decision_surface(model, pixels, bounds=(0, 1, 0, 1), resolution=16,
                                      points=False)
        np.testing.assert_allclose(ax.images[0].get_array(), alone.images[0].get_array())
        assert ax.get_ylabel() == ""  # shared y: the first panel's label only
    assert first.get_ylabel() == "y" and fig.get_size_inches()[0] == 7.0


def test_surface_panels_truth_function_points_and_colorbar():
    train = noisy_function_2d(120, noise=0.1, random_state=0)
    model = treelab.RandomForest(n_estimators=3, random_state=0).fit(train.X, train.y)
    fig = plot.surface_panels({"RF": model}, train.X, train.y,
                              truth=lambda X: (X[:, 0] > X[:, 1]).astype(int),
                              bounds=(0, 1, 0, 1), resolution=4, max_points=50,
                              colorbar=True)
    truth_ax, model_ax = fig.axes[:2]
    # class 1 where x > y at the cell centres (rows are y from the bottom, columns x)
    codes = np.array([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]])
    np.testing.assert_allclose(truth_ax.images[0].get_array(), class_colours(2)[codes])
    assert len(model_ax.collections[0].get_offsets()) == 50
    assert len(fig.axes) == 3  # the colour bar
    with pytest.raises(ValueError, match="labels"):
        plot.surface_panels({"RF": model}, train, truth=lambda X: np.full(len(X), 7))
    with pytest.raises(TypeError, match="truth"):
        plot.surface_panels({"RF": model}, train, truth="picture")
    with pytest.raises(ValueError, match="models"):
        plot.surface_panels({}, train)


# ------------------------------------------------------------------ measure_grid


def test_measure_grid_a_panel_per_variable():
    data = sweep(variables=("disagreement", "double fault", "Q statistic"))
    fig = plot.measure_grid(data, x="alpha", hue="data", ylabel="mean over 3 sets")
    assert [ax.get_title() for ax in fig.axes] == ["disagreement", "double fault",
                                                   "Q statistic"]
    for ax in fig.axes:
        lines = lines_by_label(ax)
        mean = data[ax.get_title()].mean("repeat")
        sd = data[ax.get_title()].std("repeat", ddof=1)
        np.testing.assert_allclose(lines["noisy"].get_ydata(), mean.sel(data="noisy"))
        band = ax.collections[0].get_paths()[0].vertices[:, 1]  # noise-free's band
        low = mean.sel(data="noise-free") - sd.sel(data="noise-free")
        np.testing.assert_allclose(band.min(), float(low.min()))
    assert fig._supylabel.get_text() == "mean over 3 sets"


def test_measure_grid_a_panel_per_coordinate_with_the_variables_as_lines():
    terms = ["expected loss", "bias", "diversity"]
    data = sweep(variables=terms).mean("repeat")
    fig = plot.measure_grid(data, x="alpha", hue="variable", col="data",
                            ylabel="cross-entropy (nats)")
    assert [ax.get_title() for ax in fig.axes] == ["noise-free", "noisy"]
    lines = lines_by_label(fig.axes[1])
    assert list(lines) == terms
    for term in terms:
        np.testing.assert_allclose(lines[term].get_ydata(), data[term].sel(data="noisy"))
    with pytest.raises(ValueError, match="hue='variable'"):
        plot.measure_grid(data, x="alpha", hue="data", col="data")
    with pytest.raises(ValueError, match="col"):
        plot.measure_grid(data, x="alpha", hue="variable", col="nothing")
    with pytest.raises(ValueError, match="variables"):
        plot.measure_grid(data, x="alpha", hue="data", variables=["missing"])


def test_measure_curve_lines_by_any_dim():
    data = sweep()
    ax = plot.measure_curve(data, var="kappa", dim="alpha", hue="data", spread="none")
    lines = lines_by_label(ax)
    np.testing.assert_allclose(lines["noisy"].get_xdata(), [0.0, 0.5, 1.0])
    np.testing.assert_allclose(lines["noisy"].get_ydata(),
                               data.kappa.sel(data="noisy").mean("repeat"))
    with pytest.raises(ValueError, match="different"):
        plot.measure_curve(data, var="kappa", dim="alpha", hue="alpha")
    with pytest.raises(ValueError, match="ensemble"):
        plot.measure_curve(data, var="kappa", dim="alpha")


def test_measure_curve_lines_by_data_set_draw_every_data_set():
    data = sweep().rename(data="dataset")
    ax = plot.measure_curve(data, var="kappa", dim="alpha", hue="dataset", spread="none")
    lines = lines_by_label(ax)
    assert set(lines) == {str(v) for v in data.dataset.values}
    for name, line in lines.items():
        np.testing.assert_allclose(line.get_ydata(),
                                   data.kappa.sel(dataset=name).mean("repeat"))


def test_error_ratio_fit_per_group_has_one_legend_entry_per_group():
    rng = np.random.default_rng(0)
    coords = {"dataset": list("abcdef"), "ensemble": ["uniform voting", "Bayesian"]}
    phi = rng.uniform(0.05, 0.4, (6, 2))
    ds = xr.Dataset({"phi_e": (tuple(coords), phi),
                     "error_ratio": (tuple(coords), 0.3 + phi)}, coords=coords)
    ax = plot.error_ratio_vs_phi(ds, fit="hue")
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["uniform voting: OLS, $r^2$ = 1.00", "Bayesian: OLS, $r^2$ = 1.00"]
