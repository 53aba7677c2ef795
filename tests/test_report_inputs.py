"""treelab.report on hostile inputs: names with markup, names of the footer rows, duplicate and
two-level labels, methods without values, too few data sets or methods, NumPy integers as
options. Every rendered table is read back by an independent reader of its format
(tests/report_readers.py) and compared with the names and numbers given."""

import re

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from report_readers import html_rows, latex_rows, markdown_rows

from treelab.report import compare, table

MARKUP = ["<script>alert(1)</script>", "a & b", "x|y", "two\nlines", "*star* _u_ `c`",
          r"back\slash $x$ [l](u) ~~s~~ #1 %"]


def _body(rows):
    """Rows of an HTML table below its two header rows (methods; the index's name)."""
    return rows[2:]


def test_markup_in_names_is_escaped_for_each_format():
    values = np.arange(12, dtype=float).reshape(6, 2) / 100
    frame = pd.DataFrame(values, index=pd.Index(MARKUP, name="dataset"),
                         columns=["m|1", "<b>m2</b>"])
    t = table(frame, scale=100, digits=1)
    shown = [f"{v:.1f}" for v in values.ravel() * 100]

    md = markdown_rows(t.to_markdown())
    assert md[0] == ["dataset", "m|1", "<b>m2</b>"]
    assert [r[0] for r in md[1:7]] == MARKUP
    assert [c for r in md[1:7] for c in r[1:]] == shown
    assert [r[0] for r in md[7:]] == ["average rank", "w/t/l vs m|1"]
    # the caption names the reference as text, not as markup
    caption = t.to_markdown().split("\n\n", 1)[1]
    assert "<b>" not in caption and "m|1" in caption

    latex = latex_rows(t.to_latex())
    assert latex[0] == ["dataset", "m|1", "<b>m2</b>"]
    assert [r[0] for r in latex[1:7]] == [n.replace("\n", " ") for n in MARKUP]
    assert [c for r in latex[1:7] for c in r[1:]] == shown
    assert len(latex) == 9  # header, 6 data rows, 2 footers: no name split a row

    rows, caption = html_rows(t.to_html().to_html())
    body = _body(rows)
    assert [r[0] for r in body[:6]] == MARKUP
    assert [c for r in body[:6] for c in r[1:]] == shown
    assert ["m|1", "<b>m2</b>"] == rows[0][1:]
    assert "w/t/l vs m|1" in caption or "m|1" in caption


def test_footer_names_are_data_rows_of_their_own():
    frame = pd.DataFrame({"A": [0.1, 0.3, 0.2], "B": [0.2, 0.25, 0.4]},
                         index=["average rank", "w/t/l vs A", "z"])
    t = table(frame, digits=2)
    md = markdown_rows(t.to_markdown())
    assert md[1:4] == [["average rank", "0.10", "0.20"], ["w/t/l vs A", "0.30", "0.25"],
                       ["z", "0.20", "0.40"]]
    # ranks by hand: A 1, 2, 1 -> 4/3; B 2, 1, 2 -> 5/3
    assert md[4] == ["average rank", "1.33", "1.67"]
    assert md[5] == ["w/t/l vs A", "", "1/0/2"]
    text, bold = t.cells()
    assert text.shape == (5, 2) and bold.shape == (5, 2)
    assert text.iloc[0].tolist() == ["0.10", "0.20"]

    paper = pd.DataFrame({"A": [1.0, 2.0]}, index=["mean |gap|", "Spearman rho"])
    mine = pd.DataFrame({"A": [1.5, 2.0]}, index=["mean |gap|", "Spearman rho"])
    md = markdown_rows(compare(paper, mine).to_markdown())
    assert md[1] == ["mean |gap|", "1.0", "1.5", "+0.5"]
    assert md[2] == ["Spearman rho", "2.0", "2.0", "+0.0"]
    assert md[3] == ["mean |gap|", "", "", "0.2"]  # (0.5 + 0) / 2, one decimal
    assert md[4][0] == "Spearman rho"


def test_method_without_values_is_reported_not_dropped():
    frame = pd.DataFrame({"A": [0.1, 0.3, 0.2, 0.4], "C": np.nan,
                          "B": [0.2, 0.25, 0.3, 0.5]}, index=list("wxyz"))
    t = table(frame)
    assert list(t.mean.columns) == ["A", "C", "B"]
    assert t.unranked == ("C",)
    assert np.isnan(t.average_rank["C"])
    # ranks of A and B by hand: A 1 2 1 1, B 2 1 2 2; chi2_F = 12 N / (k (k + 1)) [sum R^2 -
    # k (k + 1)^2 / 4] = 8 (1.25^2 + 1.75^2 - 4.5) = 1
    assert t.average_rank[["A", "B"]].tolist() == [1.25, 1.75]
    assert t.friedman_chi2 == pytest.approx(1.0)
    assert t.friedman_p == pytest.approx(scipy.stats.chi2.sf(1.0, 1))
    assert "C" not in t.wins_ties_losses.index
    md = markdown_rows(t.to_markdown())
    assert md[0] == ["dataset", "A", "C", "B"] and all(r[2] == "" for r in md[1:])
    assert "not ranked): C." in t.caption()
    with pytest.raises(ValueError, match="reference='C' has no value on any data set"):
        table(frame, reference="C")
    assert table(frame.iloc[:, ::-1]).reference == "B"  # the first method with values


