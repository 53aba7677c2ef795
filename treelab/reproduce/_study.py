"""What every study shares: its grids on the experiment runner, its measured tables, its page.

A study is a few experiment grids (:class:`~treelab.experiment.ExperimentConfig`) per mode
(``"full"``: the paper's protocol; ``"quick"``: a documented subset that runs in minutes;
``"ci"``: a tiny subset for the test suite), a function from the grids' results to
*measured tables* (small DataFrames, stored as CSV), and a function from the measured tables
and the papers' shipped tables to the page: sections of paper-beside-treelab tables and a
verdict, with numbers, for each headline claim. The page is rebuilt from the stored CSVs alone,
so ``docs/reproductions/`` is generated from the shipped paper data and committed results.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import xarray as xr

from treelab.reproduce._papers import paper_sources

__all__ = ["MODES", "Report", "Section", "Study", "Verdict", "merge_measured", "render_page",
           "run_grids", "verdict_table"]

MODES = ("full", "quick", "ci")
#: Grids of fewer cells run in the calling process: a pool's start costs more than they do.
SMALL = 60


@dataclass(frozen=True)
class Section:
    """A heading of the page and its Markdown body."""

    title: str
    text: str


@dataclass(frozen=True)
class Verdict:
    """A headline claim (in the project's words), the verdict, the numbers the rule reads and
    the rule itself (written from the paper's words before any number was read).

    ``verdict`` is one of ``treelab.reproduce._verdicts.OUTCOMES``: holds, does not hold,
    inconclusive, partly (with the part that holds in parentheses) or not measured.
    """

    claim: str
    verdict: str
    numbers: str
    rule: str = ""

    def __post_init__(self) -> None:
        from treelab.reproduce._verdicts import check_outcome

        check_outcome(self.verdict)


@dataclass
class Study:
    """One reproduction: grids per mode, measured tables, sections and verdicts.

    Attributes
    ----------
    name, title, paper : str
        CLI name, page title, key of the paper in ``data/papers/sources.json``.
    grids : callable
        ``grids(mode) -> {grid name: ExperimentConfig}``.
    measure : callable
        ``measure(results: {grid name: Dataset}, mode) -> {table name: DataFrame}``.
    report : callable
        ``report(measured, mode) -> (list of Section, list of Verdict)``.
    modes : dict
        What each mode runs (one paragraph each).
    figures : callable, optional
        ``figures(results, folder) -> list of paths`` (PNG).
    extra : callable, optional
        ``extra(mode, root, workers) -> {table name: DataFrame}``: a computation outside the
        runner (resumable on its own), stored under ``root``.
    notebook : str
        Folder name of the notebook's full-mode cells (``../treelab-out/notebooks/NAME``).
    """

    name: str
    title: str
    paper: str
    grids: Callable[[str], dict[str, Any]]
    measure: Callable[[dict[str, xr.Dataset], str], dict[str, pd.DataFrame]]
    report: Callable[[dict[str, pd.DataFrame], str], tuple[list[Section], list[Verdict]]]
    modes: dict[str, str]
    figures: Callable[[dict[str, xr.Dataset], Path], list[Path]] | None = None
    extra: Callable[[str, Path, int | None], dict[str, pd.DataFrame]] | None = None
    notebook: str = ""


@dataclass
class Report:
    """What :func:`treelab.reproduce.run_study` returns."""

    study: Study
    mode: str
    measured: dict[str, pd.DataFrame]
    markdown: str
    seconds: float
    paths: dict[str, Path]


def run_grids(study: Study, mode: str, root: Path, *, workers: int | None = None,
              scheduler: str | None = None, progress: bool = True,
              parts: list[str] | None = None) -> dict[str, xr.Dataset]:
    """Run (or resume) the study's grids of ``mode`` (or only ``parts`` of them), each
    stored under ``root / grid``."""
    from treelab.experiment import expand, run

    results = {}
    grids = study.grids(mode)
    unknown = sorted(set(parts or ()) - set(grids))
    if unknown:
        raise ValueError(f"parts {unknown} are not grids of {study.name}'s {mode} mode "
                         f"({', '.join(grids)})")
    for name, config in grids.items():
        if parts is not None and name not in parts:
            continue
        changes: dict[str, Any] = {}
        if scheduler is not None:
            changes.update(backend="dask", scheduler=scheduler)
        elif workers is not None:
            changes.update(backend="local" if workers > 1 else "serial", n_workers=workers)
        if changes.get("backend", config.backend) == "local" and len(expand(config)) < SMALL:
            # starting a pool of workers (imports, compiled code) costs more than a few cells
            changes.update(backend="serial")
        if changes:
            config = config.replace(**changes)
        results[name] = run(config, out=root / name, progress=progress)
    return results


def save_measured(measured: Mapping[str, pd.DataFrame], folder: Path, meta: dict) -> None:
    """The measured tables as CSV (one per table) and ``run.json`` (mode, seconds, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in measured.items():
        frame.to_csv(folder / f"{name}.csv")
    (folder / "run.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def load_measured(folder: Path) -> tuple[dict[str, pd.DataFrame], dict]:
    """The measured tables and ``run.json`` stored by :func:`save_measured`."""
    meta = json.loads((folder / "run.json").read_text())
    measured = {}
    for path in sorted(folder.glob("*.csv")):
        frame = pd.read_csv(path)
        index = meta.get("index", {}).get(path.stem, [frame.columns[0]])
        measured[path.stem] = frame.set_index(index)
    return measured, meta


def index_names(measured: Mapping[str, pd.DataFrame]) -> dict[str, list[str]]:
    """The index columns of every measured table (stored in ``run.json`` to read them back)."""
    return {k: [str(n) if n is not None else "index" for n in v.index.names]
            for k, v in measured.items()}


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def render_page(study: Study, measured: dict[str, pd.DataFrame], meta: Mapping[str, Any], *,
                claims: Path | None = None, claims_include: str | None = None,
                record: Path | None = None, record_include: str | None = None,
                origin: str | None = None) -> str:
    """The study's page: source and protocol, what was run, each section, the verdicts and
    the investigation of the claims that do not hold (a MyST ``{include}`` of
    ``claims_include`` when ``claims`` exists, else a line saying there is none yet), then,
    when ``record`` exists, the study's notebook (a link to it, rendered with its figures) and
    its full-mode record written by hand (an ``{include}`` of ``record_include``): one page
    per study.

    ``origin`` is the page's first comment, saying where it comes from; None: the
    repository's pages, made by ``scripts/make_reproduction_pages.py``."""
    mode = meta["mode"]
    sources = paper_sources()
    src = sources["papers"][study.paper]
    sections, verdicts = study.report(measured, mode)
    if origin is None:
        origin = ("generated by scripts/make_reproduction_pages.py from data/papers and "
                  f"data/reproductions/{study.name}; edit those, not this page")
    lines = [f"# {study.title}", "", f"<!-- {origin} -->", "",
             f"**Source.** {src['citation']}", "",
             f"**The paper's protocol.** {src['protocol']}", "",
             f"**Command.** `treelab reproduce {study.name}` (the paper's protocol, "
             f"{study.modes['full']}) or `treelab reproduce {study.name} --quick` "
             f"({study.modes['quick']}).", ""]
    when, took = _when_took(meta)
    if meta.get("parts"):
        lines += _parts_lines(study, meta["parts"])
    elif mode == "full":
        lines += [f"**treelab's numbers below: full mode**{when}{took}.", ""]
    else:
        lines += [f"**treelab's numbers below: {mode} mode, a subset of the study**{when}"
                  f"{took}: {study.modes[mode]}. They are not the full protocol. Still to run "
                  f"(`treelab reproduce {study.name}`): {study.modes['full adds']}.", ""]
    if meta.get("note"):
        lines += [str(meta["note"]), ""]
    if any(t.get("paper") == study.paper for t in sources["tables"].values()):
        lines += ["Paper numbers come from the shipped tables (`data/papers/`, "
                  "`treelab.reproduce.paper_table`); gap = treelab - paper.", ""]
    else:  # nothing to subtract: the source states no numbers
        lines += ["The source states no numbers: the tables below are treelab's alone.", ""]
    for s in sections:
        lines += [f"## {s.title}", "", s.text.rstrip(), ""]
    lines += ["## Verdicts on the headline claims", "", verdict_table(verdicts)]
    lines += ["", "## Investigation of the claims that do not hold", ""]
    if claims is not None and claims.is_file() and claims_include:
        lines += ["```{include} " + claims_include, "```", ""]
    else:
        lines += ["No investigation yet.", ""]
    if record is not None and record.is_file() and record_include:
        number = study.notebook.split("_", 1)[0]
        lines += [f"## Notebook {number}: figures and full-mode record", "",
                  f"The notebook {{doc}}`/notebooks/{study.notebook}` runs this study's "
                  "analysis with its figures (rendered in quick mode). Its full-mode record "
                  "follows, written by hand before the paper's tables were shipped; the "
                  "tables and verdicts above supersede it where the two differ.", "",
                  "```{include} " + record_include, "```", ""]
    return "\n".join(lines)


def verdict_table(verdicts: list[Verdict]) -> str:
    """The verdicts as a Markdown table: claim, the rule, the verdict and the numbers the rule
    reads (one source for the page's table and the claims pages' verdict blocks)."""
    lines = ["| claim | rule (fixed before the run) | verdict | numbers the rule reads (paper; "
             "treelab) |", "|---|---|---|---|"]
    for v in verdicts:
        cells = (str(x).replace("|", "\\|") for x in (v.claim, v.rule or "-", v.verdict,
                                                        v.numbers))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: Markers of the generated verdict block of a claims investigation page
#: (``docs/reproductions/claims/STUDY.md``): its verdicts come from the same result as the
#: page's verdict table, so the two cannot disagree.
CLAIMS_START = "<!-- verdicts: generated from the same result as the page's verdict table -->"
CLAIMS_END = "<!-- /verdicts -->"


def verdict_summary(verdicts: list[Verdict]) -> str:
    """The verdicts as a two-column Markdown table (claim, verdict) for a claims page."""
    lines = ["| claim | verdict |", "|---|---|"]
    lines += ["| " + v.claim.replace("|", "\\|") + " | " + v.verdict + " |" for v in verdicts]
    return "\n".join(lines)


def fill_verdict_block(text: str, verdicts: list[Verdict]) -> str:
    """``text`` with the block between :data:`CLAIMS_START` and :data:`CLAIMS_END` replaced by
    :func:`verdict_summary` (ValueError when a marker is missing)."""
    if CLAIMS_START not in text or CLAIMS_END not in text:
        raise ValueError("the claims page has no generated verdict block (markers "
                         f"{CLAIMS_START!r} and {CLAIMS_END!r})")
    head, rest = text.split(CLAIMS_START, 1)
    _, tail = rest.split(CLAIMS_END, 1)
    return f"{head}{CLAIMS_START}\n{verdict_summary(verdicts)}\n{CLAIMS_END}{tail}"


def _when_took(meta: Mapping[str, Any]) -> tuple[str, str]:
    """" on DATE" and ", T wall time (C CPU; where)" of a run's metadata."""
    when = f" on {meta['date']}" if meta.get("date") else ""
    took = f", {_duration(meta['seconds'])} wall time" if meta.get("seconds") else ""
    runs = meta.get("invocations") or []
    if took and len(runs) > 1:  # a resumed run: the sum of its invocations
        took += (f" in {len(runs)} invocations ("
                 + " + ".join(_duration(float(r)) for r in runs) + ")")
    if took and meta.get("cell_seconds"):
        took += f", the cells' own times adding up to {_duration(meta['cell_seconds'])}"
    if meta.get("cpu_seconds"):
        took += f" ({_duration(meta['cpu_seconds'])} CPU"
        took += f"; {meta['where']})" if meta.get("where") else ")"
    elif meta.get("where"):
        took += f" ({meta['where']})"
    return when, took


def _parts_lines(study: Study, parts: list[Mapping[str, Any]]) -> list[str]:
    """The page's lines saying which run each measured table comes from."""
    lines = ["**treelab's numbers below come from more than one run** (each table from the "
             "newest run that made it):", ""]
    for part in parts:
        when, took = _when_took(part)
        what = ("full mode (the paper's protocol)" if part["mode"] == "full"
                else f"{part['mode']} mode, a subset of the study")
        lines.append(f"- {what}{when}{took}: " + ", ".join(f"`{t}`" for t in part["tables"]))
        if part.get("note"):
            lines[-1] += f". {part['note']}"
    lines.append("")
    subset = sorted({p["mode"] for p in parts} - {"full"})
    for mode in subset:
        lines += [f"What {mode} mode runs: {study.modes[mode]}. Its tables are not the full "
                  f"protocol; `treelab reproduce {study.name}` runs it (full mode adds: "
                  f"{study.modes['full adds']}).", ""]
    return lines


def _parts_of(meta: Mapping[str, Any], tables: list[str]) -> list[dict[str, Any]]:
    """A run.json's list of runs (``parts``), or its one run covering ``tables``."""
    if meta.get("parts"):
        return [dict(p) for p in meta["parts"]]
    keys = ("mode", "seconds", "cpu_seconds", "date", "where", "note", "treelab",
            "invocations", "cell_seconds")
    return [{**{k: meta[k] for k in keys if meta.get(k) is not None}, "tables": sorted(tables)}]


def merge_measured(stored: Path, new: Path) -> dict[str, Any]:
    """Copy the measured tables of the run in ``new`` into ``stored`` (a table of the same
    name is replaced, the others are kept) and rewrite ``stored/run.json`` so that it lists
    which run each table comes from (``parts``, the newest first). Returns the new run.json.

    A study's tables can so come from several runs (its paper tables in full mode, its notebook
    grids in quick mode, say), and its page says which table comes from which.
    """
    import shutil

    stored, new = Path(stored), Path(new)
    new_meta = json.loads((new / "run.json").read_text())
    new_tables = sorted(p.stem for p in new.glob("*.csv"))
    if not (stored / "run.json").is_file():
        old_meta, old_tables = {}, []
    else:
        old_meta = json.loads((stored / "run.json").read_text())
        old_tables = sorted(p.stem for p in stored.glob("*.csv"))
    kept = []
    for part in _parts_of(old_meta, old_tables) if old_meta else []:
        part["tables"] = [t for t in part["tables"] if t not in new_tables]
        if part["tables"]:
            kept.append(part)
    stored.mkdir(parents=True, exist_ok=True)
    for t in new_tables:
        shutil.copy2(new / f"{t}.csv", stored / f"{t}.csv")
    if not kept:
        meta = dict(new_meta)
    else:
        parts = _parts_of(new_meta, new_tables) + kept
        modes = {p["mode"] for p in parts}
        meta = {"mode": modes.pop() if len(modes) == 1 else "mixed",
                "date": max(str(p.get("date", "")) for p in parts),
                "seconds": round(sum(float(p.get("seconds") or 0) for p in parts), 1),
                "treelab": new_meta.get("treelab", ""),
                "index": {**old_meta.get("index", {}), **new_meta.get("index", {})},
                "parts": parts}
    (stored / "run.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return meta


def run_meta(mode: str, seconds: float, measured: Mapping[str, pd.DataFrame],
             **extra: Any) -> dict[str, Any]:
    """``run.json``: mode, wall seconds, date, treelab version, the tables' index names."""
    import treelab

    return {"mode": mode, "seconds": round(seconds, 1),
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "treelab": getattr(treelab, "__version__", ""), "index": index_names(measured),
            **extra}
