"""Generate docs/reproductions/STUDY.md for every study from the stored results.

Each page is rendered by :func:`treelab.reproduce.render_study_page` from the papers' shipped
tables (``data/papers``) and treelab's measured tables committed under
``data/reproductions/STUDY`` (CSV and ``run.json``, as ``treelab reproduce STUDY`` writes them
to ``OUT/STUDY/tables``); nothing is run. Where ``docs/reproductions/claims/STUDY.md`` (the
investigation of the claims that do not hold) exists, the page includes it; run this script
again after it is added or changed.

Usage::

    python scripts/make_reproduction_pages.py                      # every study with results
    python scripts/make_reproduction_pages.py --store OUT          # first copy OUT/*/tables
    python scripts/make_reproduction_pages.py --check              # fail if a page is stale
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from treelab.reproduce import list_studies, render_study_page

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "data" / "reproductions"
DOCS = ROOT / "docs" / "reproductions"


def store(out: Path) -> list[str]:
    """Copy the measured tables of every study found under ``out`` into data/reproductions."""
    copied = []
    for name in list_studies().index:
        src = out / name / "tables"
        if (src / "run.json").is_file():
            dst = STORED / name
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst)
            copied.append(name)
    return copied


def page(name: str) -> str:
    """The page of study ``name`` from its stored tables."""
    return render_study_page(name, STORED / name, claims=DOCS / "claims" / f"{name}.md",
                             claims_include=f"claims/{name}.md") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, metavar="OUT",
                    help="first copy OUT/STUDY/tables (written by treelab reproduce) into "
                         "data/reproductions/STUDY")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a page differs from its regeneration")
    args = ap.parse_args(argv)
    if args.store:
        print("stored:", ", ".join(store(args.store)) or "nothing")
    stale = []
    for name in list_studies().index:
        if not (STORED / name / "run.json").is_file():
            print(f"{name}: no stored results in {STORED / name}; page not generated")
            continue
        text, path = page(name), DOCS / f"{name}.md"
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        path.write_text(text, encoding="utf-8")
        print(f"{name}: {path.relative_to(ROOT)}")
    if stale:
        print("stale pages (run python scripts/make_reproduction_pages.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
