"""Regression generators with a known target function: Friedman #1, #2, #3 and Poisson counts.

Every generator returns a :class:`~treelab.datasets.LabeledData` whose ``y`` is the noisy
real-valued target (float64), whose ``true_target`` is the noiseless regression function
f(x) = E[y | x] of every row, and whose ``meta`` records ``task="regression"``, the noise and
the formula. Keeping f(x) apart lets a bias-variance decomposition report the noise apart from
the bias instead of folding it in.

A legacy :class:`numpy.random.RandomState` passed as ``random_state`` is drawn from directly,
in scikit-learn's order (features first, then the noise), so ``friedman1(n, random_state=
np.random.RandomState(s))`` holds the rows of ``sklearn.datasets.make_friedman1(n,
random_state=s)``, bit for bit; any other ``random_state`` is turned into a numpy Generator as
every treelab generator does.

References
----------
Friedman, J. H. (1991). Multivariate adaptive regression splines. *The Annals of Statistics*
19(1), 1-67 (the test functions of section 4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treelab.datasets._data import CONTINUOUS, LabeledData
from treelab.datasets._validation import (
    RandomState,
    check_float,
    check_int,
    check_n_samples,
    check_random_state,
)

__all__ = ["friedman1", "friedman1_function", "friedman2", "friedman3", "friedman23_function",
           "poisson_counts"]

_CITE_FRIEDMAN = ("Friedman (1991), Multivariate adaptive regression splines, Ann. Statist. "
                  "19(1), 1-67, section 4")


def _draws(random_state: Any) -> np.random.RandomState | np.random.Generator:
    """A legacy RandomState as it is (scikit-learn's draw order); else a Generator."""
    if isinstance(random_state, np.random.RandomState):
        return random_state
    return check_random_state(random_state)


def friedman1_function(X: np.ndarray) -> np.ndarray:
    """Friedman's function #1 of the first five columns of ``X``.

    .. math:: f(x) = 10 \\sin(\\pi x_1 x_2) + 20 (x_3 - 0.5)^2 + 10 x_4 + 5 x_5

    Parameters
    ----------
    X : numpy.ndarray, shape (n_samples, n_features >= 5)
        Rows in [0, 1]^p; columns after the fifth do not enter f.

    Returns
    -------
    numpy.ndarray of float64, shape (n_samples,)
        f(x) of every row (Friedman 1991, section 4).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] < 5:
        raise ValueError(f"X must be 2-D with at least 5 columns; got shape {X.shape}")
    return (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2
            + 10 * X[:, 3] + 5 * X[:, 4])


def friedman23_function(X: np.ndarray, which: int) -> np.ndarray:
    """Friedman's function #2 or #3 of the four columns of ``X``.

    .. math::

        f_2(x) = \\sqrt{x_1^2 + (x_2 x_3 - 1 / (x_2 x_4))^2}, \\qquad
        f_3(x) = \\arctan\\frac{x_2 x_3 - 1 / (x_2 x_4)}{x_1}

    Parameters
    ----------
    X : numpy.ndarray, shape (n_samples, 4)
        Rows with x1 in [0, 100], x2 in [40 pi, 560 pi], x3 in [0, 1], x4 in [1, 11].
    which : {2, 3}
        The function.

    Returns
    -------
    numpy.ndarray of float64, shape (n_samples,)
        f(x) of every row (Friedman 1991, section 4).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 4:
        raise ValueError(f"X must be 2-D with 4 columns; got shape {X.shape}")
    if which not in (2, 3):
        raise ValueError(f"which must be 2 or 3; got {which!r}")
    inner = X[:, 1] * X[:, 2] - 1 / (X[:, 1] * X[:, 3])
    if which == 2:
        return (X[:, 0] ** 2 + inner ** 2) ** 0.5
    with np.errstate(divide="ignore"):  # x1 = 0 has probability zero; arctan(+-inf) is defined
        return np.arctan(inner / X[:, 0])


def _regression_data(X: np.ndarray, f: np.ndarray, y: np.ndarray, name: str,
                     meta: dict[str, Any]) -> LabeledData:
    return LabeledData(
        X=X, y=y, feature_types=(CONTINUOUS,) * X.shape[1], name=name,
        feature_names=tuple(f"x{j + 1}" for j in range(X.shape[1])),
        classes=np.empty(0), meta={"task": "regression", **meta}, true_target=f)


def friedman1(
    n_samples: int = 1000,
    *,
    n_features: int = 10,
    noise: float = 0.0,
    random_state: RandomState | np.random.RandomState = None,
) -> LabeledData:
    """Friedman's regression problem #1: five relevant uniform features among ``n_features``.

    x ~ U[0, 1]^p and y = f(x) + noise * e with e ~ N(0, 1) and

    .. math:: f(x) = 10 \\sin(\\pi x_1 x_2) + 20 (x_3 - 0.5)^2 + 10 x_4 + 5 x_5;

    the features after the fifth are irrelevant. Friedman (1991) drew it with p = 10 and unit
    noise. The formula and draw order are those of ``sklearn.datasets.make_friedman1``.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    n_features : int, default 10
        Number of features (at least 5).
    noise : float, default 0.0
        Standard deviation of the Gaussian noise added to f(x) (>= 0).
    random_state : int, numpy Generator, RandomState or None, default None
        Seed of the draw (a RandomState is drawn from as scikit-learn draws).

    Returns
    -------
    LabeledData
        Continuous features ``x1..xp``, ``y`` (float64) and ``true_target`` = f(x);
        ``meta`` holds ``task="regression"``, ``noise`` and ``noise_variance`` = noise^2.

    References
    ----------
    Friedman (1991), Multivariate adaptive regression splines, *Ann. Statist.* 19(1), 1-67.

    Examples
    --------
    >>> from treelab.datasets import friedman1
    >>> data = friedman1(200, noise=1.0, random_state=0)
    >>> data.X.shape, data.y.dtype, data.true_target.shape
    ((200, 10), dtype('float64'), (200,))
    """
    n = check_n_samples(n_samples)
    p = check_int("n_features", n_features, minimum=5)
    noise = check_float("noise", noise, low=0.0)
    rng = _draws(random_state)
    X = rng.uniform(size=(n, p))
    f = friedman1_function(X)
    y = f + noise * rng.standard_normal(size=n)
    return _regression_data(X, f, y, "friedman1", {
        "noise": noise, "noise_variance": noise**2, "n_features": p, "cite": _CITE_FRIEDMAN,
        "target_function": "10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5"})


def _friedman23(which: int, n_samples: Any, noise: Any, random_state: Any) -> LabeledData:
    n = check_n_samples(n_samples)
    noise = check_float("noise", noise, low=0.0)
    rng = _draws(random_state)
    X = rng.uniform(size=(n, 4))
    X[:, 0] *= 100
    X[:, 1] *= 520 * np.pi
    X[:, 1] += 40 * np.pi
    X[:, 3] *= 10
    X[:, 3] += 1
    f = friedman23_function(X, which)
    y = f + noise * rng.standard_normal(size=n)
    formula = ("sqrt(x1^2 + (x2 x3 - 1 / (x2 x4))^2)" if which == 2 else
               "arctan((x2 x3 - 1 / (x2 x4)) / x1)")
    return _regression_data(X, f, y, f"friedman{which}", {
        "noise": noise, "noise_variance": noise**2, "cite": _CITE_FRIEDMAN,
        "target_function": formula})


def friedman2(
    n_samples: int = 1000,
    *,
    noise: float = 0.0,
    random_state: RandomState | np.random.RandomState = None,
) -> LabeledData:
    """Friedman's regression problem #2 (the impedance of an alternating-current circuit).

    x1 ~ U[0, 100], x2 ~ U[40 pi, 560 pi], x3 ~ U[0, 1], x4 ~ U[1, 11] and
    y = f(x) + noise * e, e ~ N(0, 1), with

    .. math:: f(x) = \\sqrt{x_1^2 + (x_2 x_3 - 1 / (x_2 x_4))^2}.

    The formula and draw order are those of ``sklearn.datasets.make_friedman2``.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    noise : float, default 0.0
        Standard deviation of the Gaussian noise added to f(x) (>= 0).
    random_state : int, numpy Generator, RandomState or None, default None
        Seed of the draw (a RandomState is drawn from as scikit-learn draws).

    Returns
    -------
    LabeledData
        Four continuous features, ``y`` (float64) and ``true_target`` = f(x); ``meta`` holds
        ``task="regression"``, ``noise`` and ``noise_variance``.

    References
    ----------
    Friedman (1991), Multivariate adaptive regression splines, *Ann. Statist.* 19(1), 1-67.
    """
    return _friedman23(2, n_samples, noise, random_state)


def friedman3(
    n_samples: int = 1000,
    *,
    noise: float = 0.0,
    random_state: RandomState | np.random.RandomState = None,
) -> LabeledData:
    """Friedman's regression problem #3 (the phase angle of the circuit of problem #2).

    The features of :func:`friedman2` and y = f(x) + noise * e, e ~ N(0, 1), with

    .. math:: f(x) = \\arctan\\frac{x_2 x_3 - 1 / (x_2 x_4)}{x_1}.

    The formula and draw order are those of ``sklearn.datasets.make_friedman3``.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    noise : float, default 0.0
        Standard deviation of the Gaussian noise added to f(x) (>= 0).
    random_state : int, numpy Generator, RandomState or None, default None
        Seed of the draw (a RandomState is drawn from as scikit-learn draws).

    Returns
    -------
    LabeledData
        Four continuous features, ``y`` (float64) and ``true_target`` = f(x); ``meta`` holds
        ``task="regression"``, ``noise`` and ``noise_variance``.

    References
    ----------
    Friedman (1991), Multivariate adaptive regression splines, *Ann. Statist.* 19(1), 1-67.
    """
    return _friedman23(3, n_samples, noise, random_state)


def poisson_counts(
    n_samples: int = 1000,
    *,
    n_features: int = 10,
    intercept: float = 0.0,
    random_state: RandomState = None,
) -> LabeledData:
    """Counts for the Poisson loss: y ~ Poisson(mu(x)) with a log-linked Friedman #1 function.

    x ~ U[0, 1]^p (p >= 5), and

    .. math::

        g(x) = c + \\frac{f_1(x)}{10}
             = c + \\sin(\\pi x_1 x_2) + 2 (x_3 - 0.5)^2 + x_4 + 0.5 x_5,
        \\qquad \\mu(x) = e^{g(x)}, \\qquad y \\mid x \\sim \\mathrm{Poisson}(\\mu(x)),

    with f_1 Friedman's function #1 (:func:`friedman1_function`) and c = ``intercept``. g
    ranges over [c, c + 3], so at c = 0 the mean count runs from 1 to about 20: small counts
    with many zeros where mu is near 1, larger ones elsewhere. The target function of the
    Poisson loss is E[y | x] = mu(x), which ``true_target`` holds; the noise is not additive
    (Var[y | x] = mu(x)).

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    n_features : int, default 10
        Number of features (at least 5; those after the fifth are irrelevant).
    intercept : float, default 0.0
        c, the log of the mean count at g's minimum (in [-10, 10]).
    random_state : int, numpy Generator or None, default None
        Seed of the draw (x first, then the counts).

    Returns
    -------
    LabeledData
        Continuous features, ``y`` the counts (float64 holding whole numbers >= 0) and
        ``true_target`` = mu(x); ``meta`` holds ``task="regression"``, ``loss="poisson"`` and
        the formula.

    Examples
    --------
    >>> from treelab.datasets import poisson_counts
    >>> data = poisson_counts(500, random_state=0)
    >>> bool((data.y >= 0).all() and (data.y == data.y.round()).all())
    True
    """
    n = check_n_samples(n_samples)
    p = check_int("n_features", n_features, minimum=5)
    c = check_float("intercept", intercept, low=-10.0, high=10.0)
    rng = check_random_state(random_state)
    X = rng.uniform(size=(n, p))
    mu = np.exp(c + friedman1_function(X) / 10.0)
    y = rng.poisson(mu).astype(np.float64)
    return _regression_data(X, mu, y, "poisson-counts", {
        "loss": "poisson", "intercept": c, "n_features": p,
        "target_function": "exp(c + sin(pi x1 x2) + 2 (x3 - 0.5)^2 + x4 + 0.5 x5)",
        "cite": "log-linked Friedman #1 function; " + _CITE_FRIEDMAN})
