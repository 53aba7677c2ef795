"""Generators over continuous attributes: concepts A/B, Fan's synthetic problem, the Gaussian
mixture, the noisy 2-D function and image interpolation.

References
----------
Liu, F. T., Ting, K. M., Yu, Y. & Zhou, Z.-H. (2008). Spectrum of variable-random trees.
*Journal of Artificial Intelligence Research* 32, 355-384 (concepts A and B, section 5).
Fan, W., Greengrass, E., McCloskey, J., Yu, P. S. & Drummey, K. (2005). Effective estimation of
posterior probabilities: explaining the accuracy of randomized decision tree approaches. *ICDM*.
Hastie, T., Tibshirani, R. & Friedman, J. (2009). *The Elements of Statistical Learning*, 2nd
ed., section 2.3.3 (the mixture simulation).
Gashler, M., Giraud-Carrier, C. & Martinez, T. (2008). Decision tree ensemble: small
heterogeneous is better than large homogeneous. *ICMLA* (image interpolation).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from treelab.datasets._data import CONTINUOUS, LabeledData
from treelab.datasets._validation import (
    RandomState,
    check_choice,
    check_float,
    check_int,
    check_n_samples,
    check_random_state,
    check_rate,
)

__all__ = [
    "concepts",
    "concepts_lattice",
    "fan_synthetic",
    "gaussian_mixture",
    "image_interpolation",
    "noisy_function_2d",
]


def _binary_proba(label: np.ndarray, noise: float) -> np.ndarray:
    """True probabilities of a deterministic binary concept whose label is flipped w.p. noise."""
    p1 = np.where(label == 1, 1.0 - noise, noise)
    return np.column_stack([1.0 - p1, p1])


def _flip(y: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Flip each binary label independently with probability ``noise``."""
    return np.where(rng.random(y.shape[0]) < noise, 1 - y, y)


def _concept_label(concept: str, X: np.ndarray) -> np.ndarray:
    if concept == "A":
        return (X[:, 0] > X[:, 1]).astype(np.int64)
    return (X[:, 0] > 0).astype(np.int64)


def concepts(
    concept: str = "A",
    n_samples: int = 1024,
    *,
    n_irrelevant: int = 0,
    noise: float = 0.0,
    random_state: RandomState = None,
) -> LabeledData:
    """Draw training rows of concept A or B of Liu et al. (2008).

    Two attributes x_a, x_b are uniform on [-1, 1]; concept A is positive when x_a > x_b (an
    oblique boundary), concept B when x_a > 0 (axis-parallel). ``n_irrelevant`` further
    attributes are uniform on [-1, 1]. Each label is flipped with probability ``noise``.

    Parameters
    ----------
    concept : {"A", "B"}, default "A"
        Which concept.
    n_samples : int, default 1024
        Number of rows (k in the source; 1024 by default, 64 in the small-sample study).
    n_irrelevant : int, default 0
        Number of irrelevant uniform attributes.
    noise : float, default 0.0
        Class-noise rate: probability that a label is flipped (0.4 in the source's noisy study).
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        Labels 1 (positive, "+1" in the source) and 0; ``true_proba`` is (noise, 1 - noise)
        ordered by class, as the concept dictates.

    See Also
    --------
    concepts_lattice : the noise-free 100 x 100 evaluation lattice.
    """
    concept = check_choice("concept", concept, ("A", "B"))
    n = check_n_samples(n_samples)
    k = check_int("n_irrelevant", n_irrelevant, minimum=0)
    noise = check_rate("noise", noise)
    rng = check_random_state(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n, 2 + k))
    clean = _concept_label(concept, X)
    return LabeledData(
        X=X,
        y=_flip(clean, noise, rng),
        feature_types=(CONTINUOUS,) * (2 + k),
        true_proba=_binary_proba(clean, noise),
        name=f"concept-{concept}",
        feature_names=("xa", "xb") + tuple(f"r{j + 1}" for j in range(k)),
        classes=np.arange(2),
        meta={"concept": concept, "noise": noise, "n_irrelevant": k},
    )


