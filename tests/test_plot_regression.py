"""The spectrum figures and the spectrum explorer on regression results: MSE in place of the
error rate, the regression measures across alpha, axes labelled for regression."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import treelab  # noqa: E402
from treelab.analysis import diagnose  # noqa: E402
from treelab.datasets import generate  # noqa: E402
from treelab.plot import regression_spectrum, spectrum, stack_results  # noqa: E402

ALPHA_LABEL = r"$\alpha$ (0 random, 1 deterministic)"


def regression_result():
    """A small result in the shape of a regression experiment's (NaN alpha: a reference)."""
    rng = np.random.default_rng(0)
    dims = ("dataset", "ensemble", "alpha", "repeat", "fold")
    shape = (2, 2, 3, 1, 3)
    values = {name: rng.random(shape) for name in
              ("mse", "mae", "r2", "ambiguity", "rho_bar", "breiman_bound", "noise")}
    values["mse"][:, 1, :2] = np.nan  # the second ensemble has no alpha
    values["mse"][:, 0, 2] = np.nan
    ds = xr.Dataset({k: (dims, v) for k, v in values.items()},
                    coords={"dataset": ["friedman1", "stackloss"], "ensemble": ["VR", "RF"],
                            "alpha": [0.0, 1.0, np.nan], "repeat": [0], "fold": [0, 1, 2]})
    ds["mse"].attrs["units"] = "squared units of y"
    return ds


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_spectrum_draws_mse_by_default_on_a_regression_result():
    ax = spectrum(regression_result(), dataset="friedman1")
    assert ax.get_ylabel() == "mean squared error (MSE)"
    assert ax.get_xlabel() == ALPHA_LABEL
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["VR", "RF"]  # RF (no alpha) as a reference line
    line = ax.get_lines()[0]
    expected = regression_result().mse.sel(dataset="friedman1", ensemble="VR").mean(
        ["repeat", "fold"]).values[:2]
    np.testing.assert_allclose(line.get_ydata(), expected)


def test_regression_labels_do_not_leak_into_classification():
    ds = regression_result().rename({"mse": "ensemble_error"})
    ax = spectrum(ds, dataset="friedman1")
    assert ax.get_ylabel() == "error rate"
    ax = spectrum(ds, var="breiman_bound", dataset="friedman1")
    assert ax.get_ylabel() == r"Breiman's bound $\bar\rho(1-s^2)/s^2$"
    ax = spectrum(regression_result(), var="breiman_bound", dataset="friedman1")
    assert ax.get_ylabel() == r"Breiman's bound $\bar\rho\, PE^*(tree)$"


def test_regression_spectrum_one_panel_per_measure_at_journal_width():
    fig = regression_spectrum(regression_result(), dataset="stackloss")
    assert float(fig.get_size_inches()[0]) == 7.0
    assert [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()] == [
        "mean squared error (MSE)", "$R^2$", "ambiguity (Krogh & Vedelsby)",
        r"residual correlation $\bar\rho$"]
    assert fig.legends and [t.get_text() for t in fig.legends[0].get_texts()] == ["VR", "RF"]
    assert fig.get_supxlabel() == ALPHA_LABEL  # said once, under the panels
    fig = regression_spectrum(regression_result(), dataset="stackloss", variables=["noise"],
                              width="single")
    assert float(fig.get_size_inches()[0]) == 3.5
    assert fig.axes[0].get_ylabel() == "noise"


def test_regression_spectrum_refuses_what_it_cannot_draw():
    with pytest.raises(ValueError, match="regression result"):
        regression_spectrum(regression_result().rename({"mse": "ensemble_error"}),
                            dataset="friedman1")
    with pytest.raises(ValueError, match="choose one"):
        regression_spectrum(regression_result())
    with pytest.raises(ValueError, match="lacks the variables"):
        regression_spectrum(regression_result(), dataset="friedman1", variables=["diversity"])


def test_stacked_diagnose_results_of_regressors_draw():
    train = generate("friedman1", n_samples=60, random_state=0)
    test = generate("friedman1", n_samples=40, random_state=1)
    runs = [diagnose(treelab.VRTreesRegressor(alpha=a, n_estimators=4, random_state=0)
                     .fit(train.X, train.y), test.X, test.y, label="VR")
            for a in (0.0, 1.0)]
    stacked = stack_results(runs)
    ax = spectrum(stacked)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [float(r.mse) for r in runs])
    assert ax.get_ylabel() == "mean squared error (MSE)"


def test_spectrum_explorer_view_on_a_regression_result():
    pytest.importorskip("ipywidgets")
    from treelab.widgets.spectrum import spectrum_view

    fig, table = spectrum_view(regression_result(), "friedman1", "VR", 1.0)
    left, right = fig.axes[:2]
    assert left.get_ylabel() == "mean squared error (MSE)"
    assert right.get_ylabel() == r"residual correlation $\bar\rho$"
    assert "mse" in " ".join(map(str, table.index))
