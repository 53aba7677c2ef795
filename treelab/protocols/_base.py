"""The split record, argument checks and the protocol base class."""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from treelab._dims import FOLD, REPEAT
from treelab.datasets._data import LabeledData

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
