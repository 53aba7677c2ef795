"""Rendering a table of formatted cells as Markdown, LaTeX (booktabs) or HTML (pandas Styler).

Every builder of :mod:`treelab.report` produces a DataFrame of display strings plus a boolean
mask of the cells to emphasise (the best value of a row) and, apart from them, footer rows
(average ranks, wins/ties/losses, mean gaps); the three formats below render them, so the same
table reads alike in a terminal, a paper and a notebook.

Every label and cell is text, never markup: each format escapes what its syntax would read
otherwise (Markdown: the table's ``|``, inline markup and raw HTML; LaTeX: its special
characters; HTML: ``<``, ``>``, ``&`` and quotes), and a line break inside a label stays inside
its cell (``<br>`` in Markdown and HTML, a space in LaTeX). Footer rows always follow the data
rows, whatever the data rows are called (LaTeX sets them off with a ``\\midrule``).
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["fmt", "markdown_text", "to_html", "to_latex", "to_markdown"]

#: Line breaks of ``str.splitlines`` (a Markdown or LaTeX row must stay on one line).
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


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


#: Characters that Markdown (CommonMark, GitHub tables, MyST's dollar math) may read as
#: syntax anywhere in a cell; each is backslash-escaped. ``_`` is escaped only where it can
#: open or close emphasis (not between two letters or digits: ``phi_e`` stays as it is).
_MD_SPECIAL = frozenset("\\`*[]<>&|~$")


def markdown_text(value: Any) -> str:
    """``value`` as literal text in a Markdown table cell (or paragraph): markup characters
    backslash-escaped, line breaks as ``<br>``."""
    text = str(value)
    out = []
    for i, ch in enumerate(text):
        if ch in _MD_SPECIAL or (ch == "_" and not (
                0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum())):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return _LINE_BREAK.sub("<br>", "".join(out))


def _mask(bold: pd.DataFrame | None, cells: pd.DataFrame) -> np.ndarray:
    """The emphasis mask as booleans aligned with ``cells`` (by position when the labels are
    the same, so that repeated labels need no lookup)."""
    if bold is None:
        return np.zeros(cells.shape, dtype=bool)
    if bold.shape == cells.shape and bold.index.equals(cells.index) \
            and bold.columns.equals(cells.columns):
        aligned = bold
    else:
        aligned = bold.reindex_like(cells)
    return aligned.fillna(False).to_numpy(dtype=bool)


def _labels(cells: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """The header (index names, then the columns) and every row (its index labels, then its
    cells), as plain strings."""
    names = [str(n) if n is not None else "" for n in cells.index.names]
    head = names + [str(c) for c in cells.columns]
    rows = []
    for label, values in zip(cells.index, cells.itertuples(index=False), strict=True):
        keys = list(label) if isinstance(cells.index, pd.MultiIndex) else [label]
        rows.append([str(k) for k in keys] + [str(v) for v in values])
    return head, rows


def _checked_footer(cells: pd.DataFrame, footer: pd.DataFrame | None) -> pd.DataFrame | None:
    if footer is None or footer.empty:
        return None
    if list(footer.columns) != list(cells.columns) or footer.index.nlevels != cells.index.nlevels:
        raise ValueError("footer must have the columns and index levels of cells")
    return footer


def to_markdown(cells: pd.DataFrame, bold: pd.DataFrame | None = None,
                caption: str | None = None, footer: pd.DataFrame | None = None) -> str:
    """A Markdown (GitHub / MyST) table: the index as the first columns, ``bold`` cells in
    ``**...**``, the ``footer`` rows after the data rows, ``caption`` as a line below; every
    label and cell escaped (:func:`markdown_text`)."""
    footer = _checked_footer(cells, footer)
    mask = _mask(bold, cells)
    head, rows = _labels(cells.astype(str))
    n_index = len(head) - cells.shape[1]
    if footer is not None:
        rows += _labels(footer.astype(str))[1]
    lines = ["| " + " | ".join(markdown_text(h) for h in head) + " |",
             "|" + "---|" * len(head)]
    for i, row in enumerate(rows):
        out = []
        for j, v in enumerate(row):
            text = markdown_text(v)
            if j >= n_index and i < mask.shape[0] and mask[i, j - n_index] and text:
                text = f"**{text}**"
            out.append(text)
        lines.append("| " + " | ".join(out) + " |")
    text = "\n".join(lines)
    if not caption:
        return text
    return f"{text}\n\n{_LINE_BREAK.sub(' ', _markdown_caption(caption))}"


def _markdown_caption(caption: str) -> str:
    """A caption as a paragraph: escaped like a cell, except ``|`` (no table to break)."""
    return markdown_text(caption).replace("\\|", "|")


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                  "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "\\": r"\textbackslash{}"}


def _latex_escape(text: str) -> str:
    text = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in _LINE_BREAK.sub(" ", str(text)))
    return text.replace("±", r"$\pm$")


def to_latex(cells: pd.DataFrame, bold: pd.DataFrame | None = None,
             caption: str | None = None, footer: pd.DataFrame | None = None) -> str:
    r"""A LaTeX ``tabular`` with booktabs rules (``\toprule``, ``\midrule``, ``\bottomrule``);
    ``bold`` cells in ``\textbf``; the ``footer`` rows after a ``\midrule`` below the data;
    ``caption`` in a ``table`` float. Line breaks in labels become spaces."""
    footer = _checked_footer(cells, footer)
    mask = _mask(bold, cells)
    head, rows = _labels(cells.astype(str))
    n_index = len(head) - cells.shape[1]
    lines = [r"\begin{tabular}{" + "l" * n_index + "r" * cells.shape[1] + "}", r"\toprule",
             " & ".join(_latex_escape(c) for c in head) + r" \\", r"\midrule"]
    for i, row in enumerate(rows):
        out = []
        for j, v in enumerate(row):
            text = _latex_escape(v)
            if j >= n_index and mask[i, j - n_index] and text:
                text = r"\textbf{" + text + "}"
            out.append(text)
        lines.append(" & ".join(out) + r" \\")
    if footer is not None:
        lines.append(r"\midrule")
        lines += [" & ".join(_latex_escape(v) for v in row) + r" \\"
                  for row in _labels(footer.astype(str))[1]]
    lines += [r"\bottomrule", r"\end{tabular}"]
    body = "\n".join(lines)
    if caption:
        return "\n".join([r"\begin{table}", r"\centering", r"\caption{" + _latex_escape(caption)
                          + "}", body, r"\end{table}"])
    return body


def _html_text(value: Any) -> str:
    return _LINE_BREAK.sub("<br>", html.escape(str(value), quote=True))


def _html_index(index: pd.Index) -> pd.Index:
    names = [None if n is None else _html_text(n) for n in index.names]
    if isinstance(index, pd.MultiIndex):
        out = pd.MultiIndex.from_tuples([tuple(_html_text(k) for k in t) for t in index])
    else:
        out = pd.Index([_html_text(k) for k in index], dtype=object)
    return out.set_names(names)


def to_html(cells: pd.DataFrame, bold: pd.DataFrame | None = None,
            caption: str | None = None, footer: pd.DataFrame | None = None) -> Any:
    """A :class:`pandas.io.formats.style.Styler` (needs jinja2): every label and cell
    HTML-escaped, ``bold`` cells in bold, the ``footer`` rows after the data rows (a rule
    above them); ``.to_html()`` gives the HTML, a notebook shows it as it is."""
    footer = _checked_footer(cells, footer)
    mask = _mask(bold, cells)
    shown = cells.astype(str).map(_html_text)
    shown = shown.where(~mask | (shown == ""),
                        '<span style="font-weight: bold">' + shown + "</span>")
    n_body = len(shown)
    if footer is not None:
        shown = pd.concat([shown, footer.astype(str).map(_html_text)])
    shown.index = _html_index(shown.index)
    shown.columns = _html_index(shown.columns)
    styler = shown.style
    if footer is not None:
        styler = styler.set_table_styles([{"selector": f"tbody tr:nth-child({n_body + 1})",
                                           "props": "border-top: 1px solid"}])
    if caption:
        styler = styler.set_caption(_html_text(caption))
    return styler
