"""Reproductions of the founding papers: each study's experiment, run and reported beside the
paper's own numbers (``treelab reproduce STUDY``).

* :func:`list_studies`: the studies, their modes and what each mode runs;
* :func:`run_study`: run a study's grids on the experiment runner (resumable; local processes
  or a dask scheduler), compute its measured tables and write ``OUT/STUDY.md`` (paper beside
  treelab, verdicts on the headline claims), the measured tables (CSV), the result Datasets
  (netCDF, one per grid) and the figures;
* :func:`paper_table`, :func:`paper_sources`: the papers' shipped tables and their provenance;
* :func:`render_study_page`: a study's page from stored measured tables alone;
  :func:`study_verdicts` its verdicts, and :func:`fill_verdict_block` a claims page's
  generated verdict block from them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from treelab.reproduce._papers import paper_sources, paper_table, papers_root
from treelab.reproduce._study import (
    MODES,
    Report,
    Section,
    Study,
    Verdict,
    fill_verdict_block,
    load_measured,
    merge_measured,
    render_page,
    run_grids,
    run_meta,
    save_measured,
)

__all__ = ["MODES", "Report", "Section", "Study", "Verdict", "fill_verdict_block", "get_study",
           "list_studies", "merge_measured", "paper_sources", "paper_table", "papers_root",
           "render_study_page", "run_study", "study_verdicts"]


def _studies() -> dict[str, Study]:
    from treelab.reproduce._registry import STUDIES

    return STUDIES


def list_studies() -> pd.DataFrame:
    """The studies ``treelab reproduce`` runs.

    Returns
    -------
    pandas.DataFrame
        Index ``study``; columns ``title``, ``full`` and ``quick`` (what each mode runs).

    Examples
    --------
    >>> list_studies().index.tolist()
    ['liu2008', 'alipazzani1995', 'fan2005', 'gashler2008', 'rotation-forest']
    """
    rows = {s.name: {"title": s.title, "full": s.modes["full"], "quick": s.modes["quick"]}
            for s in _studies().values()}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("study")


def get_study(name: str) -> Study:
    """The study called ``name`` (see :func:`list_studies`).

    Examples
    --------
    >>> get_study("liu2008").paper
    'liu2008'
    """
    studies = _studies()
    if not isinstance(name, str) or name not in studies:
        raise ValueError(f"study must be one of {', '.join(studies)}; got {name!r}")
    return studies[name]


def _check_mode(mode: Any) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


def run_study(
    name: str,
    *,
    mode: str = "full",
    out: str | Path = "treelab-out/reproduce",
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    grid_root: str | Path | None = None,
    figures: bool = True,
    parts: list[str] | None = None,
) -> Report:
    """Run (or resume) a study and write its report.

    Every grid runs on :func:`treelab.experiment.run` and stores its cells under
    ``grid_root / GRID`` (default ``out / NAME``) as they finish, so a stopped run resumes
    where it stopped. Then ``out / NAME / tables`` gets the measured tables (CSV) and
    ``run.json``, ``out / NAME.md`` the page (paper beside treelab, verdicts), and
    ``out / NAME / figures`` the figures; each grid's Dataset is ``GRID/result.nc``.

    Parameters
    ----------
    name : str
        A study of :func:`list_studies`.
    mode : {"full", "quick", "ci"}, default "full"
        The paper's protocol, the documented subset, or the test suite's tiny subset.
    out : str or path, default "treelab-out/reproduce"
        Output folder.
    workers : int, optional
        Local worker processes (1: serial). Default: each grid's configuration (local, 2).
    scheduler : str, optional
        Address of a running dask scheduler (instead of ``workers``).
    progress : bool, default True
        Show the runner's progress bars.
    grid_root : str or path, optional
        Where the grids' cells are stored (the notebooks' full modes use
        ``../treelab-out/notebooks/NOTEBOOK``).
    figures : bool, default True
        Draw the study's figures.
    parts : list of str, optional
        Run only these grids of the mode (default all).

    Returns
    -------
    Report
        The study, mode, measured tables, page (Markdown), wall seconds of this invocation and
        written paths. ``run.json`` and the page report the whole run: ``seconds`` is the
        sum of the wall times of every invocation since its cells began (a resumed run
        counts the stopped ones; the log is ``grid_root / invocations.jsonl``), listed in
        ``invocations``, and ``cell_seconds`` the sum of the cells' own fit, prediction and
        evaluation times.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     report = run_study("liu2008", mode="ci", out=tmp, workers=1, progress=False)
    ...     written = sorted(p.name for p in report.paths.values())
    >>> report.measured["table4"].shape
    (2, 4)
    >>> "liu2008.md" in written
    True
    """
    study = get_study(name)
    mode = _check_mode(mode)
    if workers is not None and scheduler is not None:
        raise ValueError("give workers or scheduler, not both")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    out = Path(out)
    root = Path(grid_root) if grid_root is not None else out / study.name
    started, cpu = time.perf_counter(), _cpu_seconds()
    grids = [g for g in study.grids(mode) if parts is None or g in parts]
    # a run that resumes finished cells continues the invocations logged since they began
    fresh = not any(_has_cells(root / g) for g in grids)
    results = run_grids(study, mode, root, workers=workers, scheduler=scheduler,
                        progress=progress, parts=parts)
    measured = study.measure(results, mode)
    if study.extra is not None:
        measured.update(study.extra(mode, root, workers))
    seconds = time.perf_counter() - started
    # worker processes of a pool are not this process's children (forkserver): their CPU
    # time is only counted when everything ran here
    serial = workers == 1 and scheduler is None
    runs = _log_invocation(root / INVOCATIONS, fresh, {
        "date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "seconds": round(seconds, 1),
        "cpu_seconds": round(_cpu_seconds() - cpu, 1) if serial else None})
    cpu_runs = [r.get("cpu_seconds") for r in runs]
    meta = run_meta(mode, sum(float(r["seconds"]) for r in runs), measured, where=_where(),
                    cpu_seconds=(round(sum(cpu_runs), 1) if None not in cpu_runs else None),
                    invocations=[r["seconds"] for r in runs],
                    cell_seconds=_cell_seconds(results))
    tables = out / study.name / "tables"
    save_measured(measured, tables, meta)
    paths = {"tables": tables, **{f"result {g}": root / g / "result.nc" for g in results}}
    # about this run, not about the repository's pages
    markdown = render_page(study, measured, meta, origin=(
        f"written by `treelab reproduce {study.name}` ({mode} mode) from the paper tables that "
        f"ship with treelab and this run's tables in {study.name}/tables"))
    page = out / f"{study.name}.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(markdown + "\n", encoding="utf-8")
    paths["page"] = page
    if figures and study.figures is not None:
        for i, p in enumerate(study.figures(results, out / study.name / "figures")):
            paths[f"figure {i + 1}"] = p
    return Report(study=study, mode=mode, measured=measured, markdown=markdown,
                  seconds=seconds, paths=paths)


#: The log of a study's invocations (``treelab reproduce`` runs), one JSON line each, in its
#: grid root; a run that starts with no finished cell starts a new log.
INVOCATIONS = "invocations.jsonl"


def _has_cells(folder: Path) -> bool:
    path = folder / "cells.jsonl"
    return path.is_file() and path.stat().st_size > 0


def _log_invocation(path: Path, fresh: bool, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Append this invocation to the log (a new log when ``fresh``) and return every
    invocation since the cells began (lines that cannot be read are left out)."""
    import json

    runs = []
    if not fresh and path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:  # a line cut by a stopped run
                continue
            if isinstance(rec, dict) and isinstance(rec.get("seconds"), int | float):
                runs.append(rec)
    runs.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in runs),
                    encoding="utf-8")
    return runs


