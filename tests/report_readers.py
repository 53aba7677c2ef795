"""Independent readers of the three table formats of treelab.report, for the tests: each parses
the rendered text back into rows of plain cell strings the way a renderer of that format reads
it (GitHub/CommonMark table cells, LaTeX tabular rows, the HTML table's cells), without any of
treelab's rendering code."""

from __future__ import annotations

import re
import string
from html.parser import HTMLParser

#: CommonMark's backslash escapes: any ASCII punctuation character.
_MD_ESCAPE = re.compile(r"\\([" + re.escape(string.punctuation) + r"])")


def markdown_rows(text: str) -> list[list[str]]:
    """The rows of the first Markdown table in ``text`` (header first, the delimiter row left
    out): a row is one line; cells split at unescaped ``|``; a cell's backslash escapes
    resolved, ``<br>`` read as a line break and ``**...**`` (bold) removed."""
    rows = []
    for line in text.split("\n"):
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells, cell, i = [], "", 1
        while i < len(line):
            ch = line[i]
            if ch == "\\" and i + 1 < len(line):
                cell += line[i:i + 2]
                i += 2
                continue
            if ch == "|":
                cells.append(cell)
                cell = ""
            else:
                cell += ch
            i += 1
        if set("".join(cells)) <= set("-| "):
            continue  # the delimiter row
        out = []
        for c in cells:
            c = c.strip()
            if c.startswith("**") and c.endswith("**") and len(c) >= 4:
                c = c[2:-2]
            # an unescaped <br> is a line break; an escaped one (\<br\>) is text
            out.append(_MD_ESCAPE.sub(r"\1", c.replace("<br>", "\n")))
        rows.append(out)
    return rows


_LATEX_UNESCAPE = [(r"\textbackslash{}", "\\"), (r"\textasciitilde{}", "~"),
                   (r"\textasciicircum{}", "^"), (r"$\pm$", "±")] + [
    ("\\" + ch, ch) for ch in "&%$#_{}"]


def latex_rows(text: str) -> list[list[str]]:
    """The rows of the tabular in ``text`` (header first, rules left out): rows end at
    ``\\\\``, cells split at unescaped ``&``, ``\\textbf{...}`` removed, escapes resolved."""
    body = text[text.index(r"\toprule"):text.index(r"\bottomrule")]
    body = body.replace(r"\toprule", "").replace(r"\midrule", "")
    pattern = "|".join(re.escape(k) for k, _ in _LATEX_UNESCAPE)
    lookup = dict(_LATEX_UNESCAPE)
    rows = []
    for raw in body.split(r" \\")[:-1]:
        cells = re.split(r"(?<!\\) & ", " " + raw.strip("\n") + " ")
        out = []
        for c in cells:
            c = c.strip()
            m = re.fullmatch(r"\\textbf\{(.*)\}", c)
            if m:
                c = m.group(1)
            # one pass over the escapes, left to right (an escaped backslash is not an escape)
            out.append(re.sub(pattern, lambda m: lookup[m.group(0)], c))
        rows.append(out)
    return rows


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.caption = ""
        self._cell: list[str] | None = None
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")
        elif tag == "br" and self._in_caption:
            self.caption += "\n"
        elif tag == "caption":
            self._in_caption = True
        elif tag not in ("span", "table", "thead", "tbody", "style"):
            raise AssertionError(f"unexpected tag <{tag}> in the rendered HTML")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "caption":
            self._in_caption = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        elif self._in_caption:
            self.caption += data


def html_rows(text: str) -> tuple[list[list[str]], str]:
    """The cells of every row of the HTML table (header rows first) and its caption, as the
    browser's text (entities resolved, ``<br>`` a line break); any tag besides the table's own
    and ``span`` fails."""
    parser = _Cells()
    parser.feed(text)
    return parser.rows, parser.caption
