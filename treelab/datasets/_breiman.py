"""LED display and waveform generators (Breiman, Friedman, Olshen & Stone 1984, ch. 2).

References
----------
Breiman, L., Friedman, J. H., Olshen, R. A. & Stone, C. J. (1984). *Classification and
Regression Trees*. Wadsworth. Sections 2.6.1 (digit recognition) and 2.6.2 (waveforms).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import log_ndtr, logsumexp

from treelab.datasets._data import CONTINUOUS, NOMINAL, LabeledData
from treelab.datasets._validation import (
    RandomState,
    check_int,
    check_n_samples,
    check_random_state,
    check_rate,
)

__all__ = ["LED_SEGMENTS", "led", "led_bayes_error", "waveform"]

#: Segments lit for the digits 0-9, in the order top, upper-left, upper-right, middle,
#: lower-left, lower-right, bottom (the order of the UCI "LED display domain" generator).
LED_SEGMENTS = np.array(
    [
        [1, 1, 1, 0, 1, 1, 1],  # 0
        [0, 0, 1, 0, 0, 1, 0],  # 1
        [1, 0, 1, 1, 1, 0, 1],  # 2
        [1, 0, 1, 1, 0, 1, 1],  # 3
        [0, 1, 1, 1, 0, 1, 0],  # 4
        [1, 1, 0, 1, 0, 1, 1],  # 5
        [1, 1, 0, 1, 1, 1, 1],  # 6
        [1, 0, 1, 0, 0, 1, 0],  # 7
        [1, 1, 1, 1, 1, 1, 1],  # 8
        [1, 1, 1, 1, 0, 1, 1],  # 9
    ],
    dtype=np.int8,
)


def _led_likelihood(segments: np.ndarray, noise: float) -> np.ndarray:
    """P(segments | digit) for every row and digit, shape (n, 10)."""
    mismatches = (segments[:, None, :] != LED_SEGMENTS[None, :, :]).sum(axis=2)
    return noise**mismatches * (1.0 - noise) ** (7 - mismatches)


def led_bayes_error(noise: float = 0.1) -> float:
    """Exact Bayes error of the LED problem (irrelevant bits change nothing).

    Enumerates the 128 segment patterns: error = 1 - sum_x max_d P(x, d) with P(d) = 1/10.

    Parameters
    ----------
    noise : float, default 0.1
        Probability that a segment is inverted.

    Returns
    -------
    float
        The Bayes error (about 0.26 at ``noise=0.1``, Breiman et al. 1984).
    """
    noise = check_rate("noise", noise)
    patterns = np.array(list(itertools.product((0, 1), repeat=7)), dtype=np.int8)
    joint = _led_likelihood(patterns, noise) / 10.0
    return float(1.0 - joint.max(axis=1).sum())


def led(
    n_samples: int = 1000,
    *,
    n_irrelevant: int = 0,
    noise: float = 0.1,
    random_state: RandomState = None,
) -> LabeledData:
    """Draw rows of the LED display problem (LED-7, LED-24 or any number of irrelevant bits).

    A digit 0-9 is drawn uniformly and shown on the seven segments of an LED display
    (:data:`LED_SEGMENTS`); each segment is inverted independently with probability ``noise``.
    ``n_irrelevant`` further attributes are uniform random bits. LED-7 is ``n_irrelevant=0``,
    LED-24 is ``n_irrelevant=17``.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    n_irrelevant : int, default 0
        Number of irrelevant random bits appended after the seven segments.
    noise : float, default 0.1
        Probability that each segment is inverted.
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        All features nominal (binary, codes 0/1); labels are the digits 0-9; ``true_proba``
        is P(digit | segments) = prod_s noise^[mismatch] (1 - noise)^[match], normalised over
        the ten equally likely digits. ``meta["bayes_error"]`` holds :func:`led_bayes_error`.

    References
    ----------
    Breiman et al. (1984), *Classification and Regression Trees*, section 2.6.1; the Bayes
    error at noise 0.1 is about 26%.
    """
    n = check_n_samples(n_samples)
    k = check_int("n_irrelevant", n_irrelevant, minimum=0)
    noise = check_rate("noise", noise)
    rng = check_random_state(random_state)
    digits = rng.integers(0, 10, size=n)
    flips = rng.random((n, 7)) < noise
    segments = LED_SEGMENTS[digits] ^ flips.astype(np.int8)
    bits = rng.integers(0, 2, size=(n, k), dtype=np.int8)
    likelihood = _led_likelihood(segments, noise)
    proba = likelihood / likelihood.sum(axis=1, keepdims=True)
    X = np.hstack([segments, bits]).astype(np.float64)
    names = tuple(f"s{j + 1}" for j in range(7)) + tuple(f"r{j + 1}" for j in range(k))
    return LabeledData(
        X=X,
        y=digits.astype(np.int64),
        feature_types=(NOMINAL,) * (7 + k),
        true_proba=proba,
        name=f"led{7 + k}",
        feature_names=names,
        classes=np.arange(10),
        meta={"noise": noise, "n_irrelevant": k, "bayes_error": led_bayes_error(noise)},
    )


def _waveform_bases() -> np.ndarray:
    """h1, h2, h3 over i = 1..21, shape (3, 21)."""
    i = np.arange(1, 22, dtype=np.float64)
    h1 = np.maximum(6.0 - np.abs(i - 11.0), 0.0)
    h2 = np.maximum(6.0 - np.abs(i - 15.0), 0.0)  # h1(i - 4)
    h3 = np.maximum(6.0 - np.abs(i - 7.0), 0.0)  # h1(i + 4)
    return np.stack([h1, h2, h3])


#: (first, second) base wave of each class: class 0 mixes h1 and h2, 1 h1 and h3, 2 h2 and h3.
_WAVE_PAIRS = ((0, 1), (0, 2), (1, 2))


def _log_ndtr_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(Phi(b) - Phi(a)) for a < b, stable in both tails."""
    upper = a > 0  # both in the upper tail: Phi(b) - Phi(a) = Phi(-a) - Phi(-b)
    hi = np.where(upper, -a, b)
    lo = np.where(upper, -b, a)
    log_hi = log_ndtr(hi)
    return log_hi + np.log1p(-np.exp(log_ndtr(lo) - log_hi))


