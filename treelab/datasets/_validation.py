"""Argument checks shared by the generators, loaders, transforms and protocols.

Every check raises before any work starts, naming the argument and what was expected.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

RandomState = int | np.random.Generator | np.random.SeedSequence | None


def check_int(name: str, value: Any, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """Return ``value`` as int after checking its type and range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}; got {value}")
    return value


def check_float(name: str, value: Any, *, low: float | None = None, high: float | None = None,
                low_open: bool = False, high_open: bool = False) -> float:
    """Return ``value`` as float after checking its type and (closed or open) range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value}")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}; got {value}")
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}; got {value}")
    return value


def check_rate(name: str, value: Any) -> float:
    """A probability in [0, 1]."""
    return check_float(name, value, low=0.0, high=1.0)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """A string among ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}; got {value!r}")
    return value


def check_random_state(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Accepts None (fresh entropy), an int >= 0, a :class:`numpy.random.SeedSequence`, a
    :class:`numpy.random.Generator` (used as is) or a legacy :class:`numpy.random.RandomState`
    (one 32-bit draw from it seeds a new generator).
    """
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(0, 2**32 - 1, dtype=np.int64)))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {random_state}")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        f"{name} must be None, a non-negative int, a numpy Generator, SeedSequence or "
        f"RandomState; got {type(random_state).__name__}"
    )


def check_n_samples(value: Any, *, allow_none: bool = False, name: str = "n_samples") -> int | None:
    """A positive row count (or None where the generator can enumerate every row)."""
    if value is None and allow_none:
        return None
    return check_int(name, value, minimum=1)
