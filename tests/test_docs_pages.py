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