def concepts_lattice(
    concept: str = "A",
    *,
    resolution: int = 100,
    n_irrelevant: int = 0,
    random_state: RandomState = None,
) -> LabeledData:
    """The evaluation lattice of concept A or B: a ``resolution`` x ``resolution`` grid.

    Grid points are the cell centres -1 + (2 i + 1) / resolution, i = 0..resolution-1, on both
    axes (10,000 points at the default); x_a varies fastest. Labels are noise-free.
    Irrelevant attributes, when asked for, are drawn uniform on [-1, 1] from ``random_state``.

    Parameters
    ----------
    concept : {"A", "B"}, default "A"
        Which concept.
    resolution : int, default 100
        Points per axis.
    n_irrelevant : int, default 0
        Number of irrelevant uniform attributes (match the training data).
    random_state : int, numpy Generator or None, default None
        Seed of the irrelevant attributes (unused when ``n_irrelevant=0``).

    Returns
    -------
    LabeledData
        ``resolution**2`` rows; ``true_proba`` one-hot.
    """
    concept = check_choice("concept", concept, ("A", "B"))
    res = check_int("resolution", resolution, minimum=2)
    k = check_int("n_irrelevant", n_irrelevant, minimum=0)
    rng = check_random_state(random_state)
    axis = -1.0 + (2.0 * np.arange(res) + 1.0) / res
    xb, xa = np.meshgrid(axis, axis, indexing="ij")
    grid = np.column_stack([xa.ravel(), xb.ravel()])
    X = np.hstack([grid, rng.uniform(-1.0, 1.0, size=(grid.shape[0], k))])
    y = _concept_label(concept, X)
    return LabeledData(
        X=X,
        y=y,
        feature_types=(CONTINUOUS,) * (2 + k),
        true_proba=_binary_proba(y, 0.0),
        name=f"concept-{concept}-lattice",
        feature_names=("xa", "xb") + tuple(f"r{j + 1}" for j in range(k)),
        classes=np.arange(2),
        meta={"concept": concept, "resolution": res, "n_irrelevant": k},
    )


def fan_synthetic(
    n_samples: int = 1000,
    *,
    n_features: int = 5,
    m: float = 5.0,
    weights: Sequence[float] | None = None,
    random_state: RandomState = None,
) -> LabeledData:
    """Draw rows of Fan et al.'s (2005) synthetic four-class problem.

    d attributes are uniform on [0, m]; with weights a_j, s = sum_j a_j x_j, S = m sum_j a_j and
    r = s / S: P(0|x) = r(1 - r), P(1|x) = r^2, P(2|x) = (1 - r) r, P(3|x) = (1 - r)^2. Labels
    are drawn from these probabilities.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows (100 ... 100,000 in the source).
    n_features : int, default 5
        d (5, 15 or 20 in the source).
    m : float, default 5.0
        Upper end of every attribute's range.
    weights : sequence of float, optional
        The a_j (non-negative, not all zero); all 1 by default.
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        Continuous features, labels 0-3 and the exact ``true_proba``.
    """
    n = check_n_samples(n_samples)
    d = check_int("n_features", n_features, minimum=1)
    m = check_float("m", m, low=0.0, low_open=True)
    if weights is None:
        a = np.ones(d)
    else:
        a = np.asarray(weights, dtype=np.float64)
        if a.shape != (d,) or not np.all(np.isfinite(a)) or np.any(a < 0) or a.sum() <= 0:
            raise ValueError(
                f"weights must be {d} finite non-negative numbers, not all zero; got {weights!r}"
            )
    rng = check_random_state(random_state)
    X = rng.uniform(0.0, m, size=(n, d))
    r = (X @ a) / (m * a.sum())
    proba = np.column_stack([r * (1 - r), r**2, (1 - r) * r, (1 - r) ** 2])
    u = rng.random(n)
    y = np.minimum((u[:, None] > np.cumsum(proba, axis=1)).sum(axis=1), 3)
    return LabeledData(
        X=X,
        y=y.astype(np.int64),
        feature_types=(CONTINUOUS,) * d,
        true_proba=proba,
        name=f"fan-synthetic-{d}",
        classes=np.arange(4),
        meta={"m": m, "weights": a.tolist()},
    )


