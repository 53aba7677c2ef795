"""Expansion of a configuration into cells: one :class:`Cell` per (data set, ensemble, alpha,
transform values, repeat, fold), each with the content hash that recognises it on disk."""

from __future__ import annotations

import hashlib
import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from treelab import _dims
from treelab.datasets import LabeledData
from treelab.experiment.config import ExperimentConfig
from treelab.experiment.data import load_base, outside_rows
from treelab.experiment.seeds import canonical_json
from treelab.protocols import make_protocol

__all__ = ["Cell", "check_sizes", "expand"]


@dataclass(frozen=True)
class Cell:
    """One cell: its position in the grid, its content hash and everything needed to run it.

    Attributes
    ----------
    index : int
        Position in expansion order (the order of the result's coordinates).
    key : str
        Hash of ``spec``: finished cells are recognised by it.
    coords : dict
        The cell's coordinates (dataset, ensemble, alpha, transform dims, repeat, fold).
    spec : dict
        Plain-JSON description passed to :func:`run_cell`.
    weight : float
        Rough relative cost, rows x features x trees of the data set before transforms (0
        when unknown, e.g. generator draws): the runner starts the heaviest cells first, so
        that no long cell is left running alone at the end of a run.
    """

    index: int
    key: str
    coords: dict[str, Any]
    spec: dict[str, Any]
    weight: float = 0.0


def _alpha_value(a: float) -> float | None:
    return None if math.isnan(a) else a


def check_sizes(data: LabeledData, protocol: Any, where: str,
                task: str = "classification") -> None:
    """Refuse a data set too small for the protocol's splits, before any cell runs.

    k-fold needs at least k rows, and (stratified) at least one class with k rows, as
    scikit-learn's splitters do; every other protocol must be able to make its first split
    (the protocol's own checks, e.g. a stratified holdout needs a test row per class). A class
    with fewer rows than the folds is allowed (it misses some test folds, as glass does in
    10-fold CV) but reported with a warning that names it.
    """
    from sklearn.utils.multiclass import type_of_target

    y = np.asarray(data.y)
    if task == "regression":
        _check_regression_sizes(data, protocol, where)
        return
    kind = type_of_target(y)
    if kind not in ("binary", "multiclass"):
        shown = ", ".join(map(str, np.unique(y)[:4]))
        raise ValueError(f"{where}: the labels are {kind} ({shown}, ...), not classes; an "
                         "experiment classifies (round or bin a numeric target first)")
    labels, counts = np.unique(y, return_counts=True)
    n_rows = int(counts.sum())
    rows = {str(c): int(n) for c, n in zip(labels, counts, strict=True)}
    if len(labels) < 2:
        raise ValueError(f"{where}: every row has the class {labels[0].item()!r} ({n_rows} "
                         "rows); "
                         "a classifier needs at least 2 classes")
    n_splits = getattr(protocol, "n_splits", None)
    if n_splits is not None:
        if n_rows < n_splits:
            raise ValueError(f"{where}: {n_rows} rows cannot make the {n_splits} folds of "
                             f"protocol {protocol.name!r}; use fewer folds")
        small = {c: n for c, n in rows.items() if n < n_splits}
        if small and len(small) == len(rows):
            raise ValueError(f"{where}: every class has fewer rows than the {n_splits} folds "
                             f"of protocol {protocol.name!r} (rows per class: {small}); use "
                             "fewer folds")
        if small:
            warnings.warn(f"{where}: classes {small} (rows) have fewer rows than the "
                          f"{n_splits} folds of protocol {protocol.name!r}, so some test folds "
                          "miss them; set min_class_size to drop them", UserWarning,
                          stacklevel=3)
        _check_training_classes(y, protocol, where)
        return
    try:
        if n_rows < 2:
            raise ValueError("a split needs at least 2 rows")
        if protocol.uses_generator:  # a draw protocol on a pool (bias_variance)
            next(iter(protocol.split(data)))
        else:
            next(iter(protocol.indices(data.y)))
    except ValueError as exc:
        raise ValueError(f"{where}: protocol {protocol.name!r} cannot split its {n_rows} rows "
                         f"(rows per class: {rows}): {exc}") from None
    if not protocol.uses_generator:
        _check_training_classes(y, protocol, where)


