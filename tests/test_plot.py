"""treelab.plot: the artists drawn carry exactly the Dataset's values."""

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402
import xarray as xr  # noqa: E402

import treelab  # noqa: E402
from treelab import plot, stats  # noqa: E402
from treelab.analysis import bias_variance, reliability  # noqa: E402
from treelab.datasets import gaussian_mixture, image_interpolation  # noqa: E402
from treelab.plot.export import export_size  # noqa: E402

ALPHAS = [0.0, 0.25, 0.5, 0.75, 1.0]


def fake_result(seed=0, datasets=("waveform", "wine", "led")):
    """A Dataset laid out like treelab.experiment.run's: RF has no alpha (alpha = NaN)."""
    rng = np.random.default_rng(seed)
    coords = {"dataset": list(datasets), "ensemble": ["Agg.", "Bag.", "RF"],
              "alpha": ALPHAS + [np.nan], "repeat": [0, 1], "fold": [0, 1, 2]}
    shape = tuple(len(v) for v in coords.values())
    dims = tuple(coords)
    err = rng.uniform(0.05, 0.35, shape)
    strength = rng.uniform(0.3, 0.8, shape)
    corr = rng.uniform(0.05, 0.5, shape)
    phi = rng.uniform(0.01, 0.3, shape)
    ratio = 0.4 + phi + rng.normal(0, 0.03, shape)
    ties = rng.uniform(0, 2, shape)
    for arr in (err, strength, corr, phi, ratio, ties):
        arr[:, :2, -1] = np.nan
        arr[:, 2, :-1] = np.nan
    return xr.Dataset(
        {"ensemble_error": (dims, err, {"long_name": "ensemble error rate E_e"}),
         "strength": (dims, strength), "correlation": (dims, corr), "phi_e": (dims, phi),
         "error_ratio": (dims, ratio), "mean_g": (dims, ties)},
        coords=coords,
    )


@pytest.fixture(scope="module")
def result():
    return fake_result()


def labelled_lines(ax):
    return {line.get_label(): line for line in ax.get_lines()
            if not line.get_label().startswith("_")}


# ------------------------------------------------------------------ spectrum


def test_spectrum_draws_fold_means_per_construction(result):
    ax = plot.spectrum(result, dataset="wine")
    lines = labelled_lines(ax)
    assert set(lines) == {"Agg.", "Bag.", "RF"}
    mean = result.ensemble_error.sel(dataset="wine").mean(["repeat", "fold"])
    for name in ("Agg.", "Bag."):
        np.testing.assert_allclose(lines[name].get_xdata(), ALPHAS)
        np.testing.assert_allclose(lines[name].get_ydata(),
                                   mean.sel(ensemble=name).values[:-1])
    # RF has no alpha: a horizontal reference line at its mean
    np.testing.assert_allclose(lines["RF"].get_ydata(), [mean.sel(ensemble="RF")[-1]] * 2)
    assert len(ax.collections) == 2  # one +-sd band per swept ensemble
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    sd = result.ensemble_error.sel(dataset="wine", ensemble="Agg.").std(["repeat", "fold"],
                                                                       ddof=1)
    m = mean.sel(ensemble="Agg.")
    np.testing.assert_allclose(band.max(), float((m + sd).max()), rtol=1e-12)
    assert "alpha" in ax.get_xlabel() and ax.get_ylabel() == "error rate"


def test_spectrum_facets_by_dataset_and_checks_input(result):
    grid = plot.spectrum(result, col="dataset", spread="none", ensembles=["Agg."])
    assert isinstance(grid, sns.FacetGrid)
    assert [a.get_title() for a in grid.axes.flat] == ["waveform", "wine", "led"]
    for name, ax in grid.axes_dict.items():
        (line,) = labelled_lines(ax).values()
        expected = result.ensemble_error.sel(dataset=name, ensemble="Agg.").mean(
            ["repeat", "fold"]).values[:-1]
        np.testing.assert_allclose(line.get_ydata(), expected)
        assert not ax.collections
    with pytest.raises(ValueError, match="dataset"):
        plot.spectrum(result)  # three data sets, none chosen
    with pytest.raises(ValueError, match="spread"):
        plot.spectrum(result, dataset="wine", spread="iqr")
    with pytest.raises(ValueError, match="ensembles"):
        plot.spectrum(result, dataset="wine", ensembles=["XGB"])
    with pytest.raises(TypeError, match="result"):
        plot.spectrum(result.ensemble_error)
    with pytest.raises(ValueError, match="ax"):
        plot.spectrum(result, col="dataset", ax=plt.gca())