def _waveform_log_likelihood(X21: np.ndarray) -> np.ndarray:
    """log p(x | class) up to a common constant, integrating u ~ U(0, 1) in closed form.

    With x = u a + (1 - u) b + e, e ~ N(0, I): r = x - b, d = a - b, q = |d|^2, t = r.d and
    p(x | c) ~ exp(-|r|^2/2 + t^2/(2q)) sqrt(2 pi / q) [Phi(sqrt(q)(1 - t/q)) - Phi(-sqrt(q) t/q)].
    """
    bases = _waveform_bases()
    out = np.empty((X21.shape[0], 3))
    for c, (ia, ib) in enumerate(_WAVE_PAIRS):
        a, b = bases[ia], bases[ib]
        r = X21 - b
        d = a - b
        q = float(d @ d)
        t = r @ d
        sq = np.sqrt(q)
        out[:, c] = (
            -0.5 * np.einsum("ij,ij->i", r, r)
            + t**2 / (2.0 * q)
            - 0.5 * np.log(q)
            + _log_ndtr_diff(-t / sq, sq - t / sq)
        )
    return out


def waveform(
    n_samples: int = 1000,
    *,
    n_features: int = 21,
    random_state: RandomState = None,
) -> LabeledData:
    """Draw rows of Breiman's waveform problem (Waveform-21, Waveform-40).

    Base waves ``h1(i) = max(6 - |i - 11|, 0)``, h2(i) = h1(i - 4), h3(i) = h1(i + 4), i = 1..21.
    A class is drawn uniformly; class 0 is u h1 + (1 - u) h2 + e, class 1 u h1 + (1 - u) h3 + e,
    class 2 u h2 + (1 - u) h3 + e with u ~ U(0, 1) per row and e ~ N(0, 1) per attribute.
    Columns beyond the 21st are irrelevant N(0, 1) noise (``n_features=40`` is Waveform-40).

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    n_features : int, default 21
        Total number of attributes, at least 21.
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        Continuous features, labels 0-2 and ``true_proba`` = P(class | x) computed exactly by
        integrating u out in closed form (Bayes error about 14%, Breiman et al. 1984).

    References
    ----------
    Breiman et al. (1984), *Classification and Regression Trees*, section 2.6.2.
    """
    n = check_n_samples(n_samples)
    d = check_int("n_features", n_features, minimum=21)
    rng = check_random_state(random_state)
    bases = _waveform_bases()
    y = rng.integers(0, 3, size=n)
    u = rng.random(n)
    pairs = np.array(_WAVE_PAIRS)
    X21 = (
        u[:, None] * bases[pairs[y, 0]]
        + (1.0 - u[:, None]) * bases[pairs[y, 1]]
        + rng.standard_normal((n, 21))
    )
    X = np.hstack([X21, rng.standard_normal((n, d - 21))])
    loglik = _waveform_log_likelihood(X21)
    proba = np.exp(loglik - logsumexp(loglik, axis=1, keepdims=True))
    return LabeledData(
        X=X,
        y=y.astype(np.int64),
        feature_types=(CONTINUOUS,) * d,
        true_proba=proba,
        name=f"waveform-{d}",
        feature_names=tuple(f"x{j + 1}" for j in range(d)),
        classes=np.arange(3),
        meta={"n_features": d},
    )