def gaussian_mixture(
    n_samples: int = 200,
    *,
    n_centers: int = 10,
    mixture_seed: int = 0,
    random_state: RandomState = None,
) -> LabeledData:
    """Draw rows of the two-class Gaussian mixture of Hastie, Tibshirani & Friedman (ESL 2.3.3).

    ``n_centers`` means per class come from N((1, 0), I) for class 0 and N((0, 1), I) for
    class 1, drawn once from ``mixture_seed`` so that every call with the same seed samples the
    same distribution. A row picks its class with probability 1/2, a mean of that class
    uniformly, and x ~ N(mean, I / 5).

    Parameters
    ----------
    n_samples : int, default 200
        Number of rows (ESL uses 100 per class).
    n_centers : int, default 10
        Means per class.
    mixture_seed : int, default 0
        Seed of the means (the distribution); keep it fixed across training and test draws.
    random_state : int, numpy Generator or None, default None
        Seed of the rows.

    Returns
    -------
    LabeledData
        Two continuous features, labels 0/1 and the exact ``true_proba``; the means are in
        ``meta["centers"]`` (shape (2, n_centers, 2)).
    """
    n = check_n_samples(n_samples)
    nc = check_int("n_centers", n_centers, minimum=1)
    seed = check_int("mixture_seed", mixture_seed, minimum=0)
    centers_rng = np.random.default_rng(seed)
    centers = np.stack(
        [
            centers_rng.normal(size=(nc, 2)) + np.array([1.0, 0.0]),
            centers_rng.normal(size=(nc, 2)) + np.array([0.0, 1.0]),
        ]
    )
    rng = check_random_state(random_state)
    y = rng.integers(0, 2, size=n)
    which = rng.integers(0, nc, size=n)
    sd = np.sqrt(1.0 / 5.0)
    X = centers[y, which] + sd * rng.standard_normal((n, 2))
    sq = ((X[:, None, None, :] - centers[None]) ** 2).sum(axis=-1)  # (n, 2, nc)
    log_dens = -sq / (2 * sd**2)
    shift = log_dens.max(axis=(1, 2), keepdims=True)
    dens = np.exp(log_dens - shift).sum(axis=2)  # equal variances and weights: constants cancel
    return LabeledData(
        X=X,
        y=y.astype(np.int64),
        feature_types=(CONTINUOUS, CONTINUOUS),
        true_proba=dens / dens.sum(axis=1, keepdims=True),
        name="gaussian-mixture",
        feature_names=("x1", "x2"),
        classes=np.arange(2),
        meta={"centers": centers, "mixture_seed": seed},
    )


def noisy_function_label(X: np.ndarray) -> np.ndarray:
    """Noise-free label of :func:`noisy_function_2d` at the points ``X`` (shape (n, 2))."""
    x1, x2 = X[:, 0], X[:, 1]
    circle1 = (x1 - 0.25) ** 2 + (x2 - 0.72) ** 2 < 0.15**2
    circle2 = (x1 - 0.68) ** 2 + (x2 - 0.32) ** 2 < 0.2**2
    sine = x2 > 0.5 + 0.15 * np.sin(4.0 * np.pi * x1)
    diagonal = x2 > x1
    return (circle1 ^ circle2 ^ sine ^ diagonal).astype(np.int64)


def noisy_function_2d(
    n_samples: int = 1000,
    *,
    noise: float = 0.1,
    random_state: RandomState = None,
) -> LabeledData:
    """Two circles, a sine wave and a diagonal line on the unit square, with label noise.

    Points are uniform on [0, 1]^2. Four regions are defined: inside the circle of radius 0.15
    around (0.25, 0.72), inside the circle of radius 0.2 around (0.68, 0.32), above the sine wave
    x2 = 0.5 + 0.15 sin(4 pi x1), and above the diagonal x2 = x1. The clean label is the
    parity (exclusive or) of the four memberships, so every one of the four curves is a class
    boundary; each label is then flipped with probability ``noise``. The exact curves are this
    package's choice: the source task (rotation forest vs random forest) is described only in
    words.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows.
    noise : float, default 0.1
        Label-noise rate.
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        Two continuous features, labels 0/1, ``true_proba`` = (noise, 1 - noise) as the clean
        label dictates.
    """
    n = check_n_samples(n_samples)
    noise = check_rate("noise", noise)
    rng = check_random_state(random_state)
    X = rng.random((n, 2))
    clean = noisy_function_label(X)
    return LabeledData(
        X=X,
        y=_flip(clean, noise, rng),
        feature_types=(CONTINUOUS, CONTINUOUS),
        true_proba=_binary_proba(clean, noise),
        name="noisy-function-2d",
        feature_names=("x1", "x2"),
        classes=np.arange(2),
        meta={"noise": noise},
    )


