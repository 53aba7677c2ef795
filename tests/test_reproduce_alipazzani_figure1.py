"""Ali & Pazzani's Figure 1 on treelab's side: each point's significance test, and the fit over
the points with a significant error reduction (section 5.1: the study's r^2 = 0.49 is over the
163 of its 260 meta-trials with a significant reduction, 162 degrees of freedom)."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy.stats import linregress, wilcoxon

from treelab.reproduce._alipazzani1995_report import report
from treelab.reproduce.alipazzani1995 import measure

COMBINATIONS = ["uniform voting", "distribution summation", "likelihood", "Bayesian"]


def _results(rng: np.random.Generator) -> xr.Dataset:
    """A figure1 result: 2 combinations x 3 data sets x 2 fractions x 8 trials."""
    shape = (2, 3, 2, 8, 1, 1)
    single = rng.uniform(0.2, 0.4, shape).round(3)
    ens = (single - rng.normal(0.03, 0.04, shape)).round(3)
    ens[0, 0, 0] = single[0, 0, 0]  # no difference at all: no p-value
    dims = ("ensemble", "dataset", "train_size", "repeat", "fold", "alpha")
    coords = {"ensemble": COMBINATIONS[:2], "dataset": ["a", "b", "c"],
              "train_size": [0.5, 1.0], "repeat": np.arange(8), "fold": [0],
              "alpha": [np.nan]}
    return xr.Dataset({"single_error": (dims, single), "ensemble_error": (dims, ens),
                       "phi_e": (dims, rng.uniform(0, 1, shape))}, coords=coords)


@pytest.mark.parametrize("dataset_first", [False, True])
def test_each_point_carries_scipys_wilcoxon_p_of_single_minus_ensemble(dataset_first):
    # a stored run's dims come in its own order (dataset before ensemble, say)
    ds = _results(np.random.default_rng(0))
    if dataset_first:
        ds = ds.transpose("dataset", "repeat", "ensemble", "fold", "train_size", "alpha")
    points = measure({"figure1": ds}, "full")["figure1_points"]
    assert list(points.columns) == ["single_error", "ensemble_error", "E_r", "phi_e",
                                    "p_wilcoxon"]
    for (comb, name, frac), row in points.iterrows():
        sel = ds.sel(ensemble=comb, dataset=name, train_size=frac)
        d = (sel.single_error - sel.ensemble_error).values.ravel()
        if not np.any(d != 0):
            assert np.isnan(row["p_wilcoxon"])
            continue
        assert row["p_wilcoxon"] == wilcoxon(d).pvalue, (comb, name, frac)
    assert np.isnan(points.loc[("uniform voting", "a", 0.5), "p_wilcoxon"])


def _points(n_sig: int, n_other: int, rng: np.random.Generator) -> pd.DataFrame:
    """Per combination: n_sig points with a significant reduction on the line
    E_r = 0.2 + 0.6 phi_e, and n_other scattered points, none significant or some with the
    ensemble worse (p small but no reduction)."""
    rows = []
    for comb in COMBINATIONS:
        for i in range(n_sig):
            phi = 0.05 + 0.9 * i / max(n_sig - 1, 1)
            single = 0.3
            rows.append((comb, f"s{i}", 0.5, single, single * (0.2 + 0.6 * phi), phi, 0.001))
        for i in range(n_other):
            phi = rng.uniform(0, 1)
            single = 0.3
            ratio = rng.uniform(0.5, 1.5)
            p = 0.2 if i % 2 else 0.001  # the odd ones not significant, the even ones worse
            ratio = max(ratio, 1.01) if p < 0.05 else ratio
            rows.append((comb, f"o{i}", 0.5, single, single * ratio, phi, p))
    frame = pd.DataFrame(rows, columns=["ensemble", "dataset", "train_size", "single_error",
                                        "ensemble_error", "phi_e", "p_wilcoxon"])
    frame["E_r"] = frame["ensemble_error"] / frame["single_error"]
    return frame.set_index(["ensemble", "dataset", "train_size"])


def _verdicts(points: pd.DataFrame) -> dict:
    sections, verdicts = report({"figure1_points": points}, "full")
    return {v.claim: v for v in verdicts}, "\n".join(s.text for s in sections)


def test_the_fit_reads_only_the_points_with_a_significant_reduction():
    points = _points(12, 40, np.random.default_rng(1))
    verdicts, text = _verdicts(points)
    uv = verdicts["E_r is linear in phi_e over the meta-trials (uniform voting)"]
    # on the line, r^2 = 1: outside the study's 38-60% interval, so the intervals are disjoint
    assert uv.verdict == "does not hold"
    assert "treelab 1.00" in uv.numbers and "12 of 52 points" in uv.numbers
    assert "significant error reduction" in uv.rule
    sig = points.xs("uniform voting")
    sig = sig[sig["p_wilcoxon"] < 0.05]
    sig = sig[sig["ensemble_error"] < sig["single_error"]]
    assert len(sig) == 12
    assert linregress(sig["phi_e"], sig["E_r"]).rvalue ** 2 == pytest.approx(1.0)
    # the fit over every point is printed beside it, and differs
    every = points.xs("uniform voting")
    r2_all = linregress(every["phi_e"], every["E_r"]).rvalue ** 2
    assert f"| {r2_all:.2f} |" in text
    four = verdicts["All four combination functions show E_r rising with phi_e"]
    assert four.verdict == "holds"


@pytest.mark.parametrize("n_sig", [2, 3])
def test_fewer_than_four_significant_points_is_inconclusive_not_an_error(n_sig):
    # three points have no Fisher-z interval of r (its standard error is 1 / sqrt(n - 3))
    points = _points(n_sig, 10, np.random.default_rng(2))
    verdicts, text = _verdicts(points)
    uv = verdicts["E_r is linear in phi_e over the meta-trials (uniform voting)"]
    assert uv.verdict == "inconclusive"
    assert f"{n_sig} of {n_sig + 10} points" in uv.numbers and "fewer than 4" in uv.numbers
    four = verdicts["All four combination functions show E_r rising with phi_e"]
    assert four.verdict == "inconclusive"
    assert "nan" not in text


def test_a_table_without_p_values_fits_no_point():
    # an older run's table: no point can be called significant, so nothing is fitted
    points = _points(12, 4, np.random.default_rng(3)).drop(columns="p_wilcoxon")
    verdicts, _ = _verdicts(points)
    uv = verdicts["E_r is linear in phi_e over the meta-trials (uniform voting)"]
    assert uv.verdict == "inconclusive" and "0 of 16 points" in uv.numbers
