"""Command line: ``treelab run CONFIG.toml``, ``treelab list-data``, ``treelab demo``,
``treelab warmup``, ``treelab reproduce``, ``treelab investigate``.

Each subcommand parses its arguments and calls one public function of :mod:`treelab`
(:func:`treelab.experiment.run`, :func:`treelab.datasets.list_uci`,
:func:`treelab.experiment.demo.demo_config`, :func:`treelab._warmup.warmup`,
:func:`treelab.reproduce.run_study`); nothing is reachable only from here.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from treelab._collector import quick_exit_collection

__all__ = ["console", "main"]


def _parser() -> argparse.ArgumentParser:
    from treelab.experiment.demo import DEMO_DATASETS

    parser = argparse.ArgumentParser(
        prog="treelab",
        description="Tree ensembles across the spectrum of randomness, and their diversity.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_backend(p: argparse.ArgumentParser, default: str | None) -> None:
        # parsed as None when not given, so that --scheduler can tell an explicit --backend
        # from the default (the handler applies the default)
        p.add_argument("--backend", choices=("serial", "local", "dask"), default=None,
                       help="where cells run (default: %s)" % (default or "the config's"))
        p.add_argument("--workers", type=int, default=None, metavar="N",
                       help="worker processes (local) or dask LocalCluster workers")
        p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="address of a running dask scheduler (implies --backend dask)")
        p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    p_run = sub.add_parser("run", help="run (or resume) an experiment from a TOML file")
    p_run.add_argument("config", type=Path, help="experiment configuration (TOML)")
    p_run.add_argument("--out", type=Path, default=None, metavar="DIR",
                       help="output folder, relative to the current folder (default: the "
                            "config's 'out', relative to the config file's folder, as its "
                            "data set paths are); the absolute folder is printed first")
    add_backend(p_run, None)

    p_list = sub.add_parser("list-data", help="list generators, bundled and UCI data sets")
    p_list.add_argument("--root", type=Path, default=None, metavar="DIR",
                        help="UCI bundle folder (default: $TREELAB_DATA, else the bundle "
                             "that ships with treelab)")

    p_demo = sub.add_parser(
        "demo", help="the main job: a spectrum-of-randomness experiment (resumable)")
    p_demo.add_argument("--out", type=Path, default=Path("treelab-out/demo"), metavar="DIR",
                        help="output folder (default: treelab-out/demo)")
    p_demo.add_argument("--trees", type=int, default=100, metavar="T",
                        help="trees per ensemble (default: 100)")
    p_demo.add_argument("--folds", type=int, default=10, metavar="K",
                        help="cross-validation folds (default: 10)")
    p_demo.add_argument("--datasets", default=",".join(DEMO_DATASETS), metavar="NAMES",
                        help="comma-separated UCI sets of the bundle (default: "
                             f"{','.join(DEMO_DATASETS)}; see 'treelab list-data')")
    add_backend(p_demo, "local")

    p_warm = sub.add_parser(
        "warmup", help="compile the tree engine ahead (once per install; for images and CI)",
        description="compile the tree engine ahead (once per install; for images and CI)")
    p_warm.add_argument("estimators", nargs="*", metavar="ESTIMATOR",
                        help="treelab estimators to compile for (default: all)")
    p_warm.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    p_rep = sub.add_parser(
        "reproduce", help="run a founding paper's study and print its tables beside the paper's",
        description="Run (or resume) a study on the experiment runner, print the paper's tables "
                    "beside treelab's, and write OUT/STUDY.md, the measured tables, the result "
                    "Datasets (netCDF) and the figures.")
    p_rep.add_argument("study", nargs="?", help="the study (see --list)")
    p_rep.add_argument("--list", action="store_true", help="list the studies and stop")
    p_rep.add_argument("--quick", action="store_true",
                       help="run the study's documented subset (minutes; its numbers are a "
                            "subset of the study)")
    p_rep.add_argument("--out", type=Path, default=Path("treelab-out/reproduce"), metavar="DIR",
                       help="output folder (default: treelab-out/reproduce)")
    group = p_rep.add_mutually_exclusive_group()
    group.add_argument("--workers", type=int, default=None, metavar="N",
                       help="local worker processes (default 2; 1 runs in this process)")
    group.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="address of a running dask scheduler")
    p_rep.add_argument("--parts", default=None, metavar="GRIDS",
                       help="comma-separated grids of the mode to run (default: all; the page "
                            "then shows the tables those grids give)")
    p_rep.add_argument("--no-progress", action="store_true", help="hide the progress bars")

    p_inv = sub.add_parser(
        "investigate", help="run an investigation of a study's claims (the claims section of "
                            "its page) and print its tables",
        description="Run an investigation that explains a study's verdicts (module "
                    "treelab.reproduce.STUDY_investigation) and print its tables as Markdown; "
                    "'treelab investigate STUDY --help' lists its parts and options.")
    p_inv.add_argument("study", choices=INVESTIGATED, help="the study")
    p_inv.add_argument("args", nargs=argparse.REMAINDER, metavar="...",
                       help="the investigation's own arguments")
    return parser


def _finish(ds, out: Path, started: float) -> None:
    from treelab.experiment import summary

    print()
    # measures without diagnose have no error to tabulate; a regression result its MSE
    var = "ensemble_error" if "ensemble_error" in ds else "mse" if "mse" in ds else None
    if var is not None:
        print(summary(ds, var).round(3).to_string())
        print()
    print(f"finished in {time.perf_counter() - started:.1f} s")
    print(f"dataset (netCDF): {(out / 'result.nc').resolve()}")
    if var is not None:
        print(f"summary table   : {(out / 'summary.csv').resolve()}")
    print(f"finished cells  : {(out / 'cells.jsonl').resolve()}")


def _figures(ds, out: Path) -> list[Path]:
    """The demo's figures: the error spectrum (one panel per data set) and each data set's
    strength-correlation trajectories, as PNG under ``out/figures``."""
    import matplotlib.pyplot as plt

    from treelab import plot

    folder = out / "figures"
    written = []
    grid = plot.spectrum(ds, col="dataset")
    written += plot.savefig(grid, folder / "spectrum.png", width="double")
    plt.close("all")
    for name in ds["dataset"].values:
        ax = plot.strength_correlation(ds, dataset=str(name))
        written += plot.savefig(ax, folder / f"strength_correlation_{name}.png")
        plt.close("all")
    return written


def _check_options(args: argparse.Namespace, floors: dict[str, int]) -> None:
    """Refuse, naming the option, a count below its floor and a --scheduler beside a
    --backend other than dask (which would otherwise be resolved silently, one way or the
    other), before any work."""
    for option, floor in floors.items():
        value = getattr(args, option[2:])
        if value is not None and value < floor:
            raise ValueError(f"{option} must be at least {floor}, got {value}")
    if args.scheduler is not None and args.backend not in (None, "dask"):
        raise ValueError(f"--scheduler runs the cells on a dask scheduler; it cannot go with "
                         f"--backend {args.backend}")


def _run(args: argparse.Namespace) -> int:
    from treelab.experiment import load_config, run

    _check_options(args, {"--workers": 1})
    config = load_config(args.config)
    overrides = {}
    if args.out is not None:
        overrides["out"] = str(args.out)
    if args.scheduler is not None:
        overrides["scheduler"] = args.scheduler
        overrides["backend"] = "dask"
    if args.backend is not None:
        overrides["backend"] = args.backend
    if args.workers is not None:
        overrides["n_workers"] = args.workers
    if overrides:
        config = config.replace(**overrides)
    if config.out is None:
        raise ValueError("the configuration has no 'out' folder: pass --out DIR")
    # a TOML's `out` is relative to the file's folder, `--out` to the current folder: say
    # where the output goes before any work, so neither rule surprises
    origin = ("--out, relative to the current folder" if args.out is not None else
              f"'out' of {args.config}, relative to its folder")
    print(f"output folder   : {Path(config.out).resolve()} ({origin})", flush=True)
    started = time.perf_counter()
    ds = run(config, progress=not args.no_progress)
    _finish(ds, Path(config.out), started)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from treelab.experiment import run
    from treelab.experiment.demo import demo_config

    _check_options(args, {"--trees": 1, "--folds": 2, "--workers": 1})
    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    config = demo_config(args.out, n_estimators=args.trees, n_splits=args.folds,
                         datasets=names)
    changes = {"backend": "dask" if args.scheduler else args.backend or "local"}
    if args.workers is not None:
        changes["n_workers"] = args.workers
    if args.scheduler is not None:
        changes["scheduler"] = args.scheduler
    config = config.replace(**changes)
    names = ", ".join(d.name for d in config.datasets)
    print(f"treelab demo: Agg./Bag./Subspace VR-Trees, {args.trees} trees, 11 alphas, "
          f"{args.folds}-fold CV on {names}; backend {config.backend}; out {args.out}")
    started = time.perf_counter()
    ds = run(config, progress=not args.no_progress)
    _finish(ds, Path(args.out), started)
    for path in _figures(ds, Path(args.out)):
        print(f"figure          : {path.resolve()}")
    return 0


def _list_data(args: argparse.Namespace) -> int:
    import pandas as pd

    from treelab.datasets import GENERATORS, UCIDataNotFoundError, list_uci
    from treelab.datasets.loaders import _BUILTIN

    print("generators (treelab.datasets.generate(name, ...)):")
    for name, fn in GENERATORS.items():
        first = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        print(f"  {name:20s} {first}")
    print()
    print("bundled with scikit-learn (treelab.datasets.load_builtin(name)):")
    print("  " + ", ".join(_BUILTIN))
    print()
    from treelab.datasets import REGRESSION_DATASETS

    print("regression data, no download (treelab.datasets.load_regression(name)):")
    print("  " + ", ".join(REGRESSION_DATASETS))
    print()
    try:
        table = list_uci(args.root)
    except UCIDataNotFoundError as exc:
        print(f"UCI bundle: not found ({exc})")
        return 0
    print("UCI bundle (treelab.datasets.load_uci(name)):")
    with pd.option_context("display.max_rows", None, "display.width", 200,
                           "display.max_colwidth", 60):
        print(table.to_string())
    return 0


def _warmup(args: argparse.Namespace) -> int:
    from treelab._cache import cache_status
    from treelab._warmup import warmup, warmup_steps

    names = args.estimators or None
    if names is not None:
        known = {label for label, _ in warmup_steps(None, analysis=False)}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"not treelab estimators: {', '.join(unknown)}")
    started = time.perf_counter()
    times = warmup(names, progress=not args.no_progress)
    status = cache_status()
    where = status.folder if status.kept else f"not kept: {status.reason}"
    print(f"compiled for {len(times)} steps in {time.perf_counter() - started:.1f} s; "
          f"cache: {where}")
    return 0


#: the studies with an investigation module, treelab.reproduce.STUDY_investigation
INVESTIGATED = ("liu2008", "alipazzani1995", "gashler2008")


def _investigate(args: argparse.Namespace) -> int:
    import importlib

    module = importlib.import_module(f"treelab.reproduce.{args.study}_investigation")
    return module.main(args.args)


def _reproduce(args: argparse.Namespace) -> int:
    from treelab.reproduce import get_study, list_studies, run_study

    if args.list:
        for name, row in list_studies().iterrows():
            print(f"{name:16s} {row['title']}")
            print(f"{'':16s}   full : {row['full']}")
            print(f"{'':16s}   quick: {row['quick']}")
        return 0
    if args.study is None:
        raise ValueError("name a study (treelab reproduce --list shows them)")
    get_study(args.study)  # an unknown name is refused before anything runs
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    mode = "quick" if args.quick else "full"
    parts = None
    if args.parts is not None:
        parts = [g.strip() for g in args.parts.split(",") if g.strip()]
        grids = get_study(args.study).grids(mode)
        unknown = [g for g in parts if g not in grids]
        if unknown or not parts:
            raise ValueError(f"--parts must name grids of {args.study}'s {mode} mode "
                             f"({', '.join(grids)}), got {args.parts!r}")
    print(f"treelab reproduce {args.study}: {mode} mode; out {args.out}", flush=True)
    report = run_study(args.study, mode=mode, out=args.out, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.no_progress, parts=parts)
    print()
    print(report.markdown)
    print()
    print(f"finished in {report.seconds:.1f} s")
    for label, path in report.paths.items():
        print(f"{label:16s}: {Path(path).resolve()}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``treelab`` command and of ``python -m treelab``.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 2 for a usage or configuration error, 1 for a failed run.
    """
    args = _parser().parse_args(argv)
    handlers = {"run": _run, "demo": _demo, "list-data": _list_data, "warmup": _warmup,
                "reproduce": _reproduce, "investigate": _investigate}
    try:
        return handlers[args.command](args)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"treelab {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"treelab {args.command}: failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"treelab {args.command}: interrupted; finished cells are kept, run the same "
              "command again to resume", file=sys.stderr)
        return 130


def console() -> None:
    """The ``treelab`` command (and ``python -m treelab``): :func:`main`, then the process's
    exit without the interpreter's final passes of the garbage collector over every object
    it holds (:func:`treelab._collector.quick_exit_collection`; 0.8-1.1 s at the end of a
    ``treelab run``). Tests and other callers of :func:`main` keep their process's collector."""
    code = main()
    quick_exit_collection()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
