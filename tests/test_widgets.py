"""treelab.widgets: callbacks called directly (no kernel), controls driven from code.

How long an interaction takes is measured in ``benchmarks/bench_widgets.py``, not here: a wall
time depends on the machine's load. These tests check the work an interaction does (one view
call, one refit, one picture, no layout engine) instead.
"""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from test_plot import ALPHAS, _with_a_failed_cell, fake_result  # noqa: E402

from treelab import widgets  # noqa: E402
from treelab.datasets import concepts, gaussian_mixture  # noqa: E402

PNG = b"\x89PNG"


@pytest.fixture(scope="module")
def result():
    return fake_result(seed=1)


class Calls:
    """Wrap ``module.name`` to count and record its calls (arguments and results)."""

    def __init__(self, monkeypatch, module, name):
        self.calls = []
        real = getattr(module, name)

        def spy(*args, **kwargs):
            out = real(*args, **kwargs)
            self.calls.append((args, kwargs, out))
            return out

        monkeypatch.setattr(module, name, spy)

    def __len__(self):
        return len(self.calls)


def watch_redraws(monkeypatch, view_module, view_name):
    """Spies on an explorer's view function and on the PNG rendering of its figure."""
    from treelab.widgets import _common

    return Calls(monkeypatch, view_module, view_name), Calls(monkeypatch, _common, "render_png")


# ------------------------------------------------------------------ spectrum


def test_spectrum_view_marks_alpha_and_tabulates_the_cell(result):
    fig, table = widgets.spectrum_view(result, "wine", "Bag.", 0.75)
    left, right = fig.axes[:2]  # and the colour bar of alpha
    marked = [ln for ln in left.get_lines() if np.allclose(ln.get_xdata(), 0.75)]
    assert len(marked) == 1
    cell = result.sel(dataset="wine", ensemble="Bag.", alpha=0.75)
    assert table.loc["ensemble_error", "mean"] == pytest.approx(
        float(cell.ensemble_error.mean()))
    assert table.loc["strength", "sd"] == pytest.approx(float(cell.strength.std(ddof=1)))
    ring = next(c for c in right.collections if c.get_gid() == "mark:Bag.")
    np.testing.assert_allclose(ring.get_offsets(),
                               [[float(cell.strength.mean()), float(cell.correlation.mean())]])
    with pytest.raises(ValueError, match="alpha"):
        widgets.spectrum_view(result, "wine", "Bag.", 0.3)
    with pytest.raises(ValueError, match="ensemble"):
        widgets.spectrum_view(result, "wine", "XGB", 0.5)


def test_spectrum_explorer_reacts_to_its_controls(result):
    explorer = widgets.SpectrumExplorer(result)
    assert bytes(explorer.image.value).startswith(PNG)
    assert list(explorer.ensemble.options) == ["Agg.", "Bag."]  # RF has no alpha to slide
    assert list(explorer.alpha.options) == ALPHAS and explorer.alpha.value == 0.5
    first = explorer.image.value
    explorer.alpha.value = 1.0
    assert explorer.image.value != first
    cell = result.sel(dataset="waveform", ensemble="Agg.", alpha=1.0)
    assert explorer.measures.loc["phi_e", "mean"] == pytest.approx(float(cell.phi_e.mean()))
    explorer.dataset.value = "led"
    assert "led" in explorer.figure.axes[0].get_title()
    assert "<table" in explorer.table.value
    assert "application/vnd.jupyter.widget-view+json" in explorer._repr_mimebundle_()
    with pytest.raises(TypeError, match="result"):
        widgets.SpectrumExplorer(result.ensemble_error)


def test_spectrum_interaction_draws_one_picture_without_a_layout_engine(result, monkeypatch):
    from treelab.widgets import spectrum

    explorer = widgets.SpectrumExplorer(result)
    views, renders = watch_redraws(monkeypatch, spectrum, "spectrum_view")
    for step, value in enumerate([0.0, 0.25, 1.0], 1):
        explorer.alpha.value = value
        # one view and one PNG per move of the slider, of the cell the controls name
        assert len(views) == step and len(renders) == step
        args = views.calls[-1][0]
        assert args[1:] == (explorer.dataset.value, explorer.ensemble.value, value)
        fig = views.calls[-1][2][0]
        assert renders.calls[-1][0][0] is fig is explorer.figure
        # fixed margins: a layout engine would double the drawing time of every interaction
        assert fig.get_layout_engine() is None
    explorer.alpha.value = 1.0  # not a change: nothing redrawn
    assert len(views) == 3 and len(renders) == 3