def test_spectrum_marks_alpha_and_draws_on_given_axes(result):
    fig, ax = plt.subplots()
    out = plot.spectrum(result, dataset="led", mark_alpha=0.3, ax=ax)
    assert out is ax
    vertical = [ln for ln in ax.get_lines() if np.allclose(ln.get_xdata(), 0.3)]
    assert len(vertical) == 1


# ------------------------------------------------------------------ strength-correlation


def test_strength_correlation_trajectories_and_bound(result):
    ax = plot.strength_correlation(result, dataset="waveform", colorbar=False,
                                   levels=[0.05, 0.1, 0.2, 0.4, 0.8])
    lines = labelled_lines(ax)
    assert set(lines) == {"Agg.", "Bag."}
    sel = result.sel(dataset="waveform").mean(["repeat", "fold"])
    for name, line in lines.items():
        np.testing.assert_allclose(line.get_xdata(), sel.strength.sel(ensemble=name)[:-1])
        np.testing.assert_allclose(line.get_ydata(), sel.correlation.sel(ensemble=name)[:-1])
    by_gid = {c.get_gid(): c for c in ax.collections if c.get_gid()}
    assert set(by_gid) == {"alpha:Agg.", "alpha:Bag.", "mark:Agg.", "mark:Bag.", "fixed:RF"}
    # RF (no alpha) is a white diamond: no colour of the alpha scale
    np.testing.assert_allclose(by_gid["fixed:RF"].get_facecolor()[0], [1, 1, 1, 1])
    # the legend explains the rings and the grey contour lines
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "$\\alpha$ = 0.5" in legend and any("Breiman bound" in t for t in legend)
    for name in ("Agg.", "Bag."):
        # points coloured by alpha, at the trajectory's vertices
        points = by_gid[f"alpha:{name}"]
        np.testing.assert_allclose(points.get_array(), ALPHAS)
        np.testing.assert_allclose(points.get_offsets()[:, 0], lines[name].get_xdata())
        # the ring at alpha = 0.5
        np.testing.assert_allclose(
            by_gid[f"mark:{name}"].get_offsets(),
            [[sel.strength.sel(ensemble=name, alpha=0.5), sel.correlation.sel(ensemble=name,
                                                                              alpha=0.5)]])
    # the contour lines are Breiman's bound at the requested levels
    contour = next(c for c in ax.collections if hasattr(c, "levels"))
    np.testing.assert_allclose(contour.levels, [0.05, 0.1, 0.2, 0.4, 0.8])
    assert plot.breiman_bound(0.5, 0.2) == pytest.approx(0.2 * 0.75 / 0.25)
    assert np.isnan(plot.breiman_bound(0.0, 0.2))
    assert ax.get_xlabel().startswith("strength") and ax.get_ylabel().startswith("correlation")


def test_strength_correlation_colorbar_auto_levels_and_checks(result):
    ax = plot.strength_correlation(result, dataset="wine")
    assert len(ax.figure.axes) == 2  # the alpha colour bar
    # default levels: round values spanning the bound at the drawn points
    sel = result.sel(dataset="wine").mean(["repeat", "fold"])
    bound = plot.breiman_bound(sel.strength.values, sel.correlation.values)
    levels = next(c for c in ax.collections if hasattr(c, "levels")).levels
    assert len(levels) >= 3
    assert levels.min() <= 1.5 * np.nanmin(bound) and levels.max() >= np.nanmax(bound) / 1.5
    assert np.allclose(levels, [float(f"{v:.0e}") for v in levels])  # one significant digit
    with pytest.raises(ValueError, match="levels"):
        plot.strength_correlation(result, dataset="wine", levels=[0.5, 0.1])
    with pytest.raises(ValueError, match="strength"):
        plot.strength_correlation(result[["ensemble_error"]], dataset="wine")


# ------------------------------------------------------------------ error ratio figures


