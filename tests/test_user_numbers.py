"""The numbers users read, against direct computations.

- The tour notebook's executed copy in the docs (docs/notebooks/00_tour.ipynb, run in quick
  mode): its printed test error, its ``diagnose`` table and two cells of its summary table are
  recomputed here from the notebook's own parameters cell, by direct fits (the same folds and
  the estimator seeds the runner documents, no runner) and by independent formulas (error
  rates by counting, phi_e pair by pair). A notebook whose code or the package changed without
  the copy being executed again fails here, as does a wrong table in the package.
- The decision-surface widget's table (test error, phi_e) against a direct fit of the rows it
  documents (a seeded half split).

Mutations tried: the copy's numbers edited as a stale copy would hold them (phi_e 0.0902 ->
0.0912, wine Agg. alpha = 0.5 0.062 -> 0.067):
``test_tour_diagnose_table_matches_direct_computation`` and
``test_tour_summary_cells_match_direct_fits`` fail. In the package, ``phi_e_phi_star``
reading the first 5 trees only: ``test_surface_widget_table_matches_a_direct_fit`` fails, and so
does the tour's quick run in ``test_notebooks.py``, which must reproduce the copy's numbers
exactly (``experiment.summary`` taking the maximum over folds fails it too).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import treelab
from treelab.datasets import gaussian_mixture, load_builtin

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "docs" / "notebooks" / "00_tour.ipynb"


def _cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _text(cell):
    out = []
    for o in cell.get("outputs", []):
        if "text" in o:
            out.append("".join(o["text"]))
        elif "text/plain" in o.get("data", {}):
            out.append("".join(o["data"]["text/plain"]))
    return "\n".join(out)


def _cell_with(cells, snippet):
    (cell,) = [c for c in cells if snippet in _source(c)]
    return cell


@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    """The copy's cells and its quick-mode parameters (the parameters cell, executed)."""
    cells = _cells(TOUR)
    assert "quick mode" not in _text(cells[0])
    import os

    old = os.environ.get("TREELAB_QUICK")
    os.environ["TREELAB_QUICK"] = "1"
    try:
        params: dict = {}
        exec(_source(cells[0]), params)  # noqa: S102 - the notebook's own parameters cell
    finally:
        if old is None:
            del os.environ["TREELAB_QUICK"]
        else:
            os.environ["TREELAB_QUICK"] = old
        if params.get("_TMP") is not None:
            params["_TMP"].cleanup()
    return cells, params


@pytest.fixture(scope="module")
def tour_model(tour):
    _, p = tour
    train = gaussian_mixture(p["N_TRAIN"], random_state=p["SEED"])
    test = gaussian_mixture(2000, random_state=p["SEED"] + 1)
    model = treelab.VRTrees(n_estimators=p["N_TREES"], alpha=0.5,
                            random_state=p["SEED"]).fit(train.X, train.y)
    return model, train, test


def naive_phi_e(L, y):
    """Share of rows on which a pair of members makes the same error, averaged over pairs."""
    T = len(L)
    pairs = [np.mean((L[a] == L[b]) & (L[a] != y)) for a in range(T) for b in range(a + 1, T)]
    return float(np.mean(pairs))


def test_tour_printed_test_error_matches_a_direct_fit(tour, tour_model):
    cells, _ = tour
    model, _, test = tour_model
    shown = _text(_cell_with(cells, 'print(f"test error'))
    direct = np.mean(model.predict(test.X) != test.y)
    (value,) = re.findall(r"test error (\d\.\d{3})", shown)
    # shown to three decimals (0.1255 prints as 0.125 or 0.126 depending on its last bit)
    assert float(value) == pytest.approx(direct, abs=5e-4 + 1e-12)


def test_tour_diagnose_table_matches_direct_computation(tour, tour_model):
    cells, _ = tour
    model, train, test = tour_model
    shown = dict(re.findall(r"^(\w+)\s+(-?[\d.]+(?:e-?\d+)?)$",
                            _text(_cell_with(cells, "diag[scalars]")), flags=re.M))
    L = model.member_predict(test.X)
    # the single model of the family: the deterministic C4.5-style tree on the same rows
    single = treelab.DecisionTree().fit(train.X, train.y)
    direct = {
        "ensemble_error": np.mean(model.predict(test.X) != test.y),
        "phi_e": naive_phi_e(L, test.y),
        "single_error": np.mean(single.predict(test.X) != test.y),
    }
    direct["error_ratio"] = direct["ensemble_error"] / direct["single_error"]
    for name, value in direct.items():
        assert float(shown[name]) == pytest.approx(value, abs=5e-5), name


def _seed(*parts):
    """The runner's documented seed derivation (SHA-256 of the canonical JSON), rewritten."""
    text = json.dumps(list(parts), sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def test_tour_summary_cells_match_direct_fits(tour):
    from sklearn.model_selection import RepeatedStratifiedKFold

    cells, p = tour
    text = _text(_cell_with(cells, "summary(result)"))
    rows = {}
    dataset = None
    for line in text.splitlines()[2:]:
        parts = line.split()
        if len(parts) == 6:
            dataset = parts.pop(0)
        if len(parts) == 5:
            rows[(dataset, parts[0])] = [float(v) for v in parts[1:]]
    header = text.splitlines()[0].split()
    assert header == [f"alpha={a:g}" for a in p["ALPHAS"]] + ["alpha=nan"]
    data = load_builtin("wine")
    folds = list(RepeatedStratifiedKFold(n_splits=p["N_FOLDS"], n_repeats=1,
                                         random_state=p["SEED"]).split(data.X, data.y))

    def direct(ensemble, make):
        errs = []
        for fold, (tr, te) in enumerate(folds):
            seed = _seed(p["SEED"], "estimator", "wine", [], ensemble, 0, fold)
            model = make(seed).fit(data.X[tr], data.y[tr])
            errs.append(np.mean(model.predict(data.X[te]) != data.y[te]))
        return float(np.mean(errs))

    agg = direct("Agg.", lambda s: treelab.VRTrees(n_estimators=p["N_TREES"], alpha=0.5,
                                                   sampling="none", random_state=s))
    rf = direct("RF", lambda s: treelab.RandomForest(n_estimators=p["N_TREES"], random_state=s))
    col = header.index("alpha=0.5")
    assert rows[("wine", "Agg.")][col] == pytest.approx(agg, abs=5e-4)
    assert rows[("wine", "RF")][-1] == pytest.approx(rf, abs=5e-4)


def test_surface_widget_table_matches_a_direct_fit():
    from treelab import widgets

    data = gaussian_mixture(160, random_state=4)
    _, table, _ = widgets.surface_view(data, alpha=0.3, n_estimators=8,
                                       construction="Aggregating", resolution=10,
                                       random_state=5)
    order = np.random.default_rng(5).permutation(160)
    tr, te = order[:80], order[80:]
    model = treelab.VRTrees(n_estimators=8, alpha=0.3, sampling="none", subspace_fraction=0.5,
                            random_state=5).fit(data.X[tr], data.y[tr])
    known = np.isin(data.y[te], model.classes_)
    Xt, yt = data.X[te][known], data.y[te][known]
    assert table.loc["test error", "value"] == pytest.approx(np.mean(model.predict(Xt) != yt))
    assert table.loc["phi_e", "value"] == pytest.approx(naive_phi_e(model.member_predict(Xt),
                                                                    yt))
