"""Evaluation protocols: seeded train/test splits indexed by ``repeat`` and ``fold``.

Every protocol yields :class:`Split` objects carrying their ``repeat`` and ``fold`` numbers, so
results of any protocol line up on the same two dims (a dim of length 1 where the protocol has
no repeats or no folds). Splitters come from :mod:`sklearn.model_selection` where it has them.

========================  ===========================================  =================
protocol                  what it does                                 repeat x fold
========================  ===========================================  =================
StratifiedKFold           stratified k-fold CV (10-fold: Liu et al.)   n_repeats x k
FiveByTwo                 5 x 2-fold CV (Dietterich 1998)              5 x 2
RepeatedHoldout           random 2/3-1/3 holdouts (Ali & Pazzani)      n_repeats x 1
LeaveOneOut               one row out at a time                        1 x n
GeneratorDraws            independent train and test draws             n_repeats x 1
BiasVariance              K training sets against one test set         K x 1
========================  ===========================================  =================

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised classification
learning algorithms. *Neural Computation* 10(7).
Ali, K. M. & Pazzani, M. J. (1995). UCI ICS TR 95-38 (30 trials of 2/3 train, 1/3 test).
Fan, W. et al. (2005). Effective estimation of posterior probabilities (bias-variance with K
training sets).
"""


from __future__ import annotations

import inspect
from typing import Any

from treelab.protocols._base import Protocol, Split
from treelab.protocols._draw import BiasVariance, GeneratorDraws
from treelab.protocols._index import FiveByTwo, LeaveOneOut, RepeatedHoldout, StratifiedKFold

__all__ = [
    "PROTOCOLS",
    "BiasVariance",
    "FiveByTwo",
    "GeneratorDraws",
    "LeaveOneOut",
    "Protocol",
    "RepeatedHoldout",
    "Split",
    "StratifiedKFold",
    "make_protocol",
    "protocol_keys",
]

#: Protocol classes by configuration name.
PROTOCOLS: dict[str, type[Protocol]] = {
    "stratified_kfold": StratifiedKFold,
    "kfold": StratifiedKFold,
    "5x2": FiveByTwo,
    "holdout": RepeatedHoldout,
    "loo": LeaveOneOut,
    "draws": GeneratorDraws,
    "bias_variance": BiasVariance,
}


def protocol_keys(name: str) -> frozenset[str]:
    """The keys a protocol table of protocol ``name`` may hold (``name`` and its parameters)."""
    sig = inspect.signature(PROTOCOLS[name])
    return frozenset({"name", *(p for p in sig.parameters
                                if sig.parameters[p].kind is not inspect.Parameter.VAR_KEYWORD)})


def make_protocol(spec: str | dict[str, Any] | Protocol, *,
                  random_state: int | None = None) -> Protocol:
    """Build a protocol from its name and parameters.

    Parameters
    ----------
    spec : str, dict or Protocol
        A name of :data:`PROTOCOLS`, or ``{"name": ..., **parameters}``; a Protocol is returned
        as is.
    random_state : int or None, default None
        Seed used when ``spec`` gives none.

    Returns
    -------
    Protocol
    """
    if isinstance(spec, Protocol):
        return spec
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, dict) or "name" not in spec:
        raise TypeError(f"spec must be a protocol name, a dict with 'name', or a Protocol; "
                        f"got {spec!r}")
    params = dict(spec)
    name = params.pop("name")
    if name not in PROTOCOLS:
        raise ValueError(f"protocol name must be one of {sorted(PROTOCOLS)}; got {name!r}")
    accepted = protocol_keys(name) - {"name"}
    unknown = set(params) - accepted
    if unknown:
        raise ValueError(f"protocol {name!r}: unknown keys {sorted(unknown)}; allowed "
                         f"{sorted(accepted | {'name'})}")
    params.setdefault("random_state", random_state)
    try:
        return PROTOCOLS[name](**params)
    except TypeError as exc:
        raise TypeError(f"protocol {name!r}: {exc}") from None
