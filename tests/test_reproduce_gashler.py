"""benchmarks/reproduce_gashler.py: resumable runs and the summary tables, against direct
computations."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

import treelab

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "reproduce_gashler.py"


@pytest.fixture(scope="module")
def rg():
    spec = importlib.util.spec_from_file_location("reproduce_gashler", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_line(name, density, acc):
    return {"mode": "comparison", "set": name, "trees": 100, "repeats": 5, "seed": 0,
            "log10_density": density, "n_samples": 100, "seconds": 1.0, "accuracy": acc}


def test_density_groups_split_the_sets_ordered_by_density(rg):
    densities = [5.0, -1.0, 3.0, 40.0, 2.0, 7.0, 0.5, 9.0]
    lines = [fake_line(f"s{i}", d, {}) for i, d in enumerate(densities)]
    groups = dict(rg.groups(lines))
    names = {k: [x["set"] for x in v] for k, v in groups.items()}
    q = [v for k, v in names.items() if k.startswith("quartile")]
    # ordered: s1 (-1), s6 (0.5), s4 (2), s2 (3), s0 (5), s5 (7), s7 (9), s3 (40)
    assert q == [["s1", "s6"], ["s4", "s2"], ["s0", "s5"], ["s7", "s3"]]
    halves = [v for k, v in names.items() if k.startswith("half")]
    assert halves == [["s1", "s6", "s4", "s2"], ["s0", "s5", "s7", "s3"]]
    assert len(groups["all"]) == 8


def test_significance_is_alpaydins_f_test(rg):
    rng = np.random.default_rng(0)
    lines = []
    for i in range(6):
        base = rng.uniform(0.7, 0.9, size=(5, 2))
        shift = [0.08, -0.08, 0.0, 0.01, 0.1, -0.002][i]
        other = base + shift + rng.normal(scale=0.01, size=(5, 2))
        lines.append(fake_line(f"s{i}", float(i), {"entropy trees": base.tolist(),
                                                   "MMDT standard": other.tolist()}))
    got = rg.significance(lines, "MMDT standard", "entropy trees")
    for line, g in zip(lines, got, strict=True):
        acc = line["accuracy"]
        p = np.array(acc["MMDT standard"]) - np.array(acc["entropy trees"])
        s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        f = (p**2).sum() / (2 * s2.sum())  # Alpaydin (1999)
        pval = scipy.stats.f.sf(f, 10, 5)
        assert g == (int(np.sign(p.mean())) if pval < 0.05 else 0)
    assert got[0] == 1 and got[1] == -1  # clear shifts are found, in their direction
    table = rg.summarize(lines)
    wins = [r for r in table.splitlines() if r.startswith("| all |")][-1]
    n_wins = sum(np.mean(x["accuracy"]["MMDT standard"]) > np.mean(x["accuracy"]["entropy trees"])
                 for x in lines)
    expected = (f"{n_wins} ({int((got > 0).sum())}) / {6 - n_wins} ({int((got < 0).sum())})")
    assert wins.endswith(f"| {expected} |")


def small_models(trees, seed, n_jobs):
    return {"entropy trees": treelab.BaggedTrees(n_estimators=trees, random_state=seed),
            "MMDT standard": treelab.BaggedMMDT(n_estimators=trees, random_state=seed)}


def test_a_stopped_run_resumes_and_gives_the_same_results(rg, tmp_path):
    out = tmp_path / "runs.jsonl"
    tasks = [{"mode": "comparison", "set": s, "trees": 2, "repeats": 2, "seed": 1, "n_jobs": 1}
             for s in ("iris", "zoo")]
    calls = []

    def models(*args):
        calls.append(args)
        return small_models(*args)

    first = rg.run_all(tasks, models, out, log=lambda *_: None)
    assert len(calls) == 2 * 2 * 2  # two sets, two repeats, two folds
    assert [json.loads(t)["set"] for t in out.read_text().splitlines()] == ["iris", "zoo"]
    # the run stopped while writing the second line
    text = out.read_text()
    out.write_text(text[: text.index('{"mode"', 1) + 40])
    calls.clear()
    again = rg.run_all(tasks, models, out, log=lambda *_: None)
    assert len(calls) == 2 * 2  # only zoo again
    for a, b in zip(first, again, strict=True):
        assert a["accuracy"] == b["accuracy"]
    # a third start does nothing; the cut line is kept apart and ignored
    calls.clear()
    rg.run_all(tasks, models, out, log=lambda *_: None)
    assert not calls
    assert [x["set"] for x in rg.read_lines(out)] == ["iris", "zoo"]
    # other settings are other tasks
    rg.run_all([{**tasks[0], "trees": 3}], models, out, log=lambda *_: None)
    assert len(calls) == 4
    # every fold's accuracy is the model's score on that fold's test rows
    data = treelab.datasets.load_uci("iris")
    protocol = treelab.protocols.StratifiedKFold(2, n_repeats=2, random_state=1)
    for repeat, fold, tr, te in protocol.indices(data.y):
        est = small_models(2, 1 + repeat, 1)["MMDT standard"].fit(data.X[tr], data.y[tr])
        assert first[0]["accuracy"]["MMDT standard"][repeat][fold] == est.score(data.X[te],
                                                                                  data.y[te])
