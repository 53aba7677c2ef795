"""Every fenced ``python`` block of the README and of every docs page runs, in order, in one
namespace per page, as a reader pasting them one after the other would run them (the
docstring examples run in ``test_docstring_examples.py``).

A block that must not run (a shell command, printed output) is fenced with another language
(``bash``, ``text``) or none. Blocks run in a temporary working folder, so files they write
(``ds.to_netcdf("vr.nc")``) land there; its ``data`` and ``examples`` are the repository's.
Mutation tried: the first block of ``docs/diagnose_your_forest.md`` without its data set: the
page's test fails with a NameError naming the block.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
#: Folders of docs/ whose pages are generated or built, not written.
NOT_WRITTEN = ("_build", "_generated", "api", "notebooks")
#: Fence info strings that mark Python a reader runs.
PYTHON = re.compile(r"^(python3?|py|\{code-block\}\s+python3?|\{code-cell\}\s+python3?)$")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")


def pages() -> list[Path]:
    found = [REPO / "README.md"]
    for path in sorted(DOCS.rglob("*.md")):
        parts = path.relative_to(DOCS).parts
        if not any(part in NOT_WRITTEN for part in parts[:-1]):
            found.append(path)
    return found


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The fenced Python blocks of a Markdown page: (first line number, dedented source).

    Parameters
    ----------
    text : str
        The page.

    Returns
    -------
    list of (int, str)
    """
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening["fence"], opening["info"].strip()
        end = i + 1
        while end < len(lines) and not (lines[end].strip().startswith(fence)
                                        and lines[end].strip().strip(fence[0]) == ""):
            end += 1
        if PYTHON.match(info):
            body = "\n".join(lines[i + 1:end])
            # myst options of a directive (":caption: ...") are not code
            body = "\n".join(ln for ln in body.splitlines() if not re.match(r"\s*:\w+:", ln))
            blocks.append((i + 2, textwrap.dedent(body)))
        i = end + 1
    return blocks


PAGES = [p for p in pages() if python_blocks(p.read_text(encoding="utf-8"))]


def test_the_blocks_are_found():
    names = {str(p.relative_to(REPO)) for p in PAGES}
    assert {"README.md", "docs/diagnose_your_forest.md"} <= names
    sample = "text\n```python\na = 1\n```\n\n  ```py\n  b = a\n  ```\n```bash\nls\n```\n"
    assert python_blocks(sample) == [(3, "a = 1"), (7, "b = a")]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_the_code_blocks_of_a_page_run_in_order(page, tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    # the pages name the repository's files as a reader in the checkout would
    # (data/examples/patients.csv, examples/own_csv.toml); what they write stays here
    for folder in ("data", "examples"):
        (tmp_path / folder).symlink_to(REPO / folder, target_is_directory=True)
    name = str(page.relative_to(REPO))
    namespace: dict = {"__name__": "__docs__"}
    try:
        for line, source in python_blocks(page.read_text(encoding="utf-8")):
            code = compile(source, f"{name}, block at line {line}", "exec")
            try:
                exec(code, namespace)
            except Exception as exc:
                raise AssertionError(f"{name}: the block at line {line} raised "
                                     f"{type(exc).__name__}: {exc}") from exc
    finally:
        plt.close("all")
