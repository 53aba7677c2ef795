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

__all__ = ["MODES", "Report", "Section", "Study", "Verdict", "render_page", "run_grids"]

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
    """A headline claim (in the project's words), the verdict and the numbers behind it."""

    claim: str
    verdict: str  # "holds", "partly", "does not hold", "not measured"
    numbers: str


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
                claims: Path | None = None, claims_include: str | None = None) -> str:
    """The study's page: source and protocol, what was run, each section, the verdicts and
    the investigation of the claims that do not hold (a MyST ``{include}`` of
    ``claims_include`` when ``claims`` exists, else a line saying there is none yet)."""
    mode = meta["mode"]
    src = paper_sources()["papers"][study.paper]
    sections, verdicts = study.report(measured, mode)
    lines = [f"# {study.title}", "",
             "<!-- generated by scripts/make_reproduction_pages.py from data/papers and "
             f"data/reproductions/{study.name}; edit those, not this page -->", "",
             f"**Source.** {src['citation']}", "",
             f"**The paper's protocol.** {src['protocol']}", "",
             f"**Command.** `treelab reproduce {study.name}` (the paper's protocol, "
             f"{study.modes['full']}) or `treelab reproduce {study.name} --quick` "
             f"({study.modes['quick']}).", ""]
    when = f" on {meta['date']}" if meta.get("date") else ""
    took = f", {_duration(meta['seconds'])} wall time" if meta.get("seconds") else ""
    if meta.get("cpu_seconds"):
        took += f" ({_duration(meta['cpu_seconds'])} CPU"
        took += f"; {meta['where']})" if meta.get("where") else ")"
    if mode == "full":
        lines += [f"**treelab's numbers below: full mode**{when}{took}.", ""]
    else:
        lines += [f"**treelab's numbers below: {mode} mode, a subset of the study**{when}"
                  f"{took}: {study.modes[mode]}. They are not the full protocol. Still to run "
                  f"(`treelab reproduce {study.name}`): {study.modes['full adds']}.", ""]
    if meta.get("note"):
        lines += [str(meta["note"]), ""]
    lines += ["Paper numbers come from the shipped tables (`data/papers/`, "
              "`treelab.reproduce.paper_table`); gap = treelab - paper.", ""]
    for s in sections:
        lines += [f"## {s.title}", "", s.text.rstrip(), ""]
    lines += ["## Verdicts on the headline claims", "",
              "| claim | verdict | numbers (paper; treelab) |", "|---|---|---|"]
    for v in verdicts:
        cells = (str(x).replace("|", "\\|") for x in (v.claim, v.verdict, v.numbers))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Investigation of the claims that do not hold", ""]
    if claims is not None and claims.is_file() and claims_include:
        lines += ["```{include} " + claims_include, "```", ""]
    else:
        lines += ["No investigation yet.", ""]
    return "\n".join(lines)


def run_meta(mode: str, seconds: float, measured: Mapping[str, pd.DataFrame],
             **extra: Any) -> dict[str, Any]:
    """``run.json``: mode, wall seconds, date, treelab version, the tables' index names."""
    import treelab

    return {"mode": mode, "seconds": round(seconds, 1),
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "treelab": getattr(treelab, "__version__", ""), "index": index_names(measured),
            **extra}