# ------------------------------------------------------------------ decision surface


def test_surface_view_refits_with_the_chosen_settings():
    data = gaussian_mixture(200, random_state=2)
    fig, table, model = widgets.surface_view(data, alpha=0.2, n_estimators=6,
                                             construction="Bagging", resolution=20)
    assert model.get_params()["alpha"] == 0.2 and model.n_estimators == 6
    assert model.get_params()["sampling"] == "bootstrap"
    surface, plane = fig.axes[:2]
    (image,) = surface.images
    assert np.asarray(image.get_array()).shape == (20, 20)
    current = next(c for c in plane.collections if c.get_gid() == "current")
    np.testing.assert_allclose(current.get_offsets(),
                               [[table.loc["strength", "value"],
                                 table.loc["correlation", "value"]]])
    # the measures are those of the refitted ensemble on the held-out half
    from treelab.analysis import strength_correlation

    rng = np.random.default_rng(0)
    order = rng.permutation(200)
    test_rows = order[100:]
    labels = model.member_predict(data.X[test_rows])
    ref = strength_correlation(labels, data.y[test_rows])
    assert table.loc["strength", "value"] == pytest.approx(float(ref.strength))
    with pytest.raises(ValueError, match="construction"):
        widgets.surface_view(data, construction="Boosting")
    with pytest.raises(ValueError, match="2 features"):
        widgets.surface_view(concepts("A", 50, n_irrelevant=2, random_state=0))


def test_decision_surface_explorer_refits_live(monkeypatch):
    data = concepts("A", 256, random_state=0)
    explorer = widgets.DecisionSurfaceExplorer(data, n_estimators=10)
    assert bytes(explorer.image.value).startswith(PNG)
    explorer.alpha.value = 0.9
    assert explorer.model.alpha == 0.9
    assert len(explorer.history) == 2  # the trajectory grows while alpha moves
    explorer.n_estimators.value = 12
    assert explorer.model.n_estimators == 12 and len(explorer.history) == 1
    explorer.construction.value = "Subspacing"
    assert explorer.model.sampling == "subspace"
    # each move of a slider refits once, at the explorer's size, and draws one picture
    import treelab
    from treelab.widgets import surface

    fits = Calls(monkeypatch, treelab.VRTrees, "fit")
    views, renders = watch_redraws(monkeypatch, surface, "surface_view")
    for step, value in enumerate([0.1, 0.55, 0.35], 1):
        explorer.alpha.value = value
        assert len(fits) == len(views) == len(renders) == step
        model = fits.calls[-1][0][0]
        assert model is explorer.model and model.alpha == value
        assert model.n_estimators == 12 and model.forest_.n_trees == 12
        assert views.calls[-1][1]["resolution"] == explorer.resolution
        assert views.calls[-1][2][0].get_layout_engine() is None
    assert [h[0] for h in explorer.history] == [0.9, 0.1, 0.55, 0.35]


# ------------------------------------------------------------------ diversity


def test_diversity_view_highlights_the_selected_dataset(result):
    fig, table = widgets.diversity_view(result, "led")
    (ax,) = fig.axes
    ring = next(c for c in ax.collections if c.get_gid() == "selected")
    led = result.sel(dataset="led").mean(["repeat", "fold"])
    finite = np.isfinite(led.phi_e.values)
    np.testing.assert_allclose(np.sort(ring.get_offsets()[:, 0]),
                               np.sort(led.phi_e.values[finite]))
    assert table.loc[("RF", slice(None)), "error_ratio"].size == 1
    assert table.loc[("Agg.", 0.5), "phi_e"] == pytest.approx(float(led.phi_e.sel(
        ensemble="Agg.", alpha=0.5)))