def _cell_seconds(results: dict[str, Any]) -> float:
    """The cells' own time: the sum over every finished cell of the grids of its fit,
    prediction and evaluation seconds (whichever invocation ran it)."""
    from treelab.experiment.cells import TIMING_VARS

    total = 0.0
    for ds in results.values():
        for var in TIMING_VARS:
            if var in ds:
                total += float(ds[var].sum(skipna=True))
    return round(total, 1)


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished child processes (the
    runner's local workers)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _where() -> str:
    import os

    try:
        load = f", load average {os.getloadavg()[0]:.1f}"
    except OSError:  # not on every platform
        load = ""
    return f"{os.cpu_count()} cores{load}"


def study_verdicts(name: str, tables: str | Path) -> list[Verdict]:
    """The verdicts of study ``name`` on the measured tables stored in ``tables`` (the same
    ones its page prints).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from treelab.reproduce._study import run_meta, save_measured
    >>> mine = pd.DataFrame({"alpha = 0": [7.5], "Coalescence": [7.5], "alpha = 0.5": [8.5],
    ...                      "Random Forests": [8.3]},
    ...                     index=pd.Index(["A, k = 64"], name="condition"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_measured({"table4": mine}, Path(tmp), run_meta("ci", 6.0, {"table4": mine}))
    ...     verdicts = study_verdicts("liu2008", tmp)
    >>> [v.verdict for v in verdicts if v.claim.startswith("RF beats")]
    ['does not hold']
    """
    study = get_study(name)
    measured, meta = load_measured(Path(tables))
    return study.report(measured, meta["mode"])[1]


def render_study_page(name: str, tables: str | Path, *, claims: str | Path | None = None,
                      claims_include: str | None = None, record: str | Path | None = None,
                      record_include: str | None = None) -> str:
    """A study's page from the measured tables stored by :func:`run_study`
    (``OUT/NAME/tables``) and the shipped paper tables; nothing is run.

    ``claims`` is the investigation page of the claims that do not hold; when it exists the
    page includes it (MyST ``{include}`` of ``claims_include``). ``record`` is the study
    notebook's full-mode record written by hand; when it exists the page links the notebook
    and includes the record (``{include}`` of ``record_include``) under its own heading, so
    that each study has one page.

    Parameters
    ----------
    name : str
        A study of :func:`list_studies`.
    tables : str or path
        Folder of the measured tables and ``run.json``.
    claims : str or path, optional
        The claims investigation page to include when it exists.
    claims_include : str, optional
        Its path as the page's ``{include}`` directive names it.
    record : str or path, optional
        The notebook's full-mode record to include when it exists.
    record_include : str, optional
        Its path as the page's ``{include}`` directive names it.

    Returns
    -------
    str
        The page (Markdown).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from treelab.reproduce._study import run_meta, save_measured
    >>> mine = pd.DataFrame({"alpha = 0": [7.5], "Coalescence": [7.5], "alpha = 0.5": [8.5],
    ...                      "Random Forests": [8.3]},
    ...                     index=pd.Index(["A, k = 64"], name="condition"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_measured({"table4": mine}, Path(tmp), run_meta("ci", 6.0, {"table4": mine}))
    ...     page = render_study_page("liu2008", tmp)
    >>> "| A, k = 64 | 6.7 | 7.5 | +0.8 |" in page
    True
    """
    study = get_study(name)
    measured, meta = load_measured(Path(tables))
    return render_page(study, measured, meta, claims=Path(claims) if claims else None,
                       claims_include=claims_include,
                       record=Path(record) if record else None, record_include=record_include)