def test_error_ratio_vs_phi_points_and_ols_line(result):
    ax = plot.error_ratio_vs_phi(result)
    means = result.mean(["repeat", "fold"])
    n_points = 0
    for coll in ax.collections:
        n_points += len(coll.get_offsets())
    finite = np.isfinite(means.phi_e.values) & np.isfinite(means.error_ratio.values)
    assert n_points == int(finite.sum())
    rf = next(c for c in ax.collections if c.get_label() == "RF")
    np.testing.assert_allclose(np.sort(rf.get_offsets()[:, 0]),
                               np.sort(means.phi_e.sel(ensemble="RF").values[:, -1]))
    fit = stats.fit_error_ratio(means.phi_e.values[finite], means.error_ratio.values[finite])
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("OLS")]
    x, y = line.get_xdata(), line.get_ydata()
    np.testing.assert_allclose(y, float(fit.intercept) + float(fit.slope) * x)
    assert f"{float(fit.r_squared):.2f}" in line.get_label()
    assert "phi" in ax.get_xlabel() and "E_r" in ax.get_ylabel()


def test_fit_equation_names_the_fitted_variable_and_the_slope_sign(result):
    """The corner equation is the OLS line of the points drawn: "$E_r$" only when y is the
    error ratio (it read "$E_r$ = ..." over a fit of the ensemble error), and a negative slope
    is written "- 0.xx x" (it read "+ -0.xx x")."""
    def equation(ax):
        (text,) = [t for t in ax.texts if ", n = " in t.get_text()]
        return text.get_text()

    means = result.mean(["repeat", "fold"])
    finite = np.isfinite(means.phi_e.values) & np.isfinite(means.ensemble_error.values)
    fit = stats.fit_error_ratio(means.phi_e.values[finite], means.ensemble_error.values[finite])
    a, b = float(fit.intercept), float(fit.slope)
    shown = equation(plot.error_ratio_vs_phi(result, y="ensemble_error"))
    assert shown == (f"ensemble_error = {a:.2f} {'-' if b < 0 else '+'} {abs(b):.2f} x, "
                     f"n = {int(finite.sum())}")
    plt.close("all")
    falling = result.assign(error_ratio=1.0 - result.phi_e)  # slope -1 exactly
    assert equation(plot.error_ratio_vs_phi(falling)).startswith("$E_r$ = 1.00 - 1.00 x")
    plt.close("all")


def test_error_ratio_vs_gain_ties_per_hue_fits(result):
    ax = plot.error_ratio_vs_gain_ties(result, fit="hue")
    fits = [ln for ln in ax.get_lines() if "OLS" in ln.get_label()]
    assert len(fits) == 3
    assert "gain ties" in ax.get_xlabel()
    with pytest.raises(ValueError, match="fit"):
        plot.error_ratio_vs_gain_ties(result, fit="yes")


# ------------------------------------------------------------------ probability figures


def test_reliability_breaks_lines_at_empty_bins():
    rng = np.random.default_rng(3)
    proba = np.column_stack([np.full(200, 0.8), np.full(200, 0.2)])
    proba[:50] = [0.1, 0.9]
    y = rng.integers(0, 2, 200)
    rel = reliability(proba, y, bins=5)
    ax = plot.reliability(rel)
    lines = labelled_lines(ax)
    assert set(lines) == {"class 0", "class 1"}
    for c in (0, 1):
        x = np.asarray(lines[f"class {c}"].get_xdata(), dtype=float)
        np.testing.assert_allclose(x, rel.mean_predicted.sel({"class": c}).values)
        assert np.isnan(x).sum() == 3  # empty bins stay NaN: the line breaks there
    assert ax.get_xlabel() == "mean predicted probability"


def test_bias_variance_stacks_bars():
    rng = np.random.default_rng(4)
    target = rng.dirichlet(np.ones(3), 30)
    parts = [bias_variance(rng.dirichlet(np.ones(3) * s, (8, 30)), target) for s in (1, 5)]
    ds = xr.concat([p[["bias", "variance"]] for p in parts], dim="ensemble")
    ds = ds.assign_coords(ensemble=["RDT", "RF"])
    ax = plot.bias_variance(ds)
    bars = ax.patches
    assert len(bars) == 4
    heights = np.array([b.get_height() for b in bars])
    np.testing.assert_allclose(heights[:2], ds.bias.values)
    np.testing.assert_allclose(heights[2:], ds.variance.values)
    np.testing.assert_allclose([b.get_y() for b in bars[2:]], ds.bias.values)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["RDT", "RF"]


