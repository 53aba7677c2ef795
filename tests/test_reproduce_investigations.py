"""The investigations that explain the reproductions' verdicts (treelab.reproduce.
STUDY_investigation), each part run on a tiny configuration, its numbers checked against hand
computations, and the ``treelab investigate`` command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import studentized_range

from treelab.cli import main as cli_main
from treelab.reproduce import alipazzani1995_investigation as ali
from treelab.reproduce import gashler2008_investigation as gashler
from treelab.reproduce import liu2008_investigation as liu
from treelab.reproduce import paper_table

# --- Liu et al. (2008) -------------------------------------------------------------------------


def test_liu_ranks_are_the_hand_worked_average_ranks_and_critical_difference():
    # three methods on four sets; ranks per row (1 = lowest error):
    # s1: a 1, b 2, c 3; s2: a 1, b 3, c 2; s3: a 1.5, b 1.5, c 3; s4: a 2, b 1, c 3
    table = pd.DataFrame({"a": [1.0, 1.0, 2.0, 5.0], "b": [2.0, 9.0, 2.0, 4.0],
                          "c": [3.0, 5.0, 7.0, 8.0]}, index=["s1", "s2", "s3", "s4"])
    frame = liu.ranks(table, boot=50)["all methods"]
    assert frame["average rank"].to_dict() == {"a": 5.5 / 4, "b": 7.5 / 4, "c": 11 / 4}
    assert list(frame.index) == ["a", "b", "c"]
    assert frame["mean error"]["b"] == pytest.approx(17 / 4)
    # Demsar (2006): CD = q_0.05(k, inf) / sqrt(2) * sqrt(k (k + 1) / (6 n)), k = 3, n = 4
    q = studentized_range.ppf(0.95, 3, np.inf)
    assert frame.attrs["critical_difference"] == pytest.approx(q / np.sqrt(2) * np.sqrt(0.5))
    assert frame.attrs["n"] == 4
    shares = frame["best rank in bootstrap resamples"]
    assert shares.sum() == pytest.approx(1.0) and shares["a"] > 0.5


def test_liu_ranks_on_the_shipped_table_leave_c5_out_of_the_second_frame():
    got = liu.ranks(boot=20)
    assert "c5_boost" in got["all methods"].index
    assert "c5_boost" not in got["without C5 boosting"].index
    assert got["all methods"].attrs["n"] == len(liu.load_table().dropna())
    with pytest.raises(ValueError, match="boot"):
        liu.ranks(boot=0)


def test_liu_datasets_set_the_bundle_beside_table6():
    frame = liu.datasets()
    assert list(frame.index) == list(liu.BUNDLE)
    assert set(frame["same?"]) <= {"yes", "NO"}
    t6 = paper_table("liu2008_table6").set_index("dataset")
    assert frame.loc["iris", "size (paper)"] == f"150 ({t6.loc['iris', 'size']})"


def test_liu_encoding_splits_the_comparable_sets_in_two():
    frame = liu.encoding()
    assert list(frame.columns) == ["n", "Coalescence gap", "RF gap"]
    assert frame["n"].sum() > 0
    assert frame.loc["numeric columns with missing values in string order", "n"] == len(
        frame.attrs["string_ordered"])
    assert np.isfinite(frame.loc["the other comparable sets", ["Coalescence gap", "RF gap"]]
                       ).all()


def test_liu_encoding_counts_every_comparable_stored_set_generated_ones_too():
    # the stored Table 3's sets with a paper row, less those that are not the paper's data:
    # the generated sets (threeOf9, balance) count among "the other comparable sets"
    import pandas as pd

    from treelab.reproduce.liu2008 import NOT_COMPARABLE, PRINTED

    stored = set(pd.read_csv(liu.STORED / "table3_folds.csv")["dataset"])
    paper = set(liu.load_table().rename(index=PRINTED).index)
    comparable = (stored & paper) - set(NOT_COMPARABLE)
    assert {"threeOf9", "balance"} <= comparable
    assert int(liu.encoding()["n"].sum()) == len(comparable)


def test_liu_readings_on_one_small_set():
    frame = liu.readings(["iris"], ["default", "uniform"], trees=3, n_folds=3)
    paper = liu.load_table().loc["iris"]
    assert frame.loc["iris", "paper Coalescence"] == paper["coalescence"]
    assert frame.loc["iris", "paper RF"] == paper["random_forests"]
    errors = frame.loc["iris", ["Coalescence default", "Coalescence uniform", "RF average",
                                "RF vote"]]
    assert ((errors >= 0) & (errors <= 100)).all()
    # 150 rows: an error is a whole number of rows
    assert np.allclose(errors * 1.5 - np.round(errors * 1.5), 0)
    gap = frame.loc["mean (treelab - paper)"]
    assert gap["Coalescence uniform"] == pytest.approx(
        errors["Coalescence uniform"] - paper["coalescence"])
    assert gap["RF vote"] == pytest.approx(errors["RF vote"] - paper["random_forests"])
    with pytest.raises(ValueError, match="not investigated"):
        liu.readings(["no-such-set"])


def test_liu_dna_both_encodings_beside_the_paper():
    frame = liu.dna(trees=2, n_folds=2)
    row = paper_table("liu2008_table3").set_index("dataset").loc["dna"]
    assert frame.loc["paper (Table 3)"].tolist() == [float(row["coalescence"]),
                                                      float(row["agg_vrtrees_alpha0"])]
    measured = frame.drop(index="paper (Table 3)")
    assert len(measured) == 2 and ((measured > 0) & (measured < 100)).all().all()


# --- Gashler et al. (2008) ---------------------------------------------------------------------

def _density_page(tmp_path, rows):
    lines = ["intro", "", "| data set | log10 density | entropy trees | MMDT raw | MMDT minmax | "
             "MMDT standard |", "|---|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |" for r in rows]
    path = tmp_path / "page.md"
    path.write_text("\n".join(lines + ["", "after"]) + "\n")
    return path


def test_gashler_density_counts_by_hand(tmp_path):
    # eight sets by log10 density; MMDT raw wins (above entropy trees) on d1, d2, d3, d8
    rows = [(f"d{i}", float(i), 0.8, 0.9 if i in (1, 2, 3, 8) else 0.7, 0.8, 0.9)
            for i in range(1, 9)][::-1]  # the page's order does not matter
    frame = gashler.density(_density_page(tmp_path, rows))
    a = frame[frame["reading"].str.startswith("A")]
    b = frame[frame["reading"].str.startswith("B")]
    # A: densest = lowest density value: half d1-d4 (3 wins), quarter d1-d2 (2), eighth d1 (1),
    # sparsest half d5-d8 (1); B: the other end
    assert a["MMDT raw"].tolist() == ["3 of 4", "2 of 2", "1 of 1", "1 of 4"]
    assert b["MMDT raw"].tolist() == ["1 of 4", "1 of 2", "1 of 1", "3 of 4"]
    assert set(frame["MMDT minmax"]) == {"0 of 4", "0 of 2", "0 of 1"}  # a tie is no win
    paper = gashler.paper_counts()
    assert a.loc["densest half", "paper"] == f"{paper['densest half'][0]} of " \
                                             f"{paper['densest half'][1]}"
    assert frame.attrs["n"] == 8


def test_gashler_density_refuses_a_page_without_the_table(tmp_path):
    page = tmp_path / "empty.md"
    page.write_text("no table here\n")
    with pytest.raises(ValueError, match="no table"):
        gashler.density(page)


def test_gashler_noise_and_its_line_on_a_tiny_grid():
    acc = gashler.noise("iris", ks=(0, 2), trees=2, repeats=1).sort_index()
    assert set(acc.index.unique("model")) == {"ERDT", "MMDT standard", "MMDT none"}
    assert len(acc) == 3 * 2 * 2  # models x k x folds
    fit = gashler.noise_fit(acc)
    for model, row in fit.iterrows():
        y0 = acc.loc[(model, 0), "accuracy"].mean()
        y2 = acc.loc[(model, 2), "accuracy"].mean()
        assert row["k=0"] == pytest.approx(y0) and row["k=2"] == pytest.approx(y2)
        # two points: the line passes through both (slope per doubling over log2(3))
        assert row["slope per doubling"] == pytest.approx((y2 - y0) / np.log2(3))
        if y0 != y2:
            assert row["r^2"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="two numbers"):
        gashler.noise_fit(acc.xs(0, level="k", drop_level=False))
    with pytest.raises(ValueError, match="repeats"):
        gashler.noise("iris", repeats=0)


# --- Ali & Pazzani (1995) ----------------------------------------------------------------------

def test_ali_rows_are_read_from_the_shipped_table2():
    rows = ali.table2_rows()
    t = paper_table("alipazzani1995_table2").set_index("data_set")
    assert rows["Led 8i"][1:] == (int(t.loc["Led 8i", "n_training_examples"]),
                                  float(t.loc["Led 8i", "single_tree_error_pct"]),
                                  float(t.loc["Led 8i", "ensemble11_uniform_voting_error_pct"]))
    assert rows["promoters"][1] is None  # leave-one-out
    assert ali.row_names(["led"]) == ["Led 8i", "Led 17i", "Led 20a", "Led 40a"]
    with pytest.raises(ValueError, match="not investigated"):
        ali.row_names(["no-such-row"])


def test_ali_rows_flip_grid_and_meta_trials_on_tiny_configurations():
    params = ali.learner_params("random")
    led = ali.run_row("Led 8i", 2, params)
    uci = ali.run_row("wine", 1, params, n_train=40)
    for r in (led, uci):
        assert 0 <= r["single"] <= 100 and 0 <= r["ensemble"] <= 100
        assert r["single"] == pytest.approx(100 * np.mean(r["s_err"]))
        if r["single"] > 0:
            assert r["E_r"] == pytest.approx(r["ensemble"] / r["single"])
    assert led["study_single"] == ali.table2_rows()["Led 8i"][2]
    text = ali.summarize([led, uci])
    assert "| Led 8i | 2 |" in text and "| wine | 1 |" in text
    grid = ali.flip_grid([0.0, 0.2], 0, 1, params)
    assert list(grid.index) == [0.0, 0.2]
    assert ((grid[["one tree (%)", "eleven trees (%)"]] >= 0).all()).all()
    meta = ali.meta_trials(["Led 8i"], 1, params, fractions=[5, 10])
    assert [m["n_train"] for m in meta] == [15, 30]
    er = np.array([m["E_r"] for m in meta])
    phi = np.array([m["phi_e"] for m in meta])
    assert "too few points" in ali.fit_line(phi, er, "meta")
    with pytest.raises(ValueError, match="tie_break"):
        ali.learner_params("sometimes")
    with pytest.raises(ValueError, match="attr_noise"):
        ali.run_row("Led 8i", 1, params, attr_noise="swap")


def test_ali_fit_line_is_the_least_squares_line():
    phi = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    er = 0.2 + 0.5 * phi + np.array([0.01, -0.02, 0.015, -0.01, 0.005])
    slope, icept = np.polyfit(phi, er, 1)
    text = ali.fit_line(phi, er, "points")
    assert f"E_r = {icept:.2f} + {slope:.2f} phi_e" in text
    r2 = np.corrcoef(phi, er)[0, 1] ** 2
    assert f"r^2 = {r2:.2f}" in text and "n = 5" in text


def test_significant_reduction_tests():
    # paired t test over trials, one-sided: the ensemble clearly better on every trial
    trials = {"trials": "5", "s_err": [0.3, 0.32, 0.29, 0.31, 0.3],
              "e_err": [0.2, 0.21, 0.2, 0.19, 0.22]}
    assert ali.significant(trials)
    assert not ali.significant({**trials, "e_err": trials["s_err"]})
    assert not ali.significant({"trials": "1", "s_err": [0.3], "e_err": [0.1]})  # no t test
    # leave-one-out: sign test on the discordant rows (8 against 0: p = 0.5^8 < 0.05)
    loo = {"trials": "LOO 10", "s_err": [1.0] * 8 + [0.0, 0.0], "e_err": [0.0] * 10}
    assert ali.significant(loo)
    assert not ali.significant({**loo, "s_err": [1.0] * 4 + [0.0] * 6})  # 0.5^4 > 0.05


# --- the command line --------------------------------------------------------------------------

def test_treelab_investigate_runs_a_part_and_refuses_an_unknown_study(capsys):
    assert cli_main(["investigate", "liu2008", "ranks", "--boot", "5"]) == 0
    out = capsys.readouterr().out
    assert "Nemenyi CD (0.05)" in out and "| coalescence" in out
    with pytest.raises(SystemExit):
        cli_main(["investigate", "no-such-study"])
