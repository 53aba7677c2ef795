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
import numbers
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn import model_selection

from treelab._dims import FOLD, REPEAT
from treelab.datasets._data import LabeledData

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

#: A generator source for draw-based protocols: ``source(n_samples, random_state)``.
Source = Callable[[int, int], LabeledData]


@dataclass(frozen=True, eq=False)
class Split:
    """One train/test split.

    Attributes
    ----------
    repeat, fold : int
        Coordinates of the split on the ``repeat`` and ``fold`` dims.
    train, test : LabeledData
        The training and test rows.
    train_index, test_index : numpy.ndarray or None
        Row indices into the data set for index-based protocols (None for generator draws).
    """

    repeat: int
    fold: int
    train: LabeledData
    test: LabeledData
    train_index: np.ndarray | None = None
    test_index: np.ndarray | None = None


def _check_seed(random_state: Any) -> int:
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) \
            or random_state < 0:
        raise TypeError(f"random_state must be a non-negative int or None; got {random_state!r}")
    return int(random_state)


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def _check_size(name: str, value: Any) -> float | int:
    """A test/train size: a fraction in (0, 1) or a row count >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a fraction in (0, 1) or a row count; got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"{name} as a row count must be >= 1; got {value}")
        return int(value)
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} as a fraction must be in (0, 1); got {value}")
    return float(value)


def _child_seed(seed: int, *keys: int) -> int:
    """A seed derived from ``seed`` and integer keys, independent of call order."""
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


class Protocol(ABC):
    """Base class: a seeded way of producing train/test splits on the repeat and fold dims."""

    #: The dims every protocol indexes its splits by.
    dims = (REPEAT, FOLD)
    #: True when the protocol draws data from a generator instead of splitting a data set.
    uses_generator = False
    name = "protocol"

    def __init__(self, *, random_state: int | None = None) -> None:
        self.random_state = _check_seed(random_state)

    def params(self) -> dict[str, Any]:
        """The constructor parameters (for configurations and result attributes)."""
        return {"random_state": self.random_state}

    def to_dict(self) -> dict[str, Any]:
        """``{"name": ..., **params}``, the inverse of :func:`make_protocol`."""
        return {"name": self.name, **self.params()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    @abstractmethod
    def coords(self, n_samples: int | None = None) -> list[tuple[int, int]]:
        """The (repeat, fold) pairs this protocol yields for a data set of ``n_samples`` rows."""

    @abstractmethod
    def split(self, data: Any, **kwargs: Any) -> Iterator[Split]:
        """Yield every :class:`Split`, in the order of :meth:`coords`."""

    def get(self, data: Any, repeat: int, fold: int, **kwargs: Any) -> Split:
        """The one split at (``repeat``, ``fold``)."""
        for s in self.split(data, **kwargs):
            if s.repeat == repeat and s.fold == fold:
                return s
        raise ValueError(f"no split at repeat={repeat}, fold={fold} in {self!r}")


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