def _default_scene(px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Colour classes of the default picture at points (px, py) of the unit square."""
    label = np.zeros(px.shape, dtype=np.int64)
    disc = (px - 0.3) ** 2 + (py - 0.32) ** 2 < 0.2**2
    diamond = np.abs(px - 0.7) + np.abs(py - 0.68) < 0.24  # a square turned 45 degrees
    bar = (px > 0.12) & (px < 0.45) & (py > 0.7) & (py < 0.88)  # axis-aligned rectangle
    label[disc] = 1
    label[diamond] = 2
    label[bar] = 3
    return label


def image_interpolation(
    resolution: int = 20,
    *,
    image: np.ndarray | None = None,
    shuffle: bool = False,
    random_state: RandomState = None,
) -> LabeledData:
    """Pixels of a small picture as rows: position -> colour class (Gashler et al. 2008).

    By default the picture is an analytic scene on the unit square (background 0, a disc 1, a
    square turned 45 degrees 2, an axis-aligned bar 3), sampled at the pixel centres of a
    ``resolution`` x ``resolution`` grid: train on ``resolution=20`` (400 rows) and evaluate on
    ``resolution=160`` (25,600 rows) to see axis-aligned against oblique boundaries. A user
    picture (2-D integer array of classes) can be given instead.

    Parameters
    ----------
    resolution : int, default 20
        Pixels per side of the default scene (ignored when ``image`` is given).
    image : numpy.ndarray of int, shape (height, width), optional
        A picture of colour classes.
    shuffle : bool, default False
        Shuffle the rows (otherwise row-major pixel order).
    random_state : int, numpy Generator or None, default None
        Seed of the shuffle (unused otherwise).

    Returns
    -------
    LabeledData
        Features ``("x", "y")``: pixel-centre coordinates in [0, 1] (x = column, y = row);
        labels the colour classes; ``true_proba`` one-hot; ``meta["shape"]`` the picture's
        (height, width) so ``y`` reshapes back into the image (when not shuffled).
    """
    if image is None:
        res = check_int("resolution", resolution, minimum=1)
        centres = (np.arange(res) + 0.5) / res
        py, px = np.meshgrid(centres, centres, indexing="ij")
        labels = _default_scene(px, py)
        classes = np.arange(4)
    else:
        labels = np.asarray(image)
        if labels.ndim != 2 or labels.size == 0 or not np.issubdtype(labels.dtype, np.integer):
            raise ValueError("image must be a non-empty 2-D array of integer colour classes")
        h, w = labels.shape
        py, px = np.meshgrid((np.arange(h) + 0.5) / h, (np.arange(w) + 0.5) / w, indexing="ij")
        classes = np.unique(labels)
    if not isinstance(shuffle, bool):
        raise TypeError(f"shuffle must be a bool; got {shuffle!r}")
    rng = check_random_state(random_state)
    X = np.column_stack([px.ravel(), py.ravel()])
    y = labels.ravel().astype(np.int64)
    order = rng.permutation(y.shape[0]) if shuffle else np.arange(y.shape[0])
    proba = (y[:, None] == classes[None, :]).astype(np.float64)
    return LabeledData(
        X=X[order],
        y=y[order],
        feature_types=(CONTINUOUS, CONTINUOUS),
        true_proba=proba[order],
        name="image-interpolation",
        feature_names=("x", "y"),
        classes=classes,
        meta={"shape": labels.shape},
    )
