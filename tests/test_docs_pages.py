"""The Measures pages of the documentation name the tests that check each measure: every test
file and test they name must exist, so a renamed or removed test cannot leave a page pointing
at nothing."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs" / "measures").glob("*.md"))
# `tests/test_x.py::test_y`, or `::test_y` for another test of the file named last
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)?::(test_\w+)")
TEST_FILE = re.compile(r"\btests/[\w/]+\.py\b")


def named_tests(page: Path) -> list[tuple[str, str]]:
    found, current = [], None
    for match in REFERENCE.finditer(page.read_text(encoding="utf-8")):
        current = match.group(1) or current
        assert current is not None, f"{page.name}: `::{match.group(2)}` names no test file"
        found.append((current, match.group(2)))
    return found


def test_reference_pattern_reads_both_forms(tmp_path):
    page = tmp_path / "probe.md"
    page.write_text("`tests/test_a.py::test_one`, `::test_two` and "
                    "`tests/b/test_c.py::test_three`", encoding="utf-8")
    assert named_tests(page) == [("tests/test_a.py", "test_one"), ("tests/test_a.py", "test_two"),
                                 ("tests/b/test_c.py", "test_three")]


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "index.md"],
                         ids=lambda p: p.stem)
def test_measure_page_names_existing_tests(page):
    text = page.read_text(encoding="utf-8")
    files = sorted(set(TEST_FILE.findall(text)))
    assert files, f"docs/measures/{page.name} names no test that checks its measures"
    for path in files:
        assert (ROOT / path).is_file(), (
            f"docs/measures/{page.name} names {path}, which does not exist")
    for path, name in named_tests(page):
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.MULTILINE), (
            f"docs/measures/{page.name} names {path}::{name}, which does not exist")


_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$|```.+?```|`[^`\n]+`", re.S)
_ASCII_FORMULA = re.compile(r"\b[A-Za-z]\^\w|\bsum_[a-z{]|\bsqrt\(|\bargmax\b")


def ascii_formulas(text: str) -> list[str]:
    """Formulas written in ASCII (``N^11 N^00``, ``sum_i``) outside math and code."""
    return [line.strip() for line in _MATH.sub("", text).splitlines()
            if _ASCII_FORMULA.search(line)]


def test_ascii_formula_check_can_fail():
    assert ascii_formulas("Q = (N^11 N^00 - N^01 N^10)\nfine $N^{11}$ `x^2`") == [
        "Q = (N^11 N^00 - N^01 N^10)"]


def test_diversity_workbench_writes_formulas_as_math_and_no_wide_table():
    # the page wrote its formulas in ASCII and had a table the theme clipped
    # ("matrices (..., tre")
    text = (ROOT / "docs" / "measures" / "diversity_workbench.md").read_text(encoding="utf-8")
    assert ascii_formulas(text) == []
    wide = [line for line in text.splitlines() if line.startswith("|") and len(line) > 100]
    assert wide == []


#: Longest row of a display formula, in characters of LaTeX source: a longer one is wider
#: than the text column (the first formula of strength_correlation.md, 198 characters on one
#: row, was cut after "var(s)"); several equations go on rows of their own (gathered).
FORMULA_ROW = 130


def formula_rows(text: str) -> list[str]:
    rows = []
    for block in re.findall(r"\$\$(.+?)\$\$", text, re.S):
        body = re.sub(r"\\(begin|end)\{\w+\*?\}", "", " ".join(block.split()))
        rows += [row.strip() for row in body.split("\\\\")]
    return rows


def test_display_formulas_fit_the_text_column():
    assert max(map(len, formula_rows("$$a = 1, \\qquad b = 2$$"))) < FORMULA_ROW
    wide = {page.name: len(row) for page in PAGES
            for row in formula_rows(page.read_text(encoding="utf-8")) if len(row) > FORMULA_ROW}
    assert wide == {}, f"display formulas wider than the text column: {wide}"


def test_wide_tables_keep_their_first_column_and_formulas_scroll():
    css = (ROOT / "docs" / "_static" / "treelab.css").read_text(encoding="utf-8")
    rules = {m.group(1).strip(): m.group(2) for m in re.finditer(r"([^{}]+)\{([^}]*)\}",
                                                                  re.sub(r"/\*.*?\*/", "", css,
                                                                         flags=re.S))}
    sticky = next(body for sel, body in rules.items() if "td:first-child" in sel)
    assert "position: sticky" in sticky and "left: 0" in sticky and "background" in sticky
    tables = next(body for sel, body in rules.items() if sel == ".bd-article table")
    assert "overflow-x: auto" in tables
    maths = next(body for sel, body in rules.items() if "mjx-container" in sel)
    assert "overflow-x: auto" in maths


def _indented_code_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a page's indented code blocks (four spaces after a blank line, outside
    fences), with their numbers."""
    found, fenced, block, blank = [], False, False, True
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", ":::")):
            fenced, block, blank = not fenced, False, False
            continue
        if fenced:
            continue
        if line.startswith("    ") and (blank or block):
            block = True
            found.append((number, line))
        elif line.strip():
            block = False
        blank = not line.strip()
    return found


def test_no_prose_is_swallowed_by_an_indented_code_block():
    """A sentence run on after an indented example line renders as part of the example:
    first_minute.md showed "... (more than 3 s so far on this machine) An experiment run
    (`treelab demo`, `treelab run`) announces each group once for the run:" as code. Inline
    code (a backtick) never belongs in such a block."""
    old = ("    treelab: a notice (more than 3 s) An experiment run (`treelab demo`) says\n"
           "its workers share a folder.\n")
    assert _indented_code_lines("text\n\n" + old)[0][0] == 3  # the check can fail
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for number, line in _indented_code_lines(page.read_text(encoding="utf-8")):
            assert "`" not in line, f"{page.relative_to(ROOT)}:{number}: {line.strip()[:80]}"


def test_datasets_page_gives_the_friedman_generators_default_noise():
    """The page's table read "y = f(x) + noise N(0, 1)" for friedman1-3, whose default noise is
    0: a default draw is f(x) itself."""
    import numpy as np

    from treelab.datasets import generate

    for name in ("friedman1", "friedman2", "friedman3"):
        data = generate(name, n_samples=50, random_state=0)
        np.testing.assert_array_equal(data.y, data.true_target)
    page = (ROOT / "docs" / "datasets.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `friedman")]
    assert len(rows) == 3 and "by default: y = f(x)" in rows[0]
    assert all(row.endswith("| as `friedman1` |") for row in rows[1:])
