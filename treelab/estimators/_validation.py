"""Small parameter validators: each raises a TypeError or ValueError naming the parameter."""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np


def check_int(name: str, value, low: int | None = None, high: int | None = None,
              allow_none: bool = False) -> None:
    """An integer within [low, high] (bools are not integers here)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        kind = "an integer or None" if allow_none else "an integer"
        raise TypeError(f"{name} must be {kind}, got {value!r} ({type(value).__name__})")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")


def check_real(name: str, value, low: float, high: float, *, low_open: bool = False) -> None:
    """A finite real number within [low, high] (or (low, high] with ``low_open``); an
    infinite ``high`` is an open end, [low, inf)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    if not np.isfinite(value) or value > high or value < low or (low_open and value == low):
        bracket = "(" if low_open else "["
        # infinite values are refused, so an infinite upper bound is never reached
        close = "]" if np.isfinite(high) else ")"
        raise ValueError(f"{name} must be in {bracket}{low}, {high}{close}, got {value}")


def check_option(name: str, value, options: Iterable[str]) -> None:
    """One of a fixed set of strings."""
    options = tuple(options)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {options}, got {value!r}")
    if value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")


def check_bool(name: str, value) -> None:
    """A boolean flag."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")


def resolve_max_features(value, n_features: int) -> int:
    """Number of candidate features per node from "sqrt", "log2", an int, a fraction or None."""
    if value is None:
        return n_features
    if isinstance(value, str):
        check_option("max_features", value, ("sqrt", "log2"))
        f = np.sqrt if value == "sqrt" else np.log2
        return max(1, int(f(n_features)))
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        check_int("max_features", value, 1)
        if value > n_features:
            raise ValueError(
                f"max_features must be <= n_features ({n_features}), got {value}"
            )
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        check_real("max_features", value, 0.0, 1.0, low_open=True)
        return max(1, int(value * n_features))
    raise TypeError(
        f"max_features must be None, 'sqrt', 'log2', an int or a float, got {value!r}"
    )


#: The constructions a learner's ``sampling`` parameter names.
SAMPLING = ("none", "bootstrap", "subspace", "bootstrap+subspace")


def check_constructor_arguments(cls: type, args: tuple, kwargs: dict) -> None:
    """Refuse positional arguments and unknown parameter names of learner ``cls`` with a
    TypeError that names ``cls`` itself (and the closest parameter name)."""
    import difflib

    names = cls._get_param_names()
    if args:
        example = "n_estimators" if "n_estimators" in names else (names or ["name"])[0]
        raise TypeError(f"{cls.__name__}() takes keyword arguments only, got {len(args)} "
                        f"positional argument(s) {args!r}; e.g. {cls.__name__}({example}=...)")
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        close = difflib.get_close_matches(unknown[0], names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {unknown[0]!r}"
                        f"{hint} (its parameters: {', '.join(names)})")


def check_tree_params(p: dict, criteria: tuple, random_splits: tuple) -> None:
    """The checks of the parameters every tree learner, classifier or regressor, may declare
    (each only if declared); ``criteria`` and ``random_splits`` are the task's options."""
    if "n_estimators" in p:
        check_int("n_estimators", p["n_estimators"], 1)
    if "criterion" in p:
        check_option("criterion", p["criterion"], criteria)
    if "min_samples_split" in p:
        check_int("min_samples_split", p["min_samples_split"], 2)
    if "min_samples_leaf" in p:
        check_int("min_samples_leaf", p["min_samples_leaf"], 1)
    if "max_depth" in p:
        check_int("max_depth", p["max_depth"], 1, allow_none=True)
    if "alpha" in p:
        check_real("alpha", p["alpha"], 0.0, 1.0)
    if "alpha_max" in p:
        check_real("alpha_max", p["alpha_max"], 0.0, 1.0)
    if "sampling" in p:
        check_option("sampling", p["sampling"], SAMPLING)
    if "subspace_fraction" in p:
        check_real("subspace_fraction", p["subspace_fraction"], 0.0, 1.0, low_open=True)
    if "random_split" in p:
        check_option("random_split", p["random_split"], random_splits)