def test_diversity_explorer_follows_its_dropdown(result, monkeypatch):
    explorer = widgets.DiversityExplorer(result)
    explorer.dataset.value = "wine"
    assert "wine" in explorer.figure.axes[0].get_title()
    from treelab.widgets import diversity

    views, renders = watch_redraws(monkeypatch, diversity, "diversity_view")
    explorer.dataset.value = "led"
    assert len(views) == len(renders) == 1  # one picture for one choice
    assert views.calls[0][0][1] == "led" and "led" in explorer.figure.axes[0].get_title()
    assert explorer.figure.get_layout_engine() is None
    with pytest.raises(ValueError, match="variable"):
        widgets.DiversityExplorer(result, x="phi_q")


def test_missing_ipywidgets_gives_an_actionable_error(monkeypatch, result):
    import sys

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets now fails
    with pytest.raises(ImportError, match="pip install ipywidgets"):
        widgets.SpectrumExplorer(result)
    # the callbacks need no ipywidgets at all
    fig, table = widgets.spectrum_view(result, "wine", "Agg.", 0.5)
    assert len(fig.axes) >= 2 and "phi_e" in table.index


# ------------------------------------------------------------------ layout of the pictures


def test_widget_pictures_have_clean_layouts(result):
    from layout_checks import layout_problems

    pictures = {
        "spectrum": widgets.spectrum_view(result, "wine", "Bag.", 0.5)[0],
        "diversity": widgets.diversity_view(result, "led")[0],
        "surface": widgets.surface_view(gaussian_mixture(200, random_state=2), n_estimators=4,
                                        resolution=16, history=[(0.1, 0.5, 0.2)])[0],
    }
    for name, fig in pictures.items():
        problems = layout_problems(fig)
        assert problems == [], f"{name}: " + "\n".join(problems)


def test_widget_colours_and_legend_stay_put_between_redraws(result):
    from matplotlib.colors import same_color

    first = widgets.spectrum_view(result, "wine", "Agg.", 0.5)[0]
    second = widgets.spectrum_view(result, "wine", "Bag.", 1.0)[0]
    colours = [{ln.get_label(): ln.get_color() for ln in fig.axes[0].get_lines()}
               for fig in (first, second)]
    for name in ("Agg.", "Bag.", "RF"):
        assert same_color(colours[0][name], colours[1][name])  # not recoloured by the choice
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    boxes = [fig.axes[0].get_legend().get_window_extent(FigureCanvasAgg(fig).get_renderer())
             for fig in (first, second)]
    np.testing.assert_allclose(boxes[0].bounds, boxes[1].bounds)
    # the strength panel colours its points by alpha and has a colour bar that says so
    assert any("alpha" in ax.get_xlabel() + ax.get_ylabel() for ax in first.axes[2:])


def test_widget_labels_whole_and_tables_rounded(result):
    explorer = widgets.SpectrumExplorer(result)
    assert explorer.ensemble.style.description_width == "initial"
    import re

    numbers = re.findall(r"<td>(-?[0-9.e+-]+)</td>", explorer.table.value)
    assert numbers and all(len(n.replace("-", "").replace(".", "").lstrip("0")) <= 3
                           for n in numbers if "e" not in n)


# ------------------------------------------------- cells that failed (on_error = "continue")


def test_views_give_nan_where_a_fold_of_the_cell_failed():
    ds = _with_a_failed_cell()  # wine, Agg., alpha 0.25: one fold failed
    table = widgets.measures_at(ds, dataset="wine", ensemble="Agg.", alpha=0.25)
    assert table["mean"].isna().all() and table["sd"].isna().all()
    # a finished cell: the mean of its folds (the error ratio NaN by definition left out)
    table = widgets.measures_at(ds, dataset="wine", ensemble="Agg.", alpha=0.75)
    ratio = ds.error_ratio.sel(dataset="wine", ensemble="Agg.", alpha=0.75).values.ravel()
    assert np.isnan(ratio).sum() == 1
    assert table.loc["error_ratio", "mean"] == pytest.approx(np.nanmean(ratio), rel=1e-14)
    _, table = widgets.diversity_view(ds, "wine")
    assert ("Agg.", 0.25) not in table.index and ("Agg.", 0.5) in table.index  # left out
    assert table.loc[("Agg.", 0.75), "error_ratio"] == pytest.approx(np.nanmean(ratio),
                                                                      rel=1e-14)
