"""Property-based sweep of report tables (issue 39): data set and method names drawn with the
markup characters of Markdown, LaTeX and HTML (and line breaks) must come back, each in its
own cell, from an independent reader of every format (tests/report_readers.py), with the
numbers in their places and the footer rows after the data rows.

The profile is fixed (derandomized, a bounded number of examples, no deadline), so the sweep is
the same on every run.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from report_readers import html_rows, latex_rows, markdown_rows

from treelab.report import compare, table

SWEEP = settings(derandomize=True, max_examples=40, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow])

#: letters and every character one of the three formats reads as syntax
MARKUP = "ab1 <>&|*_`[]()~$#%{}^\\!\"'=-+:\n\r"


def _name():
    return st.text(alphabet=MARKUP, min_size=1, max_size=8).filter(
        lambda s: s.strip() == s and s != "")


@st.composite
def named_tables(draw):
    datasets = draw(st.lists(_name(), min_size=2, max_size=4, unique=True))
    methods = draw(st.lists(_name(), min_size=2, max_size=3, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    values = rng.uniform(0, 1, size=(len(datasets), len(methods))).round(6)
    return pd.DataFrame(values, index=pd.Index(datasets, name="dataset"), columns=methods)


def _breaks(text, to):
    return re.sub(r"\r\n|[\r\n]", to, text)


@SWEEP
@given(frame=named_tables())
def test_markup_names_come_back_from_every_format(frame):
    t = table(frame)
    names, methods = list(frame.index), list(frame.columns)
    n = len(names)
    shown = [[f"{v:.3f}" for v in row] for row in frame.to_numpy()]

    md = markdown_rows(t.to_markdown(caption=False))
    assert md[0] == ["dataset"] + [_breaks(m, "\n") for m in methods]
    assert [r[0] for r in md[1:n + 1]] == [_breaks(x, "\n") for x in names]
    assert [r[1:] for r in md[1:n + 1]] == shown
    assert md[n + 1][0] == "average rank" and len(md) == n + 3
    assert all(len(r) == len(methods) + 1 for r in md)

    latex = latex_rows(t.to_latex(caption=False))
    assert latex[0] == ["dataset"] + [_breaks(m, " ") for m in methods]
    assert [r[0] for r in latex[1:n + 1]] == [_breaks(x, " ") for x in names]
    assert [r[1:] for r in latex[1:n + 1]] == shown
    assert len(latex) == n + 3

    rows, _ = html_rows(t.to_html().to_html())
    assert rows[0][1:] == [_breaks(m, "\n") for m in methods]
    assert [r[0] for r in rows[2:n + 2]] == [_breaks(x, "\n") for x in names]
    assert [r[1:] for r in rows[2:n + 2]] == shown
    assert [r[0] for r in rows[n + 2:]] == ["average rank",
                                            _breaks(f"w/t/l vs {methods[0]}", "\n")]


@SWEEP
@given(frame=named_tables())
def test_markup_names_come_back_from_a_comparison(frame):
    c = compare(frame, frame + 0.5, digits=2)
    names = [_breaks(x, "\n") for x in frame.index]
    md = markdown_rows(c.to_markdown(caption=False))
    n = len(names)
    assert [r[0] for r in md[1:n + 1]] == names
    assert md[0][1] == _breaks(f"{frame.columns[0]} (paper)", "\n")
    assert all(r[3] == "+0.50" for r in md[1:n + 1])
    assert md[n + 1][0] == "mean |gap|" and md[n + 1][3] == "0.50"
    latex = latex_rows(c.to_latex(caption=False))
    assert [r[0] for r in latex[1:n + 1]] == [_breaks(x, " ") for x in frame.index]
