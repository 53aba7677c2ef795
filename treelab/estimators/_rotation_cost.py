"""What a rotation forest's rotations cost, estimated before any work, and the warning that
names the nominal columns behind a large estimate."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["ROTATION_WORK_WARN", "RotationCostWarning", "rotation_work", "warn_rotation_cost"]

#: estimated rotation work (see :func:`rotation_work`) above which fit warns first
ROTATION_WORK_WARN = 1e11


class RotationCostWarning(RuntimeWarning):
    """A rotation forest's estimated work is large enough to take minutes (many real
    features, usually the one-hot block of a nominal column with many levels)."""


def rotation_work(n_trees: int, rotation: str, n_rows: int, n_real: int) -> float:
    """Estimated operations of growing ``n_trees`` rotations on ``n_rows`` rows of ``n_real``
    real features: per tree d^3 to draw random axes (a QR decomposition; ``rotation="random"``
    only) plus n d^2 to project every row on every axis."""
    d = float(n_real)
    cube = d ** 3 if rotation == "random" else 0.0
    return n_trees * (cube + float(n_rows) * d * d)


def warn_rotation_cost(est: Any, n_rows: int, n_real: int) -> None:
    """Warn before the work when the rotations of ``est`` (a RotationForest being fitted) are
    costly, naming the nominal columns whose one-hot blocks make up the real features."""
    work = est.rotation_work(n_rows, n_real)
    if work <= ROTATION_WORK_WARN:
        return
    names = getattr(est, "feature_names_in_", None)
    blocks = sorted(((int(m), j) for j, m in enumerate(est.arity_)
                     if est.nominal_features_[j]), reverse=True)
    named = ", ".join(f"{names[j] if names is not None else j!r} ({m:,} levels)"
                      for m, j in blocks[:3])
    cause = (f"; the one-hot blocks of nominal column(s) {named} make up "
             f"{sum(m for m, _ in blocks):,} of them" if blocks else "")
    warnings.warn(
        f"{type(est).__name__} rotates {n_real:,} real features per tree{cause}: estimated work "
        f"n_estimators x ({'d^3 + ' if est.rotation == 'random' else ''}n d^2) = "
        f"{work:.1e} operations on {n_rows:,} rows, cubic in the features (a machine does "
        "roughly 1e9 to 1e10 of them a second: minutes or more). Group rare levels into "
        "fewer, or use a learner that splits nominal columns directly (RandomForest, "
        "VRTrees).",
        RotationCostWarning, stacklevel=6)