# ------------------------------------------------------------------ critical difference


def demsar_table():
    from test_stats import DEMSAR_AUC, METHODS

    return xr.DataArray(DEMSAR_AUC, dims=("dataset", "ensemble"), coords={"ensemble": METHODS})


def test_critical_difference_nemenyi_cliques():
    res = stats.nemenyi(demsar_table(), greater_is_better=True, significance=0.10)
    ax = plot.critical_difference(res)
    texts = {t.get_gid(): t for t in ax.texts if t.get_gid()}
    assert set(texts) == {f"method:{m}" for m in res.ensemble.values}
    # each method hangs from its average rank
    hangs = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 3]
    np.testing.assert_allclose(sorted(ln.get_xdata()[0] for ln in hangs),
                               np.sort(res.average_rank.values))
    bars = [ln for ln in ax.get_lines() if ln.get_gid() == "clique"]
    assert len(bars) == 2  # {m+cf, m, cf} and {cf, C4.5} at alpha = 0.10 (Demsar Fig. 1)
    assert any(f"{float(res.critical_difference):.2f}" in t.get_text() for t in ax.texts)
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # best (rank 1) on the right


def test_critical_difference_bonferroni_dunn_and_checks():
    res = stats.bonferroni_dunn(demsar_table(), control="C4.5", greater_is_better=True)
    ax = plot.critical_difference(res, best_on_right=False)
    (interval,) = [ln for ln in ax.get_lines() if ln.get_gid() == "control-interval"]
    rc, cd = float(res.average_rank.sel(ensemble="C4.5")), float(res.critical_difference)
    np.testing.assert_allclose(interval.get_xdata(), [rc - cd, min(4.0, rc + cd)])
    assert plot.comparison.cliques(np.array([1.0, 1.5, 3.0, 3.2]), 1.0) == [(0, 1), (2, 3)]
    with pytest.raises(ValueError, match="nemenyi"):
        plot.critical_difference(stats.friedman(demsar_table()))


# ------------------------------------------------------------------ decision surface


@pytest.fixture(scope="module")
def mixture_model():
    data = gaussian_mixture(150, random_state=0)
    return treelab.VRTrees(n_estimators=8, alpha=0.5, random_state=0).fit(data.X, data.y), data


def test_decision_surface_image_is_predicted_probability(mixture_model):
    model, data = mixture_model
    ax = plot.decision_surface(model, data, resolution=30, colorbar=True)
    (image,) = ax.images
    xs, ys, proba = plot.surface_grid(model, ax.get_xlim() + ax.get_ylim(), 30)
    np.testing.assert_allclose(np.asarray(image.get_array()), proba[:, :, 1])
    (points,) = ax.collections
    np.testing.assert_allclose(points.get_offsets(), data.X)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x1", "x2")
    # grid point (i, j) is (xs[j], ys[i])
    np.testing.assert_allclose(model.predict_proba([[xs[4], ys[7]]])[0], proba[7, 4])


def test_decision_surface_multiclass_mixes_class_colours():
    data = image_interpolation(12)
    model = treelab.VRTrees(n_estimators=5, alpha=1.0, random_state=0).fit(data.X, data.y)
    ax = plot.decision_surface(model, data, resolution=24, bounds=(0, 1, 0, 1), points=False)
    rgb = np.asarray(ax.images[0].get_array())
    _, _, proba = plot.surface_grid(model, (0, 1, 0, 1), 24)
    expected = np.clip(proba @ plot.surface.class_colours(4), 0, 1)
    np.testing.assert_allclose(rgb, expected)
    with pytest.raises(ValueError, match="2 features"):
        plot.decision_surface(model, (np.zeros((4, 3)), np.zeros(4)))
    with pytest.raises(TypeError, match="fit"):
        plot.decision_surface(treelab.VRTrees(), data)


# ------------------------------------------------------------------ irrelevant attributes