def test_missing_values_refused_naming_results_and_the_cell():
    da = xr.DataArray(np.random.default_rng(0).uniform(size=(3, 3, 1, 4)),
                      dims=("dataset", "ensemble", "repeat", "fold"),
                      coords={"ensemble": ["A", "B", "C"], "dataset": ["p", "q", "r"]})
    da[1, :, 0, 2] = np.nan  # one fold of data set q, every method
    with pytest.raises(ValueError, match=r"results has no value for dataset='q', "
                                         r"ensemble='A' \(a NaN at some repeat or fold"):
        table(da)
    one = da.isel(dataset=[1])  # only that data set: nothing left to rank
    with pytest.raises(ValueError, match="results has no value to rank: every method"):
        table(one)


@pytest.mark.parametrize("frame, what", [
    (pd.DataFrame([[0.1, 0.2, 0.3], [0.3, 0.1, 0.2]], columns=["A", "A", "B"]),
     r"methods \(columns\) \['A'\]"),
    (pd.DataFrame([[0.1, 0.2], [0.3, 0.1]], columns=["A", "B"], index=["x", "x"]),
     r"data sets \(rows\) \['x'\]"),
    (xr.DataArray([[0.1, 0.2], [0.3, 0.1]], dims=("dataset", "ensemble"),
                  coords={"ensemble": ["A", "A"]}), r"methods \(along 'ensemble'\) \['A'\]"),
    (pd.DataFrame([[0.1, 0.2], [0.3, 0.1]], columns=["A", "B"],
                  index=pd.MultiIndex.from_tuples([("a / b", "c"), ("a", "b / c")])),
     r"data sets \(rows\) \['a / b / c'\]"),
])
def test_duplicate_labels_are_refused(frame, what):
    with pytest.raises(ValueError, match=f"results has {what} more than once"):
        table(frame)


def test_two_level_index_is_flattened_by_the_documented_rule():
    values = [[0.1, 0.2], [0.3, 0.25], [0.2, 0.4]]
    rows = pd.MultiIndex.from_tuples([("UCI", "iris"), ("UCI", "wine"), ("gen", 1)],
                                     names=["source", "dataset"])
    cols = pd.MultiIndex.from_tuples([("RF", 10), ("RF", 100)])
    t = table(pd.DataFrame(values, index=rows, columns=cols), digits=2,
              dim_dataset="source / dataset")
    flat = pd.DataFrame(values, index=pd.Index(["UCI / iris", "UCI / wine", "gen / 1"],
                                               name="source / dataset"),
                        columns=["RF / 10", "RF / 100"])
    ref = table(flat, digits=2, dim_dataset="source / dataset")
    assert t.mean.index.tolist() == ref.mean.index.tolist() == flat.index.tolist()
    assert t.mean.columns.tolist() == ["RF / 10", "RF / 100"]
    assert t.to_markdown() == ref.to_markdown()
    assert markdown_rows(t.to_markdown())[0] == ["source / dataset", "RF / 10", "RF / 100"]


def test_fewer_than_two_data_sets_or_methods_give_nan_friedman():
    one_set = pd.DataFrame({"A": [0.3], "B": [0.1], "C": [0.2]})
    t = table(one_set)
    assert np.isnan(t.friedman_chi2) and np.isnan(t.friedman_p)
    assert np.isnan(t.iman_davenport_f) and np.isnan(t.iman_davenport_p)
    assert t.average_rank.tolist() == [3.0, 1.0, 2.0]
    assert "Friedman test not computed" in t.caption()
    one_method = pd.DataFrame({"A": [0.3, 0.1]})
    t = table(one_method, greater_is_better=True)
    assert np.isnan(t.friedman_chi2) and t.average_rank.tolist() == [1.0]
    assert t.wins_ties_losses is None


def test_numpy_integers_are_accepted_as_scale_and_digits():
    frame = pd.DataFrame({"A": [0.1, 0.3], "B": [0.2, 0.25]})
    a = table(frame, scale=np.int64(100), digits=np.int64(2))
    b = table(frame, scale=100, digits=2)
    assert a.to_markdown() == b.to_markdown() and a.digits == 2
    assert "10.00" in a.to_markdown()
    c = compare(frame, frame + 1, digits=np.int32(2))
    assert "+1.00" in c.to_markdown()
    for bad in (np.float64("nan"), float("inf"), -1, True):
        with pytest.raises(ValueError, match="scale must be a positive number"):
            table(frame, scale=bad)


def test_compare_refuses_bad_digits_and_duplicate_labels():
    frame = pd.DataFrame({"A": [1.0, 2.0]}, index=["x", "y"])
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="digits must be a non-negative int"):
            compare(frame, frame, digits=bad)
    twice = pd.DataFrame({"A": [1.0, 2.0]}, index=["x", "x"])
    with pytest.raises(ValueError, match=r"treelab has the row labels \['x'\] more than once"):
        compare(frame, twice)
    with pytest.raises(ValueError, match=r"paper has the column labels \['A'\]"):
        compare(pd.concat([frame, frame], axis=1), frame)
    with pytest.raises(TypeError, match="labels must be two strings"):
        compare(frame, frame, labels=("paper",))


def test_html_caption_and_cells_carry_no_markup():
    frame = pd.DataFrame({"<i>A</i>": [0.1, 0.3], "B": [0.2, 0.25]},
                         index=["<script>x</script>", "y"])
    html = table(frame, measure="err <b>").to_html().to_html()
    assert "<script>" not in html and "<i>" not in html and "<b>" not in html
    rows, caption = html_rows(html)
    assert "err <b>" in caption and "<i>A</i>" in caption
    assert re.search(r"&lt;script&gt;x&lt;/script&gt;", html)
