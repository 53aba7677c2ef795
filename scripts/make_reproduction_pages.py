"""Generate docs/reproductions/STUDY.md for every study from the stored results.

Each page is rendered by :func:`treelab.reproduce.render_study_page` from the papers' shipped
tables (``data/papers``) and treelab's measured tables committed under
``data/reproductions/STUDY`` (CSV and ``run.json``, as ``treelab reproduce STUDY`` writes them
to ``OUT/STUDY/tables``); nothing is run. Where ``docs/reproductions/claims/STUDY.md`` (the
investigation of the claims that do not hold) exists, the page includes it; run this script
again after it is added or changed: it also fills the claims page's verdict block from the same
result as the page's verdict table, so the two cannot disagree. Where
``docs/reproductions/records/STUDY.md`` (the study notebook's full-mode record, written by
hand) exists, the page links the notebook and includes the record: one page per study.

Usage::

    python scripts/make_reproduction_pages.py                      # every study with results
    python scripts/make_reproduction_pages.py --store OUT          # first copy OUT/*/tables
    python scripts/make_reproduction_pages.py --store OUT --merge  # ... only the tables OUT has
    python scripts/make_reproduction_pages.py --check              # fail if a page is stale
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from treelab.reproduce import (
    fill_verdict_block,
    list_studies,
    merge_measured,
    render_study_page,
    study_verdicts,
)

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "data" / "reproductions"
DOCS = ROOT / "docs" / "reproductions"


def store(out: Path, merge: bool = False) -> list[str]:
    """Copy the measured tables of every study found under ``out`` into data/reproductions
    (``merge``: replace only the tables ``out`` has and keep the others, see
    :func:`treelab.reproduce.merge_measured`)."""
    copied = []
    for name in list_studies().index:
        src = out / name / "tables"
        if (src / "run.json").is_file():
            dst = STORED / name
            if merge:
                merge_measured(dst, src)
            else:
                if dst.exists():
                    shutil.rmtree(dst)
                shutil.copytree(src, dst)
            copied.append(name)
    return copied


def page(name: str) -> str:
    """The page of study ``name`` from its stored tables."""
    return render_study_page(name, STORED / name, claims=DOCS / "claims" / f"{name}.md",
                             claims_include=f"claims/{name}.md",
                             record=DOCS / "records" / f"{name}.md",
                             record_include=f"records/{name}.md") + "\n"


START, END = "<!-- reproduction-index -->", "<!-- /reproduction-index -->"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def index(docs: bool) -> str:
    """The index table: each study's commands and the measured time of its stored run."""
    import json

    link = "{{doc}}`{0}`" if docs else "`docs/reproductions/{0}.md`"
    rows = ["| study | full mode (the paper's protocol) | quick mode | stored run: mode, wall "
            "time, CPU time |", "|---|---|---|---|"]
    for name, row in list_studies().iterrows():
        meta_path = STORED / name / "run.json"
        if meta_path.is_file():
            meta = json.loads(meta_path.read_text())
            runs = meta.get("parts") or [meta]
            measured = "; ".join(
                f"{m['mode']}"
                + (f" ({', '.join(m['tables'])})" if meta.get("parts") else "")
                + f", {_duration(m['seconds'])} wall"
                + (f", {_duration(m['cpu_seconds'])} CPU" if m.get("cpu_seconds") else "")
                + f" ({m.get('where', 'the project machine')}, {m['date']})" for m in runs)
        else:
            measured = "not run yet"
        rows.append(f"| {link.format(name)}: {row['title']} | `treelab reproduce {name}` | "
                    f"`treelab reproduce {name} --quick` | {measured} |")
    note = ("A study stored in quick mode, or listing several runs, has tables that are a "
            "subset of the study (quick mode's documented subset) beside full-mode ones; each "
            "page says which table comes from which run and what `treelab reproduce STUDY` "
            "adds.")
    return "\n".join(rows) + "\n\n" + note


def _replace_index(path: Path, docs: bool, check: bool) -> bool:
    """Put the index between the markers of ``path``; True when it was already there."""
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        return True
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{START}\n{index(docs)}\n{END}{tail}"
    if not check:
        path.write_text(new, encoding="utf-8")
    return new == text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, metavar="OUT",
                    help="first copy OUT/STUDY/tables (written by treelab reproduce) into "
                         "data/reproductions/STUDY")
    ap.add_argument("--merge", action="store_true",
                    help="with --store: replace only the tables OUT has, keep the others, and "
                         "record which run each table comes from")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a page differs from its regeneration")
    args = ap.parse_args(argv)
    if args.store:
        print("stored:", ", ".join(store(args.store, args.merge)) or "nothing")
    stale = []
    for name in list_studies().index:
        if not (STORED / name / "run.json").is_file():
            print(f"{name}: no stored results in {STORED / name}; page not generated")
            continue
        claims = DOCS / "claims" / f"{name}.md"
        if claims.is_file():  # its verdict block and the page's table: one result
            old = claims.read_text(encoding="utf-8")
            new = fill_verdict_block(old, study_verdicts(name, STORED / name))
            if args.check and new != old:
                stale.append(str(claims.relative_to(ROOT)))
            elif not args.check:
                claims.write_text(new, encoding="utf-8")
        text, path = page(name), DOCS / f"{name}.md"
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        path.write_text(text, encoding="utf-8")
        print(f"{name}: {path.relative_to(ROOT)}")
    for path, docs in ((ROOT / "README.md", False), (DOCS / "index.md", True)):
        if not _replace_index(path, docs, args.check) and args.check:
            stale.append(str(path.relative_to(ROOT)))
    if stale:
        print("stale pages (run python scripts/make_reproduction_pages.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