def test_irrelevant_attributes_log_axis_and_accuracy():
    rng = np.random.default_rng(5)
    coords = {"dataset": ["d"], "ensemble": ["RDT", "ERDT"], "alpha": [np.nan],
              "n_irrelevant": [0, 4, 16, 64], "repeat": [0, 1, 2, 3, 4], "fold": [0, 1]}
    err = rng.uniform(0.1, 0.4, tuple(len(v) for v in coords.values()))
    ds = xr.Dataset({"ensemble_error": (tuple(coords), err)}, coords=coords)
    ax = plot.irrelevant_attributes(ds)
    lines = labelled_lines(ax)
    assert set(lines) == {"RDT", "ERDT"}
    acc = 1 - ds.ensemble_error.isel(dataset=0, alpha=0).mean(["repeat", "fold"])
    for name, line in lines.items():
        np.testing.assert_allclose(line.get_xdata(), [0, 4, 16, 64])
        np.testing.assert_allclose(line.get_ydata(), acc.sel(ensemble=name).values)
    assert ax.get_xscale() == "symlog" and ax.get_ylabel() == "accuracy"
    ax2 = plot.irrelevant_attributes(ds.isel(n_irrelevant=slice(1, None)), accuracy=False)
    assert ax2.get_xscale() == "log"
    with pytest.raises(ValueError, match="n_irrelevant"):
        plot.irrelevant_attributes(ds.isel(n_irrelevant=0))


def test_measure_curve_against_training_size():
    rng = np.random.default_rng(6)
    coords = {"ensemble": ["RD", "RF+"], "alpha": [np.nan], "train_size": [0.1, 0.5, 1.0],
              "repeat": [0, 1, 2], "fold": [0]}
    mse = rng.uniform(0.01, 0.2, tuple(len(v) for v in coords.values()))
    ds = xr.Dataset({"exact_mse": (tuple(coords), mse)}, coords=coords)
    ax = plot.measure_curve(ds, var="exact_mse", dim="train_size", spread="range")
    lines = labelled_lines(ax)
    expected = ds.exact_mse.isel(alpha=0).mean(["repeat", "fold"])
    for name in ("RD", "RF+"):
        np.testing.assert_allclose(lines[name].get_xdata(), [0.1, 0.5, 1.0])
        np.testing.assert_allclose(lines[name].get_ydata(), expected.sel(ensemble=name))
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    np.testing.assert_allclose(band.max(), float(ds.exact_mse.sel(ensemble="RD").max()))
    assert ax.get_xscale() == "linear" and ax.get_xlabel().startswith("training-set size")
    with pytest.raises(ValueError, match="transform"):
        plot.measure_curve(ds, var="exact_mse", dim="train_size", transform="log")


def test_band_is_named_in_the_legend_title(result, tmp_path):
    """Every band drawn around a mean says what it is, in the legend's title: the figures
    showed a shaded band with no word of what it spans (the demo's spectrum.png among them).
    Only the resampling dims with more than one value are named, and no band, no title."""
    def title(ax):
        return ax.get_legend().get_title().get_text()

    sd = "band: \u00b11 sd over\nrepeats and folds"  # repeat 2 x fold 3 in the fixture
    ax = plot.spectrum(result, dataset="wine")
    assert title(ax) == sd
    # the export moves the legend under the axes: the title goes with it, on one line
    seen, save = [], ax.figure.savefig

    def spy(*args, **kwargs):
        seen.append(title(ax))
        return save(*args, **kwargs)

    ax.figure.savefig = spy
    plot.savefig(ax, tmp_path / "one.png", width="single", dpi=50)
    assert seen == [sd.replace("\n", " ")]
    assert title(plot.spectrum(result, dataset="wine", spread="range")).startswith(
        "band: min-max over")
    assert title(plot.spectrum(result, dataset="wine", spread="none")) == ""
    grid = plot.spectrum(result, col="dataset")
    assert grid.legend.get_title().get_text() == sd
    one_fold = result.isel(repeat=[0], fold=[0])  # one value per point: no band at all
    assert title(plot.spectrum(one_fold, dataset="wine")) == ""
    coords = {"ensemble": ["RD", "RF+"], "alpha": [np.nan], "train_size": [0.1, 1.0],
              "repeat": [0, 1, 2], "fold": [0]}
    ds = xr.Dataset({"exact_mse": (tuple(coords), np.random.default_rng(7).uniform(
        0, 1, (2, 1, 2, 3, 1)))}, coords=coords)
    assert title(plot.measure_curve(ds, var="exact_mse", dim="train_size")) == \
        "band: \u00b11 sd over\nrepeats"
    plt.close("all")


