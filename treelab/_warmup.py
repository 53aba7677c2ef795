"""Compile the engine ahead of use: ``treelab warmup`` (and ``python -m treelab warmup``).

Each step fits one estimator on a small generated data set (continuous and nominal features,
a few missing values) and calls ``predict_proba``, then does the same on its continuous
columns and complete rows (the prediction kernels' lockstep-only version), which compiles
the kernels its family needs and writes them to numba's cache (:mod:`treelab._cache`); later
processes load them in well under a second. For container images and CI, where the first
user fit should not pay the compilation.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["warmup", "warmup_steps"]


def _data() -> tuple[Any, np.ndarray]:
    """60 rows, three classes: two continuous features (one with missing values) and one
    nominal feature, as a DataFrame so the nominal column is declared as such."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 60
    y = np.repeat(np.arange(3), n // 3)
    x0 = y + rng.normal(0, 0.7, n)
    x1 = rng.normal(0, 1, n)
    x1[::11] = np.nan
    x2 = pd.Categorical(np.array(["a", "b", "c"])[(y + rng.integers(0, 2, n)) % 3])
    return pd.DataFrame({"x0": x0, "x1": x1, "x2": x2}), y


def _complete(X, y) -> tuple[Any, np.ndarray]:
    """The continuous columns of ``_data`` on the rows without a missing value."""
    keep = X["x1"].notna().to_numpy()
    return X.loc[keep, ["x0", "x1"]], y[keep]


def _estimator_names() -> list[str]:
    import treelab

    return [name for name in treelab.__all__
            if inspect.isclass(getattr(treelab, name, None))]


def _fit_step(name: str) -> Callable[[], None]:
    def step() -> None:
        from sklearn.base import RegressorMixin

        import treelab

        X, y = _data()
        cls = getattr(treelab, name)
        params = {"random_state": 0}
        if "n_estimators" in inspect.signature(cls).parameters:
            params["n_estimators"] = 4
        if issubclass(cls, RegressorMixin):
            # a real target (the growth routine's regression version), on nominal and
            # missing data, then on numeric features alone
            cls(**params).fit(X, y + 0.5).predict(X)
            Xc, yc = _complete(X, y)
            cls(**params).fit(Xc, yc + 0.5).predict(Xc)
            return
        model = cls(**params).fit(X, y)
        model.predict_proba(X)
        # threshold-only trees and rows without missing values: the prediction kernels'
        # lockstep-only version (Forest.walk_arrays), a user's first prediction on iris
        Xc, yc = _complete(X, y)
        cls(**params).fit(Xc, yc).predict_proba(Xc)
    return step


def _diagnose_step() -> None:
    # diagnose's computation without its Dataset: the same kernels. A Dataset built here
    # would import dask.array into the workers' server (0.25 s before any cell), which the
    # cells, storing plain arrays, never need
    import treelab
    from treelab.analysis.diagnose import diagnose_parts

    X, y = _data()
    model = treelab.VRTrees(n_estimators=4, random_state=0).fit(X, y)
    diagnose_parts(model, X, y)
    model._member_pass(X)  # the experiment runner's one-walk pass for diagnose
    Xc, yc = _complete(X, y)  # the lockstep-only prediction kernels, as in _fit_step
    complete = treelab.VRTrees(n_estimators=4, random_state=0).fit(Xc, yc)
    diagnose_parts(complete, Xc, yc)
    complete._member_pass(Xc)


def warmup_steps(estimators: Iterable[str] | None = None,
                 analysis: bool = True) -> list[tuple[str, Callable[[], None]]]:
    """The warm-up steps, as (label, function) pairs.

    Parameters
    ----------
    estimators : iterable of str, optional
        treelab estimator names (``"VRTrees"``, ``"MMDT"``, ...); default every estimator in
        ``treelab.__all__``. Names that are not treelab estimators are left out.
    analysis : bool, default True
        Also run :func:`treelab.analysis.diagnose` once.

    Returns
    -------
    list of (str, callable)
    """
    known = _estimator_names()
    names = known if estimators is None else [n for n in dict.fromkeys(estimators)
                                              if n in known]
    steps = [(name, _fit_step(name)) for name in names]
    if analysis:
        steps.append(("diagnose", _diagnose_step))
    return steps


def warmup(estimators: Sequence[str] | None = None, *, analysis: bool = True,
           progress: bool = True) -> dict[str, float]:
    """Compile every kernel the named estimators (default: all) and ``diagnose`` need.

    With the cache already written each step only loads it (well under a second).

    Parameters
    ----------
    estimators : sequence of str, optional
        treelab estimator names; default every estimator.
    analysis : bool, default True
        Also warm up :func:`treelab.analysis.diagnose`.
    progress : bool, default True
        Show a tqdm progress bar.

    Returns
    -------
    dict
        Seconds each step took, by label.
    """
    from treelab._bars import progress_bar

    steps = warmup_steps(estimators, analysis=analysis)
    times: dict[str, float] = {}
    with progress_bar(progress, total=len(steps), desc="treelab warmup", unit="step",
                      dynamic_ncols=True) as bar:
        for label, step in steps:
            bar.set_postfix_str(label, refresh=True)
            started = time.perf_counter()
            step()
            times[label] = time.perf_counter() - started
            bar.update(1)
    return times
