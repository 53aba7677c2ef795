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