def test_interval_bars_are_named_in_the_legend_title():
    """The error bars drawn from diagnose(ci=...) said nowhere what they are; the legend's
    title now gives their level and method, as the intervals' own description states them
    (no intervals, no title)."""
    train, test = gaussian_mixture(120, random_state=0), gaussian_mixture(120, random_state=1)

    def runs(**ci):
        return plot.stack_results([
            treelab.analysis.diagnose(
                treelab.VRTrees(alpha=a, n_estimators=5, random_state=0).fit(train.X, train.y),
                test.X, test.y, X_train=train.X, y_train=train.y, label="Agg.", **ci)
            for a in (0.0, 0.5, 1.0)])

    with_ci, without = runs(ci=0.9, n_boot=200), runs()
    assert with_ci.strength_lower.attrs["description"].startswith("bca 90% interval")
    for draw in (plot.strength_correlation, plot.error_ratio_vs_phi):
        ax = draw(with_ci)
        assert ax.containers  # the bars are drawn
        assert ax.get_legend().get_title().get_text() == "bars: 90% bca\nbootstrap intervals"
        assert draw(without).get_legend().get_title().get_text() == ""
    plt.close("all")


def test_docstrings_have_no_unfilled_placeholders():
    import inspect

    from treelab import widgets

    for module in (plot, stats, widgets):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and obj.__doc__:
                assert "%(" not in obj.__doc__, f"{module.__name__}.{name}"
                if inspect.isfunction(obj) and name not in ("breiman_bound",):
                    params = [p for p in inspect.signature(obj).parameters if p != "self"]
                    for p in params:
                        assert p in obj.__doc__, f"{module.__name__}.{name} does not document {p}"


# ------------------------------------------------------------------ export


def test_savefig_writes_formats_at_publication_size(result, tmp_path):
    ax = plot.spectrum(result, dataset="wine")
    before = ax.figure.get_size_inches().copy()
    written = plot.savefig(ax, tmp_path / "sub" / "spectrum", width="double", dpi=50)
    assert [p.suffix for p in written] == [".png", ".pdf", ".svg"]
    assert all(p.stat().st_size > 0 for p in written)
    np.testing.assert_allclose(ax.figure.get_size_inches(), before)  # restored
    from matplotlib.image import imread

    (png,) = plot.savefig(ax, tmp_path / "one.png", width=4.0, height=2.0, dpi=100,
                          tight=False)
    assert imread(png).shape[:2] == (200, 400)
    with pytest.raises(ValueError, match="width"):
        plot.savefig(ax, tmp_path / "x", width="triple")
    with pytest.raises(ValueError, match="formats"):
        plot.savefig(ax, tmp_path / "x", formats=["docx"])


def test_savefig_relays_out_a_facet_grid(result, tmp_path):
    grid = plot.spectrum(result, col="dataset")
    size = grid.figure.get_size_inches().copy()
    seen = []
    save = grid.figure.savefig

    def spy(*args, **kwargs):  # at export size, the legend must clear the last panel
        renderer = grid.figure.canvas.get_renderer()
        legend = grid.legend.get_window_extent(renderer)
        panel = grid.axes.flat[-1].get_tightbbox(renderer)
        seen.append((grid.figure.get_size_inches()[0], legend.x0 >= panel.x1 - 1))
        return save(*args, **kwargs)

    grid.figure.savefig = spy
    plot.savefig(grid, tmp_path / "grid.png", width="double", dpi=40)
    assert seen == [(7.0, True)]
    np.testing.assert_allclose(grid.figure.get_size_inches(), size)


def test_library_leaves_rc_params_alone(result, mixture_model):
    before = dict(matplotlib.rcParams)
    plot.spectrum(result, col="dataset")
    plot.strength_correlation(result, dataset="wine")
    plot.decision_surface(*mixture_model, resolution=10)
    assert dict(matplotlib.rcParams) == before