def _check_regression_sizes(data: LabeledData, protocol: Any, where: str) -> None:
    """A regression data set: finite real-valued targets, enough rows for the folds (or, for
    a draw protocol on the data set, for its first split)."""
    y = np.asarray(data.y)
    if y.dtype.kind not in "biuf":
        raise ValueError(f"{where}: a regression experiment needs real-valued targets; got "
                         f"dtype {y.dtype}")
    if not np.isfinite(y).all():
        raise ValueError(f"{where}: {int((~np.isfinite(y)).sum())} targets are NaN or "
                         "infinite; a regression experiment needs finite targets")
    n_splits = getattr(protocol, "n_splits", None)
    if n_splits is not None and y.size < n_splits:
        raise ValueError(f"{where}: {y.size} rows cannot make the {n_splits} folds of "
                         f"protocol {protocol.name!r}; use fewer folds")
    if y.size < 2:
        raise ValueError(f"{where}: a split needs at least 2 rows; got {y.size}")
    if protocol.uses_generator:  # a draw protocol on a pool (bias_variance), one stratum
        from dataclasses import replace

        strata = replace(data, y=np.zeros(y.size, dtype=np.int64), classes=None,
                         true_proba=None, true_target=None)
        try:
            next(iter(protocol.split(strata)))
        except ValueError as exc:
            raise ValueError(f"{where}: protocol {protocol.name!r} cannot split its {y.size} "
                             f"rows: {exc}") from None


def _check_training_classes(y: np.ndarray, protocol: Any, where: str) -> None:
    """Refuse a split whose training rows hold a single class (no classifier can be fitted on
    them), naming the first such repeat and fold: a tiny data set, before any cell runs."""
    for repeat, fold, train, _ in protocol.indices(y):
        classes = np.unique(y[train])
        if len(classes) < 2:
            raise ValueError(f"{where}: the training rows of repeat {repeat}, fold {fold} of "
                             f"protocol {protocol.name!r} hold the single class "
                             f"{classes[0].item()!r} ({len(train)} rows); a classifier needs 2 "
                             "classes: use fewer folds, a stratified protocol or more rows")


def expand(config: ExperimentConfig) -> list[Cell]:
    """Every cell of ``config``, in grid order.

    Grid order is dataset, ensemble, alpha, transform values (in configuration order), then
    the protocol's (repeat, fold) pairs.

    Parameters
    ----------
    config : ExperimentConfig
        The experiment.

    Returns
    -------
    list of Cell
    """
    if not isinstance(config, ExperimentConfig):
        raise TypeError(f"config must be an ExperimentConfig; got {type(config).__name__}")
    protocol = make_protocol(dict(config.protocol))
    transforms = [t.to_dict() for t in config.transforms]
    # the first measure keeps a dim or variable name that two report (values.own_dims): the
    # key, whose JSON sorts the measures, holds their order where it is not the sorted one
    # (the keys of a sorted order as before)
    order = list(config.measures)
    order = None if order == sorted(order) else order
    cells: list[Cell] = []
    for ds in config.datasets:
        n_rows = None
        size = 0.0
        rows = None
        if not protocol.uses_generator or ds.source != "generator":  # rows of a data set
            base = load_base(ds.to_dict(), config.seed, ds.root)
            rows = outside_rows(ds.to_dict(), ds.root, base)
            check_sizes(base, protocol, f"datasets[{ds.name!r}]", config.task)
            n_rows = base.n_samples
            size = float(base.n_samples) * base.n_features
        pairs = protocol.coords(n_rows)
        for ens in config.ensembles:
            for alpha in config.alphas_of(ens):
                params = dict(ens.params)
                if not math.isnan(alpha):
                    params["alpha"] = alpha
                for values in itertools.product(*(t["values"] for t in transforms)):
                    applied = [{**t, "value": v} for t, v in zip(transforms, values, strict=True)]
                    for v in applied:
                        v.pop("values")
                    for repeat, fold in pairs:
                        spec = {
                            "dataset": ds.to_dict(),
                            "transforms": applied,
                            "ensemble": {"name": ens.name, "estimator": ens.estimator,
                                         "params": params, "single": ens.single},
                            "alpha": _alpha_value(alpha),
                            "protocol": dict(config.protocol),
                            "repeat": repeat,
                            "fold": fold,
                            "seed": config.seed,
                            "measures": config.measures,
                        }
                        if config.task != "classification":  # classification keys unchanged
                            spec["task"] = config.task
                        if order is not None:
                            spec["measure_order"] = order
                        if rows is not None:  # rows of the user's, not fixed by the config
                            spec["rows"] = rows
                        key = hashlib.sha256(canonical_json(spec).encode()).hexdigest()[:32]
                        spec["root"] = ds.root
                        coords = {_dims.DATASET: ds.name, _dims.ENSEMBLE: ens.name,
                                  _dims.ALPHA: alpha}
                        coords.update({t["dim"]: t["value"] for t in applied})
                        coords.update({_dims.REPEAT: repeat, _dims.FOLD: fold})
                        trees = params.get("n_estimators", 100)
                        weight = size * (trees if isinstance(trees, int) else 100)
                        cells.append(Cell(len(cells), key, coords, spec, weight))
    return cells
