"""Expansion of a configuration into cells: one :class:`Cell` per (data set, ensemble, alpha,
transform values, repeat, fold), each with the content hash that recognises it on disk."""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from typing import Any

from treelab import _dims
from treelab.experiment.config import ExperimentConfig
from treelab.experiment.data import load_base
from treelab.experiment.seeds import canonical_json
from treelab.protocols import make_protocol

__all__ = ["Cell", "expand"]


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
    """

    index: int
    key: str
    coords: dict[str, Any]
    spec: dict[str, Any]


def _alpha_value(a: float) -> float | None:
    return None if math.isnan(a) else a


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
    cells: list[Cell] = []
    for ds in config.datasets:
        n_rows = None
        if protocol.name == "loo":
            n_rows = load_base(ds.to_dict(), config.seed).n_samples
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
                        key = hashlib.sha256(canonical_json(spec).encode()).hexdigest()[:32]
                        spec["root"] = ds.root
                        coords = {_dims.DATASET: ds.name, _dims.ENSEMBLE: ens.name,
                                  _dims.ALPHA: alpha}
                        coords.update({t["dim"]: t["value"] for t in applied})
                        coords.update({_dims.REPEAT: repeat, _dims.FOLD: fold})
                        cells.append(Cell(len(cells), key, coords, spec))
    return cells