def test_savefig_single_column_is_252_points_with_the_legend_under_the_axes(tmp_path):
    # a legend beside the axes once made the cropped file 3.62 in (260 pt) wide and took about
    # 30% of it
    from matplotlib.image import imread

    fig, ax = plt.subplots(figsize=(5.0, 3.5))
    for name, errors in {"Aggregating": [0.21, 0.18, 0.2], "Bagging": [0.2, 0.19, 0.2],
                         "Subspace": [0.22, 0.2, 0.21]}.items():
        ax.plot([0.0, 0.5, 1.0], errors, label=name)
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    (png,) = plot.savefig(fig, tmp_path / "s.png", width="single", dpi=100)
    assert imread(png).shape[1] == 350  # 3.5 in at 100 dpi
    (pdf,) = plot.savefig(fig, tmp_path / "s.pdf", width="single")
    box = re.search(rb"/MediaBox \[\s*([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)", pdf.read_bytes())
    assert float(box.group(3)) - float(box.group(1)) == pytest.approx(252, abs=0.5)
    with export_size(fig, "single") as figure:
        figure.canvas.draw()
        under = ax.get_legend().get_window_extent()
        assert under.y1 <= ax.get_window_extent().y0  # under the panel
        assert ax.get_window_extent().width > 0.6 * figure.bbox.width
    assert ax.get_legend() is legend  # the notebook's figure is unchanged
    # at page width the legend stays beside the axes, and the file is 7 in wide
    (wide,) = plot.savefig(fig, tmp_path / "d.png", width="double", dpi=50)
    assert imread(wide).shape[1] == 350 and ax.get_legend() is legend


# ------------------------------------------------- cells that failed (on_error = "continue")


def _with_a_failed_cell():
    """fake_result with the runner's fit_time; wine's Agg. at alpha 0.25, repeat 0, fold 1
    failed (no record: every variable NaN), and an error ratio NaN by definition (a single
    tree without error) in a finished cell of Agg. at alpha 0.75."""
    ds = fake_result()
    ds["fit_time"] = xr.where(ds.ensemble_error.notnull(), 0.5, np.nan)
    failed = {"dataset": "wine", "ensemble": "Agg.", "alpha": 0.25, "repeat": 0, "fold": 1}
    for var in ds.data_vars:
        ds[var].loc[failed] = np.nan
    ds["error_ratio"].loc[{"dataset": "wine", "ensemble": "Agg.", "alpha": 0.75,
                           "repeat": 1, "fold": 2}] = np.nan
    return ds


def _point_means(ds, var, dataset, ensemble):
    """The reference: per alpha, the mean over the finished folds' values that are not NaN,
    or None where a cell of the point failed (no fit_time)."""
    out = {}
    for a in ALPHAS:
        cell = {"dataset": dataset, "ensemble": ensemble, "alpha": a}
        times = ds.fit_time.sel(cell).values.ravel()
        values = [v for v in ds[var].sel(cell).values.ravel() if not np.isnan(v)]
        out[a] = None if np.isnan(times).any() else sum(values) / len(values)
    return out


