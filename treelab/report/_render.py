"""Rendering a table of formatted cells as Markdown, LaTeX (booktabs) or HTML (pandas Styler).

Every builder of :mod:`treelab.report` produces a DataFrame of display strings plus a boolean
mask of the cells to emphasise (the best value of a row); the three formats below render that
pair, so the same table reads alike in a terminal, a paper and a notebook.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["fmt", "to_html", "to_latex", "to_markdown"]


def fmt(value: Any, digits: int) -> str:
    """A number rounded to ``digits`` decimals; empty for a missing one; other values as text."""
    if value is None:
        return ""
    if isinstance(value, bool | np.bool_):
        return str(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _index_frame(cells: pd.DataFrame) -> pd.DataFrame:
    names = [n if n is not None else "" for n in cells.index.names]
    frame = cells.copy()
    frame.index = frame.index.set_names(names)
    return frame.reset_index()


def to_markdown(cells: pd.DataFrame, bold: pd.DataFrame | None = None,
                caption: str | None = None) -> str:
    """A Markdown (GitHub / MyST) table: the index as the first columns, ``bold`` cells in
    ``**...**``, ``caption`` as a line below."""
    shown = cells.astype(str)
    if bold is not None:
        shown = shown.where(~bold.reindex_like(shown).fillna(False).astype(bool),
                            "**" + shown + "**")
    frame = _index_frame(shown)
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |"
            for row in frame.itertuples(index=False)]
    text = "\n".join([head, rule, *body])
    return f"{text}\n\n{caption}" if caption else text


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                  "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "\\": r"\textbackslash{}"}


def _latex_escape(text: str) -> str:
    text = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
    return text.replace("±", r"$\pm$")


def to_latex(cells: pd.DataFrame, bold: pd.DataFrame | None = None,
             caption: str | None = None) -> str:
    r"""A LaTeX ``tabular`` with booktabs rules (``\toprule``, ``\midrule``, ``\bottomrule``);
    ``bold`` cells in ``\textbf``; ``caption`` in a ``table`` float."""
    mask = (bold.reindex_like(cells).fillna(False).astype(bool) if bold is not None
            else pd.DataFrame(False, index=cells.index, columns=cells.columns))
    frame = _index_frame(cells.astype(str))
    n_index = frame.shape[1] - cells.shape[1]
    lines = [r"\begin{tabular}{" + "l" * n_index + "r" * cells.shape[1] + "}", r"\toprule",
             " & ".join(_latex_escape(str(c)) for c in frame.columns) + r" \\", r"\midrule"]
    for i, row in enumerate(frame.itertuples(index=False)):
        out = []
        for j, v in enumerate(row):
            text = _latex_escape(str(v))
            if j >= n_index and mask.iat[i, j - n_index] and text:
                text = r"\textbf{" + text + "}"
            out.append(text)
        lines.append(" & ".join(out) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    body = "\n".join(lines)
    if caption:
        return "\n".join([r"\begin{table}", r"\centering", r"\caption{" + _latex_escape(caption)
                          + "}", body, r"\end{table}"])
    return body


def to_html(cells: pd.DataFrame, bold: pd.DataFrame | None = None,
            caption: str | None = None) -> Any:
    """A :class:`pandas.io.formats.style.Styler` (needs jinja2): ``bold`` cells in bold;
    ``.to_html()`` gives the HTML, a notebook shows it as it is."""
    styler = cells.astype(str).style
    if bold is not None:
        mask = bold.reindex_like(cells).fillna(False).astype(bool)
        styler = styler.apply(lambda _: np.where(mask.values, "font-weight: bold", ""),
                              axis=None)
    if caption:
        styler = styler.set_caption(caption)
    return styler
