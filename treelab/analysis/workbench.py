"""The workbench measures that :func:`treelab.analysis.diagnose` computes on request
(``measures=``), from the member labels, ensemble probabilities and margins of its one member
pass."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from treelab.analysis._dataset import Var
from treelab.analysis.kuncheva import nonpairwise_diversity, pairwise_diversity
from treelab.analysis.margins import margin_cdf
from treelab.analysis.probability import unit_rows

__all__ = ["MEASURES", "check_measures", "measure_vars"]

#: Names accepted by ``diagnose(..., measures=...)``.
MEASURES = ("pairwise_diversity", "nonpairwise_diversity", "probability_quality", "margin_cdf")


def check_measures(measures: Any) -> tuple[str, ...]:
    """A measure name or a sequence of them, each one of :data:`MEASURES`."""
    if measures is None:
        return ()
    names = (measures,) if isinstance(measures, str) else tuple(measures)
    for name in names:
        if name not in MEASURES:
            raise ValueError(f"measures holds {name!r}; known measures: {list(MEASURES)}")
    return tuple(dict.fromkeys(names))


def _compute(name: str, labels: np.ndarray, y: np.ndarray, n_classes: int,
             proba: np.ndarray, taken: Mapping[str, Var], n_all: int) -> xr.Dataset:
    if name == "pairwise_diversity":
        return pairwise_diversity(labels, y, n_classes=n_all)
    if name == "nonpairwise_diversity":
        return nonpairwise_diversity(labels, y, n_classes=n_all)
    if name == "margin_cdf":  # of the margins diagnose already has (strength is their mean)
        return margin_cdf(np.asarray(taken["margin"].data)).to_dataset()
    from treelab.stats import probability_quality  # stats builds on analysis: import late

    if n_classes < 2:
        return xr.Dataset()
    return probability_quality(unit_rows(proba), y)


def measure_vars(
    measures: tuple[str, ...],
    labels: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    proba: np.ndarray,
    taken: Mapping[str, Var],
    n_all: int | None = None,
) -> tuple[dict[str, Var], dict[str, np.ndarray]]:
    """Variables of the requested measures and the coordinates of their dims. ``n_classes``
    counts the model's classes, ``n_all`` those and the test classes it never saw (codes
    ``n_classes..n_all-1`` in ``y``; default ``n_classes``), which the diversity measures
    count as classes of their own, as :func:`diagnose` does. A name already
    in ``taken`` with equal values is dropped (``member_error``); one with other values gets the
    measure's name as prefix (``pairwise_diversity_correlation`` beside Breiman's
    ``correlation``). ``taken`` must hold diagnose's ``margin`` for ``"margin_cdf"``."""
    out: dict[str, Var] = {}
    coords: dict[str, np.ndarray] = {}
    for name in measures:
        ds = _compute(name, labels, y, n_classes, proba, taken,
                      n_classes if n_all is None else n_all)
        coords.update({str(d): np.asarray(ds[d].values) for d in ds.dims if d in ds.coords})
        for key, da in ds.data_vars.items():
            key = str(key)
            if key in taken or key in out:
                old = taken.get(key) or out[key]
                if np.array_equal(np.asarray(old.data), da.values, equal_nan=True):
                    continue
                key = f"{name}_{key}"
            attrs = da.attrs
            rng = attrs.get("valid_range")
            out[key] = Var(
                tuple(str(d) for d in da.dims),
                da.values,
                str(attrs.get("long_name", key)),
                units=str(attrs.get("units", "1")),
                valid_range=None if rng is None else (float(rng[0]), float(rng[1])),
                cite=str(attrs.get("cite", "")),
                description=f"diagnose(measures=[{name!r}])",
            )
    return out, coords
