"""Every result variable cites where its definition comes from: a paper (with the section or
equation) or, for treelab's own definitions, a page of treelab's documentation that ships in
the repository; never a file users do not have."""

import re
from pathlib import Path

import numpy as np
import pytest

import treelab
from treelab import analysis, stats
from treelab.datasets import gaussian_mixture

REPO = Path(__file__).resolve().parents[1]
PAPER = re.compile(r"\(\d{4}\)")
DOCS = re.compile(r"treelab documentation, [\w/]+ \((docs/[\w/]+\.md)\)")


@pytest.fixture(scope="module")
def results():
    train, test = gaussian_mixture(120, random_state=0), gaussian_mixture(90, random_state=1)
    model = treelab.VRTrees(n_estimators=5, alpha=0.5, sampling="bootstrap",
                            random_state=0).fit(train.X, train.y)
    labels = model.member_predict(test.X)
    rng = np.random.default_rng(0)
    table = rng.random((4, 3))
    import xarray as xr

    errors = xr.DataArray(table, dims=("dataset", "ensemble"),
                          coords={"ensemble": ["a", "b", "c"]})
    return {
        "diagnose": analysis.diagnose(model, test.X, test.y, X_train=train.X,
                                      y_train=train.y),
        "error_arrangement": analysis.error_arrangement(labels, test.y),
        "pairwise_diversity": analysis.pairwise_diversity(labels, test.y),
        "thresholded_mse": analysis.thresholded_mse(model.predict_proba(test.X), test.y)
        .to_dataset(name="mse", promote_attrs=True),
        "friedman": stats.friedman(errors),
        "fit_error_ratio": stats.fit_error_ratio([0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.8, 0.9]),
    }


def _cites(ds):
    yield "attrs", ds.attrs.get("cite", "")
    for name, da in ds.data_vars.items():
        yield name, da.attrs.get("cite", "")


def test_every_variable_cites_a_paper_or_a_shipped_docs_page(results):
    for func, ds in results.items():
        for name, cite in _cites(ds):
            where = f"{func}: {name}"
            assert cite, f"{where} has no cite"
            assert "spec/" not in cite, f"{where} cites a file users do not have: {cite}"
            pages = DOCS.findall(cite)
            assert PAPER.search(cite) or pages, f"{where} names no source: {cite}"
            for page in pages:
                assert (REPO / page).is_file(), f"{where} cites a missing page {page}"


def test_measures_cite_their_equation(results):
    ds = results["diagnose"]
    assert "eq. (1)" in ds.phi_e.attrs["cite"] and "eq. (2)" in ds.phi_star.attrs["cite"]
    assert "section 4" in ds.error_ratio.attrs["cite"]
    assert "Theorem 2.3" in ds.breiman_bound.attrs["cite"]
    assert "section 5.2" in ds.gain_ties.attrs["cite"]
    assert "section 5" in ds.thresholded_mse.attrs["cite"]


def test_no_source_file_cites_the_specification():
    root = REPO / "treelab"
    hits = [f"{p.relative_to(REPO)}:{i}" for p in sorted(root.rglob("*.py"))
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if "spec/" in line]
    assert not hits, hits
