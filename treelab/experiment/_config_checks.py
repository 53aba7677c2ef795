"""Checks of a configuration's entries against each other and against the task and protocol:
UCI data sets present in their bundle, data sets of the task's kind, names used once, data
sets a protocol can draw or split, and the measures. :class:`treelab.experiment.config.
ExperimentConfig` runs them when it is built, before any cell runs; every error names the
entry."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from treelab.datasets.generators import SIZED_GENERATORS
from treelab.experiment.groups import GROUP_MEASURES, check_group_options
from treelab.experiment.schema import DatasetSpec, check_jsonable
from treelab.protocols import Protocol

__all__ = ["REGRESSION_GENERATORS", "REGRESSION_MEASURES", "check_datasets_protocol",
           "check_measures", "check_task_datasets", "check_uci", "check_unique"]


def check_datasets_protocol(datasets: tuple[DatasetSpec, ...], proto: Protocol) -> None:
    """A draw protocol reads generators it can size (``bias_variance`` any data set); a fixed
    test set is for a draw protocol's generator, ``min_class_size`` for a data set that is
    split."""
    if proto.uses_generator:
        bad = [d.name for d in datasets
               if d.source != "generator" and not proto.name == "bias_variance"]
        bad += [d.name for d in datasets
                if d.source == "generator" and d.generator not in SIZED_GENERATORS]
        if bad:
            raise ValueError(f"protocol {proto.name!r} draws rows from a generator; data "
                             f"sets {bad} cannot be drawn from")
    for d in datasets:
        drawn = proto.uses_generator and d.source == "generator"
        if d.test and not drawn:  # read by a draw protocol's generator source alone
            raise ValueError(f"datasets[{d.name!r}].test: a fixed test set is for the "
                             "draw protocols (draws, bias_variance) on a generator; "
                             f"protocol {proto.name!r} tests on rows of the data set")
        if d.min_class_size and drawn:  # no data set to drop classes from
            raise ValueError(f"datasets[{d.name!r}].min_class_size: protocol "
                             f"{proto.name!r} draws every repeat's rows afresh from the "
                             "generator; min_class_size applies to a data set that is split")


def check_uci(datasets: tuple[DatasetSpec, ...]) -> None:
    """UCI data sets must exist in their bundle (checked before anything runs)."""
    from treelab.datasets.loaders import _read_index, find_uci_root

    listed: dict[str | None, set[str]] = {}
    for d in datasets:
        if d.uci is None:
            continue
        if d.root not in listed:
            entries = _read_index(find_uci_root(d.root))
            listed[d.root] = {e["name"] for e in entries} | {
                a for e in entries for a in (e.get("aliases") or [])}
        if d.uci not in listed[d.root]:
            raise ValueError(f"datasets[{d.name!r}].uci: {d.uci!r} is not in the UCI bundle; "
                             f"available: {', '.join(sorted(listed[d.root]))}")


#: Generators whose rows have real-valued targets (a regression experiment's generators).
REGRESSION_GENERATORS = frozenset({"friedman1", "friedman2", "friedman3", "poisson_counts"})
#: The measures of a regression experiment: ``diagnose`` per cell (it calls
#: ``diagnose_regression``) and the group measures over the K training sets.
REGRESSION_MEASURES = ("diagnose", "bias_variance_diversity", "louppe_variance")


def check_task_datasets(datasets: tuple[DatasetSpec, ...], task: str) -> None:
    """A regression experiment reads real-valued targets, a classification one classes: a
    source of the other kind is refused before anything runs, naming the entry."""
    for d in datasets:
        where = f"datasets[{d.name!r}]"
        if task == "regression":
            if d.source in ("uci", "builtin") or (
                    d.source == "generator" and d.generator not in REGRESSION_GENERATORS):
                raise ValueError(f"{where}: {d.source} {getattr(d, d.source)!r} has classes; "
                                 "a regression experiment reads generators "
                                 f"{sorted(REGRESSION_GENERATORS)}, regression = '<name>' "
                                 "(load_regression) or a file")
            for key in ("min_class_size", "test"):
                if getattr(d, key):
                    raise ValueError(f"{where}.{key} applies to classification only")
        elif d.source == "regression" or (d.source == "generator"
                                          and d.generator in REGRESSION_GENERATORS):
            raise ValueError(f"{where}: {d.source} {getattr(d, d.source)!r} has real-valued "
                             "targets; set task = 'regression'")


def check_unique(names: list[str], where: str) -> None:
    """Each name once in ``where``, else a ValueError naming the repeated one."""
    seen = set()
    for n in names:
        if n in seen:
            raise ValueError(f"{where}: the name {n!r} is used twice")
        seen.add(n)


#: First-parameter names of analysis functions the runner knows how to feed per cell.
_MEASURE_INPUTS = {"ensemble", "member_labels", "proba"}


def check_measures(measures: Any, task: str = "classification") -> dict[str, dict[str, Any]]:
    """``measures`` (names, or a table of name -> options) checked against the task: each a
    function of :mod:`treelab.analysis` a cell can feed (or a group measure) with options it
    accepts; returns name -> options."""
    import treelab.analysis as analysis

    if isinstance(measures, str):
        measures = [measures]
    if isinstance(measures, Mapping):
        items = list(measures.items())
    elif isinstance(measures, Sequence) and measures:
        items = [(m, {}) for m in measures]
    else:
        raise ValueError(f"measures must be a non-empty list of analysis function names or a "
                         f"table of name -> options; got {measures!r}")
    out: dict[str, dict[str, Any]] = {}
    if task == "regression":
        for name, options in items:
            if name not in REGRESSION_MEASURES:
                raise ValueError(f"measures: {name!r} is not a measure of a regression "
                                 f"experiment; it takes {list(REGRESSION_MEASURES)}")
            if not isinstance(options, Mapping):
                raise TypeError(f"measures.{name} options must be a table; got {options!r}")
            options = check_jsonable(dict(options), f"measures.{name}")
            if name == "diagnose":
                if options:
                    raise ValueError("measures.diagnose takes no options in a regression "
                                     f"experiment; got {sorted(options)}")
                out[name] = {}
            else:
                out[name] = check_group_options(name, options, task)
        return out
    for name, options in items:
        if not isinstance(name, str) or name not in getattr(analysis, "__all__", ()):
            raise ValueError(f"measures: {name!r} is not a function of treelab.analysis")
        if not isinstance(options, Mapping):
            raise TypeError(f"measures.{name} options must be a table; got {options!r}")
        if name in GROUP_MEASURES:  # over the K training sets of a grid point
            out[name] = check_group_options(
                name, check_jsonable(dict(options), f"measures.{name}"))
            continue
        fn = getattr(analysis, name)
        params = list(inspect.signature(fn).parameters.values())
        first = params[0].name if params else ""
        if name != "diagnose" and first not in _MEASURE_INPUTS:
            raise ValueError(f"measures: {name!r} needs inputs that a single cell does not "
                             f"have (first parameter {first!r}); call it on the assembled "
                             "result instead")
        options = dict(check_jsonable(dict(options), f"measures.{name}"))
        accepted = {p.name for p in params[1:]}
        unknown = set(options) - accepted
        if unknown:
            raise ValueError(f"measures.{name}: unknown options {sorted(unknown)}")
        out[name] = options
    return out
