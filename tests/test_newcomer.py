"""The newcomer's path: import treelab, diagnose, and draw without reshaping by hand."""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import treelab  # noqa: E402
from treelab.datasets import gaussian_mixture  # noqa: E402


def test_subpackages_are_attributes_imported_on_first_use():
    code = ("import sys, treelab; heavy = ('xarray' in sys.modules, "
            "'treelab.analysis' in sys.modules, 'matplotlib' in sys.modules); "
            "f = treelab.analysis.diagnose; print(*heavy, 'treelab.analysis' in sys.modules, "
            "'treelab.plot' in sys.modules, sorted(set(dir(treelab)) & {'plot', 'stats'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split(maxsplit=5)
    assert out[:5] == ["False", "False", "False", "True", "False"]
    assert out[5].strip() == "['plot', 'stats']"
    for name in ("analysis", "plot", "stats", "widgets", "datasets", "experiment"):
        assert getattr(treelab, name).__name__ == f"treelab.{name}"
    with pytest.raises(AttributeError, match="no attribute 'plots'"):
        treelab.plots  # noqa: B018


@pytest.fixture(scope="module")
def runs():
    train = gaussian_mixture(160, random_state=0)
    test = gaussian_mixture(160, random_state=1)
    out = [treelab.analysis.diagnose(
        treelab.VRTrees(n_estimators=4, alpha=a, random_state=0).fit(train.X, train.y),
        test.X, test.y, label="Aggregating") for a in (1.0, 0.0, 0.5)]
    out.append(treelab.analysis.diagnose(
        treelab.RandomForest(n_estimators=4, random_state=0).fit(train.X, train.y),
        test.X, test.y))
    return out


def test_diagnose_records_its_ensemble_and_alpha(runs):
    assert runs[0].ensemble.item() == "Aggregating" and runs[0].alpha.item() == 1.0
    assert runs[3].ensemble.item() == "RandomForest" and np.isnan(runs[3].alpha.item())
    with pytest.raises(TypeError, match="label"):
        treelab.analysis.diagnose(object(), [[0.0]], [0], label=3)


def test_stacked_diagnose_results_go_straight_into_the_figures(runs):
    grid = treelab.plot.stack_results(runs)
    assert list(grid.ensemble.values) == ["Aggregating", "RandomForest"]
    np.testing.assert_array_equal(grid.alpha.values[:3], [0.0, 0.5, 1.0])
    assert np.isnan(grid.alpha.values[3])
    # each cell holds the very result it came from; other cells are NaN
    for run, a in zip(runs[:3], (1.0, 0.0, 0.5), strict=True):
        assert grid.ensemble_error.sel(ensemble="Aggregating", alpha=a).item() == \
            run.ensemble_error.item()
    assert grid.strength.isel(ensemble=1, alpha=3).item() == runs[3].strength.item()
    assert np.isnan(grid.ensemble_error.isel(ensemble=1, alpha=0).item())
    ax = treelab.plot.spectrum(grid)
    assert {ln.get_label() for ln in ax.get_lines()} >= {"Aggregating", "RandomForest"}
    treelab.plot.strength_correlation(grid)
    with pytest.raises(ValueError, match="twice"):
        treelab.plot.stack_results([runs[0], runs[0]])
    with pytest.raises(ValueError, match="ensemble"):
        treelab.plot.stack_results([runs[0].drop_vars("ensemble")])
    with pytest.raises(TypeError, match="list"):
        treelab.plot.stack_results(runs[0])


def test_missing_dims_error_says_how_to_add_them(runs):
    with pytest.raises(ValueError, match="stack_results"):
        treelab.plot.spectrum(runs[0])


def test_decision_surface_takes_x_and_y_like_scikit_learn():
    data = gaussian_mixture(120, random_state=0)
    model = treelab.VRTrees(n_estimators=3, random_state=0).fit(data.X, data.y)
    a = treelab.plot.decision_surface(model, data.X, data.y, resolution=12)
    b = treelab.plot.decision_surface(model, (data.X, data.y), resolution=12)
    np.testing.assert_array_equal(a.images[0].get_array(), b.images[0].get_array())
    np.testing.assert_array_equal(a.collections[0].get_offsets(), data.X)
    import pandas as pd

    frame = pd.DataFrame(data.X, columns=["width", "height"])
    c = treelab.plot.decision_surface(model, frame, data.y, resolution=12)
    assert (c.get_xlabel(), c.get_ylabel()) == ("width", "height")
    with pytest.raises(TypeError, match="model, X, y"):
        treelab.plot.decision_surface(model, data.X)
    with pytest.raises(TypeError, match="once"):
        treelab.plot.decision_surface(model, data, data.y)


def test_widgets_say_how_to_add_missing_dims(runs):
    with pytest.raises(ValueError, match="stack_results"):
        treelab.widgets.spectrum_view(runs[0], None, "Aggregating", 0.5)
    grid = treelab.plot.stack_results(runs)
    fig, table = treelab.widgets.spectrum_view(grid, None, "Aggregating", 0.5)
    assert table.loc["ensemble_error", "mean"] == runs[2].ensemble_error.item()


def test_stack_results_takes_one_ensemble_at_several_alphas(runs):
    # one label at three alphas: concat keeps the shared label as a scalar, which once made
    # set_index raise "PandasMultiIndex only accepts 1-dimensional variables"
    grid = treelab.plot.stack_results(runs[:3])
    assert list(grid.ensemble.values) == ["Aggregating"]
    np.testing.assert_array_equal(grid.alpha.values, [0.0, 0.5, 1.0])
    for run in runs[:3]:
        assert grid.phi_e.sel(ensemble="Aggregating", alpha=run.alpha.item()).item() == \
            run.phi_e.item()
    single = treelab.plot.stack_results(runs[3:])
    assert single.sizes["ensemble"] == 1 and np.isnan(single.alpha.values).all()
