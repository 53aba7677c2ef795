"""Protocols that draw their rows from a generator (independent draws, bias-variance sets)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn import model_selection

from treelab.datasets._data import LabeledData
from treelab.protocols._base import (
    Protocol,
    Source,
    Split,
    _check_count,
    _check_size,
    _child_seed,
)


class _DrawProtocol(Protocol):
    """Protocols that draw training (and test) rows from a generator source."""

    uses_generator = True

    def __init__(self, n_repeats: int, n_train: int, n_test: int, *,
                 random_state: int | None) -> None:
        self.n_repeats = _check_count("n_repeats", n_repeats, 1)
        self.n_train = _check_count("n_train", n_train, 1)
        self.n_test = _check_count("n_test", n_test, 1)
        super().__init__(random_state=random_state)

    def coords(self, n_samples: int | None = None) -> list[tuple[int, int]]:  # noqa: D102
        return [(r, 0) for r in range(self.n_repeats)]

    def _test_seed(self, repeat: int) -> int:
        raise NotImplementedError

    def split(self, data: Source | LabeledData, *, test: LabeledData | None = None,
              **kwargs: Any) -> Iterator[Split]:
        """Yield one split per repeat.

        Parameters
        ----------
        data : callable or LabeledData
            ``data(n_samples, random_state) -> LabeledData`` (a generator), or for
            :class:`BiasVariance` also a LabeledData pool.
        test : LabeledData, optional
            A fixed test set (e.g. :func:`~treelab.datasets.concepts_lattice`) used instead
            of drawing test rows.

        Yields
        ------
        Split
        """
        if kwargs:
            raise TypeError(f"unexpected arguments {sorted(kwargs)}")
        if not callable(data):
            raise TypeError(f"data must be a generator source callable(n_samples, random_state); "
                            f"got {type(data).__name__}")
        if test is not None and not isinstance(test, LabeledData):
            raise TypeError(f"test must be a LabeledData or None; got {type(test).__name__}")
        cached: dict[int, LabeledData] = {}
        for r in range(self.n_repeats):
            train = data(self.n_train, _child_seed(self.random_state, r, 0))
            if test is None:
                seed = self._test_seed(r)
                if seed not in cached:
                    cached = {seed: data(self.n_test, seed)}
                test_r = cached[seed]
            else:
                test_r = test
            yield Split(r, 0, train, test_r)

    def get(self, data: Any, repeat: int, fold: int, **kwargs: Any) -> Split:  # noqa: D102
        if not callable(data):
            return super().get(data, repeat, fold, **kwargs)
        if fold != 0 or not 0 <= repeat < self.n_repeats:
            raise ValueError(f"no split at repeat={repeat}, fold={fold} in {self!r}")
        test = kwargs.pop("test", None)
        if kwargs:
            raise TypeError(f"unexpected arguments {sorted(kwargs)}")
        train = data(self.n_train, _child_seed(self.random_state, repeat, 0))
        if test is None:
            test = data(self.n_test, self._test_seed(repeat))
        return Split(repeat, 0, train, test)


class GeneratorDraws(_DrawProtocol):
    """Independent training and test draws from a generator, ``n_repeats`` times.

    Used for KRK, concepts A/B and the synthetic problems, where fresh data can be drawn.

    Parameters
    ----------
    n_repeats : int, default 10
        Number of independent (train, test) pairs.
    n_train : int, default 1000
        Training rows per draw.
    n_test : int, default 10000
        Test rows per draw (ignored when a fixed test set is passed to :meth:`split`).
    random_state : int or None, default None
        Seed from which every draw's seed is derived.
    """

    name = "draws"

    def __init__(self, n_repeats: int = 10, *, n_train: int = 1000, n_test: int = 10000,
                 random_state: int | None = None) -> None:
        super().__init__(n_repeats, n_train, n_test, random_state=random_state)

    def params(self) -> dict[str, Any]:  # noqa: D102
        return {"n_repeats": self.n_repeats, "n_train": self.n_train, "n_test": self.n_test,
                **super().params()}

    def _test_seed(self, repeat: int) -> int:
        return _child_seed(self.random_state, repeat, 1)


class BiasVariance(_DrawProtocol):
    """K training sets against one fixed test set, for bias-variance decompositions.

    From a generator: K independent training draws and one test draw. From a data set (a pool):
    one stratified test split, and K training sets drawn without replacement from the rest.

    Parameters
    ----------
    n_sets : int, default 100
        K, the number of training sets (the ``repeat`` dim).
    n_train : int, default 1000
        Rows per training set (from a pool: at most the rows left after the test split).
    n_test : int or float, default 10000
        Test rows (a generator), or test rows or fraction (a pool; default there 1/3 when the
        count exceeds the pool).
    random_state : int or None, default None
        Seed of every draw.

    References
    ----------
    Fan, W. et al. (2005), section on bias and variance of probability estimates.
    """

    name = "bias_variance"

    def __init__(self, n_sets: int = 100, *, n_train: int = 1000, n_test: int | float = 10000,
                 random_state: int | None = None) -> None:
        self.test_fraction = None
        if isinstance(n_test, float):
            self.test_fraction = _check_size("n_test", n_test)
            n_test_count = 1
        else:
            n_test_count = n_test
        super().__init__(n_sets, n_train, n_test_count, random_state=random_state)
        self.n_sets = self.n_repeats

    def params(self) -> dict[str, Any]:  # noqa: D102
        return {"n_sets": self.n_sets, "n_train": self.n_train,
                "n_test": self.test_fraction if self.test_fraction is not None else self.n_test,
                **super().params()}

    def _test_seed(self, repeat: int) -> int:
        return _child_seed(self.random_state, 0, 1)  # the same test set for every repeat

    def split(self, data: Source | LabeledData, *, test: LabeledData | None = None,
              **kwargs: Any) -> Iterator[Split]:
        """Yield the K splits (see :class:`BiasVariance`); ``data`` may be a generator or pool."""
        if not isinstance(data, LabeledData):
            if self.test_fraction is not None and test is None:
                raise ValueError("n_test must be a row count when drawing from a generator")
            yield from super().split(data, test=test, **kwargs)
            return
        if kwargs or test is not None:
            raise TypeError("a pool data set takes no further arguments")
        n = data.n_samples
        test_size = self.test_fraction
        if test_size is None:
            test_size = self.n_test if self.n_test < n else 1 / 3
        _, counts = np.unique(data.y, return_counts=True)
        cls = (model_selection.StratifiedShuffleSplit if counts.min() >= 2
               else model_selection.ShuffleSplit)
        rest, te = next(cls(n_splits=1, test_size=test_size,
                            random_state=self.random_state).split(np.zeros((n, 1)), data.y))
        rest, te = np.sort(rest), np.sort(te)
        if self.n_train > rest.size:
            raise ValueError(f"n_train={self.n_train} exceeds the {rest.size} rows left in the "
                             "pool after the test split")
        test_data = data.take(te)
        for r in range(self.n_repeats):
            rng = np.random.default_rng(_child_seed(self.random_state, r, 0))
            tr = np.sort(rng.choice(rest, size=self.n_train, replace=False))
            yield Split(r, 0, data.take(tr), test_data, tr, te)