def test_figures_leave_out_points_with_a_failed_cell_and_keep_nan_by_definition():
    ds = _with_a_failed_cell()
    ref = _point_means(ds, "ensemble_error", "wine", "Agg.")
    assert ref[0.25] is None
    line = labelled_lines(plot.spectrum(ds, dataset="wine"))["Agg."]
    drawn = [a for a in ALPHAS if ref[a] is not None]
    np.testing.assert_allclose(line.get_xdata(), drawn)
    np.testing.assert_allclose(line.get_ydata(), [ref[a] for a in drawn], rtol=1e-14)
    plt.close("all")
    # strength and correlation: the trajectory skips the point too
    ax = plot.strength_correlation(ds, dataset="wine", colorbar=False, levels=[0.1, 0.2])
    s_ref = _point_means(ds, "strength", "wine", "Agg.")
    np.testing.assert_allclose(labelled_lines(ax)["Agg."].get_xdata(),
                               [s_ref[a] for a in drawn], rtol=1e-14)
    plt.close("all")
    # the scatter: the failed point is gone, the ratio NaN by definition averages the rest
    ratio = _point_means(ds, "error_ratio", "wine", "Agg.")
    phi = _point_means(ds, "phi_e", "wine", "Agg.")
    from treelab.plot.diversity import scatter_points

    points = scatter_points(ds, "phi_e", "error_ratio", "ensemble")
    xs, ys = points["Agg."][0], points["Agg."][1]
    assert phi[0.25] not in xs
    for a in drawn:
        assert np.isclose(xs, phi[a], rtol=1e-14, atol=0).sum() == 1
        assert ys[np.isclose(xs, phi[a], rtol=1e-14, atol=0)][0] == pytest.approx(ratio[a],
                                                                               rel=1e-14)
    assert len(xs) == 3 * len(ALPHAS) - 1
    # without fit_time (not a runner's result) every value counts, as before
    line = labelled_lines(plot.spectrum(ds.drop_vars("fit_time"), dataset="wine"))["Agg."]
    np.testing.assert_allclose(line.get_xdata(), ALPHAS)
    plt.close("all")


def test_irrelevant_attributes_leave_out_a_point_with_a_failed_cell():
    rng = np.random.default_rng(7)
    coords = {"dataset": ["d"], "ensemble": ["RDT", "ERDT"], "alpha": [np.nan],
              "n_irrelevant": [0, 4, 16], "repeat": [0, 1], "fold": [0, 1]}
    err = rng.uniform(0.1, 0.4, tuple(len(v) for v in coords.values()))
    fit = np.full(err.shape, 0.2)
    err[0, 1, 0, 1, 0, 1] = fit[0, 1, 0, 1, 0, 1] = np.nan  # ERDT, 4 irrelevant: failed
    ds = xr.Dataset({"ensemble_error": (tuple(coords), err),
                     "fit_time": (tuple(coords), fit)}, coords=coords)
    lines = labelled_lines(plot.irrelevant_attributes(ds))
    # the line breaks at 4 (a NaN point is not drawn)
    np.testing.assert_allclose(lines["ERDT"].get_xdata(), [0, 4, 16])
    np.testing.assert_allclose(lines["ERDT"].get_ydata(),
                               [1 - err[0, 1, 0, 0].mean(), np.nan, 1 - err[0, 1, 0, 2].mean()],
                               rtol=1e-14)
    np.testing.assert_allclose(lines["RDT"].get_xdata(), [0, 4, 16])
    plt.close("all")


def test_figures_keep_a_data_set_with_fewer_folds_than_the_fold_dim():
    # leave-one-out over data sets of 3 and 4 rows: the smaller has no cell at fold 3, which
    # is not a failure (the result's folds_per_dataset); its point is the mean of its 3 folds
    coords = {"dataset": ["a", "b"], "ensemble": ["RDT"], "alpha": [np.nan],
              "n_irrelevant": [0, 4], "repeat": [0], "fold": [0, 1, 2, 3]}
    err = np.arange(16, dtype=float).reshape(2, 1, 1, 2, 1, 4) / 20
    fit = np.full(err.shape, 0.1)
    err[0, ..., 3] = fit[0, ..., 3] = np.nan  # data set a has folds 0-2
    ds = xr.Dataset({"ensemble_error": (tuple(coords), err),
                     "fit_time": (tuple(coords), fit)}, coords=coords,
                    attrs={"folds_per_dataset": '{"a": 3, "b": 4}'})
    line = labelled_lines(plot.irrelevant_attributes(ds, dataset="a"))["RDT"]
    np.testing.assert_allclose(line.get_ydata(), [1 - err[0, 0, 0, k, 0, :3].mean()
                                                  for k in (0, 1)], rtol=1e-14)
    plt.close("all")
    # data set b's fold 3 failing instead is a failure: its first point is left out
    ds["fit_time"][1, 0, 0, 0, 0, 3] = np.nan
    ds["ensemble_error"][1, 0, 0, 0, 0, 3] = np.nan
    line = labelled_lines(plot.irrelevant_attributes(ds, dataset="b"))["RDT"]
    assert np.isnan(line.get_ydata()[0]) and np.isfinite(line.get_ydata()[1])
    plt.close("all")
