"""Protocols that split one data set by row indices (k-fold, 5x2, holdout, leave-one-out)."""

from __future__ import annotations

import warnings
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn import model_selection

from treelab.datasets._data import LabeledData
from treelab.protocols._base import (
    Protocol,
    Split,
    _check_count,
    _check_size,
)


class _IndexProtocol(Protocol):
    """Protocols that split one data set by row indices."""

    @abstractmethod
    def indices(self, y: np.ndarray) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Yield (repeat, fold, train indices, test indices) for labels ``y``."""

    def split(self, data: LabeledData, **kwargs: Any) -> Iterator[Split]:
        """Yield every split of ``data``.

        Parameters
        ----------
        data : LabeledData
            The data set to split.

        Yields
        ------
        Split
        """
        if kwargs:
            raise TypeError(f"unexpected arguments {sorted(kwargs)}")
        if not isinstance(data, LabeledData):
            raise TypeError(f"data must be a LabeledData; got {type(data).__name__}")
        for repeat, fold, tr, te in self.indices(data.y):
            yield Split(repeat, fold, data.take(tr), data.take(te), tr, te)


class StratifiedKFold(_IndexProtocol):
    """Stratified k-fold cross-validation, optionally repeated with fresh shuffles.

    Parameters
    ----------
    n_splits : int, default 10
        Number of folds (10 in Liu et al. 2008).
    n_repeats : int, default 1
        Number of repetitions (``sklearn.model_selection.RepeatedStratifiedKFold``).
    random_state : int or None, default None
        Seed of the shuffles (None draws one at construction).

    Notes
    -----
    A class with fewer rows than ``n_splits`` cannot appear in every fold; scikit-learn warns
    about that, which this protocol silences (it is expected on small UCI sets).
    """

    name = "stratified_kfold"

    def __init__(self, n_splits: int = 10, *, n_repeats: int = 1,
                 random_state: int | None = None) -> None:
        self.n_splits = _check_count("n_splits", n_splits, 2)
        self.n_repeats = _check_count("n_repeats", n_repeats, 1)
        super().__init__(random_state=random_state)

    def params(self) -> dict[str, Any]:  # noqa: D102
        return {"n_splits": self.n_splits, "n_repeats": self.n_repeats, **super().params()}

    def coords(self, n_samples: int | None = None) -> list[tuple[int, int]]:  # noqa: D102
        return [(r, f) for r in range(self.n_repeats) for f in range(self.n_splits)]

    def indices(self, y: np.ndarray) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Yield (repeat, fold, train, test) index arrays for labels ``y``."""
        splitter = model_selection.RepeatedStratifiedKFold(
            n_splits=self.n_splits, n_repeats=self.n_repeats, random_state=self.random_state
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*least populated class.*")
            splits = list(splitter.split(np.zeros((len(y), 1)), y))
        for i, (tr, te) in enumerate(splits):
            yield i // self.n_splits, i % self.n_splits, tr, te


class FiveByTwo(StratifiedKFold):
    """5 x 2 cross-validation (Dietterich 1998): five repetitions of stratified 2-fold CV.

    Parameters
    ----------
    random_state : int or None, default None
        Seed of the shuffles.
    """

    name = "5x2"

    def __init__(self, *, random_state: int | None = None) -> None:
        super().__init__(2, n_repeats=5, random_state=random_state)

    def params(self) -> dict[str, Any]:  # noqa: D102
        return {"random_state": self.random_state}


class RepeatedHoldout(_IndexProtocol):
    """Repeated random holdout: ``n_repeats`` independent train/test partitions.

    Parameters
    ----------
    n_repeats : int, default 30
        Number of trials (30 in Ali & Pazzani 1995).
    test_size : float or int, default 1/3
        Test share (or row count) of every trial.
    stratify : bool, default True
        Keep class shares (``StratifiedShuffleSplit``; ``ShuffleSplit`` otherwise). When a
        class has a single row, stratification is impossible and ``ShuffleSplit`` is used.
    random_state : int or None, default None
        Seed of the partitions.
    """

    name = "holdout"

    def __init__(self, n_repeats: int = 30, *, test_size: float | int = 1 / 3,
                 stratify: bool = True, random_state: int | None = None) -> None:
        self.n_repeats = _check_count("n_repeats", n_repeats, 1)
        self.test_size = _check_size("test_size", test_size)
        if not isinstance(stratify, bool):
            raise TypeError(f"stratify must be a bool; got {stratify!r}")
        self.stratify = stratify
        super().__init__(random_state=random_state)

    def params(self) -> dict[str, Any]:  # noqa: D102
        return {"n_repeats": self.n_repeats, "test_size": self.test_size,
                "stratify": self.stratify, **super().params()}

    def coords(self, n_samples: int | None = None) -> list[tuple[int, int]]:  # noqa: D102
        return [(r, 0) for r in range(self.n_repeats)]

    def indices(self, y: np.ndarray) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Yield (repeat, 0, train, test) index arrays for labels ``y``."""
        _, counts = np.unique(y, return_counts=True)
        cls = (model_selection.StratifiedShuffleSplit
               if self.stratify and counts.min() >= 2 else model_selection.ShuffleSplit)
        splitter = cls(n_splits=self.n_repeats, test_size=self.test_size,
                       random_state=self.random_state)
        for r, (tr, te) in enumerate(splitter.split(np.zeros((len(y), 1)), y)):
            yield r, 0, np.sort(tr), np.sort(te)


class LeaveOneOut(_IndexProtocol):
    """Leave-one-out: fold i tests row i and trains on the rest (``repeat`` is always 0).

    Parameters
    ----------
    random_state : int or None, default None
        Unused (the protocol is deterministic); kept for a uniform interface.
    """

    name = "loo"

    def coords(self, n_samples: int | None = None) -> list[tuple[int, int]]:  # noqa: D102
        if n_samples is None:
            raise ValueError("LeaveOneOut needs n_samples to list its folds")
        return [(0, i) for i in range(int(n_samples))]

    def indices(self, y: np.ndarray) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Yield (0, i, train, [i]) for every row i."""
        for i, (tr, te) in enumerate(model_selection.LeaveOneOut().split(np.zeros((len(y), 1)))):
            yield 0, i, tr, te
