"""Decision surfaces: a fitted ensemble's class probabilities over a 2-D grid."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from treelab.plot._common import get_ax
from treelab.plot._docstrings import share_docs

__all__ = ["decision_surface", "surface_grid"]

#: Colours of classes 0, 1, 2, ... (binary problems use the first two at the ends of RdBu).
_CLASS_COLOURS = np.array([
    [0.129, 0.400, 0.674],  # blue
    [0.698, 0.094, 0.169],  # red
    [0.992, 0.749, 0.435],  # orange
    [0.400, 0.651, 0.118],  # green
    [0.459, 0.439, 0.702],  # purple
    [0.651, 0.463, 0.114],  # brown
    [0.906, 0.161, 0.541],  # pink
    [0.400, 0.400, 0.400],  # grey
])


def _xy(data: Any, labels: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """X and y from ``data`` alone (LabeledData or a pair) or from ``data=X, labels=y``."""
    if labels is not None:
        if (hasattr(data, "X") and hasattr(data, "y")) or isinstance(data, tuple):
            raise TypeError("give the training points once: (model, X, y) or (model, data), "
                            "not data and y")
        X, y = data, labels
    elif hasattr(data, "X") and hasattr(data, "y"):
        X, y = data.X, data.y
    elif isinstance(data, tuple | list) and len(data) == 2:
        X, y = data
    else:
        raise TypeError("decision_surface takes the training points as (model, X, y), "
                        "(model, (X, y)) or (model, LabeledData); got "
                        f"{type(data).__name__} without y")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"data must have exactly 2 features for a decision surface, got X of "
                         f"shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"data: y must have {X.shape[0]} rows, got shape {y.shape}")
    return X, y


def _bounds(X: np.ndarray, bounds: Sequence[float] | None) -> tuple[float, ...]:
    if bounds is None:
        lo, hi = X.min(axis=0), X.max(axis=0)
        pad = 0.04 * np.where(hi > lo, hi - lo, 1.0)
        return (lo[0] - pad[0], hi[0] + pad[0], lo[1] - pad[1], hi[1] + pad[1])
    b = tuple(float(v) for v in bounds)
    if len(b) != 4 or not (b[0] < b[1] and b[2] < b[3]):
        raise ValueError(f"bounds must be (xmin, xmax, ymin, ymax) with min < max, got {bounds}")
    return b


def surface_grid(
    estimator: Any, bounds: Sequence[float], resolution: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted class probabilities at the centres of a ``resolution`` x ``resolution`` grid.

    Parameters
    ----------
    estimator : fitted classifier
        Has ``predict_proba`` and ``classes_``.
    bounds : (xmin, xmax, ymin, ymax)
        The square drawn.
    resolution : int, default 100
        Grid points per axis.

    Returns
    -------
    xs, ys : ndarray, (resolution,)
        Grid coordinates.
    proba : ndarray, (resolution, resolution, n_classes)
        ``proba[i, j]`` is the prediction at (xs[j], ys[i]).
    """
    if not hasattr(estimator, "predict_proba") or not hasattr(estimator, "classes_"):
        raise TypeError("estimator must be a fitted classifier with predict_proba (call fit "
                        "first)")
    if isinstance(resolution, bool) or not isinstance(resolution, int | np.integer) \
            or resolution < 2:
        raise ValueError(f"resolution must be an integer >= 2, got {resolution!r}")
    x0, x1, y0, y1 = _bounds(np.zeros((1, 2)), bounds)
    xs = x0 + (np.arange(resolution) + 0.5) * (x1 - x0) / resolution
    ys = y0 + (np.arange(resolution) + 0.5) * (y1 - y0) / resolution
    gx, gy = np.meshgrid(xs, ys)
    proba = np.asarray(estimator.predict_proba(np.column_stack([gx.ravel(), gy.ravel()])))
    return xs, ys, proba.reshape(resolution, resolution, -1)


def class_colours(n_classes: int) -> np.ndarray:
    """RGB colours of ``n_classes`` classes (cycling after 8)."""
    return _CLASS_COLOURS[np.arange(n_classes) % len(_CLASS_COLOURS)]


@share_docs
def decision_surface(
    estimator: Any,
    data: Any,
    y: Any = None,
    *,
    resolution: int = 100,
    bounds: Sequence[float] | None = None,
    points: bool = True,
    max_points: int = 500,
    point_size: float = 9.0,
    colorbar: bool = False,
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """A fitted ensemble's predicted probability over a 2-D grid, with the training points.

    Two classes: the image is P(second class | x) on a blue-white-red scale (white is 0.5,
    the decision boundary). More classes: every pixel mixes the class colours in proportion
    to the predicted probabilities, so pure colours are confident regions and blends are
    uncertain ones (the image-interpolation picture of Gashler et al. 2008). Training points
    are drawn in their class colours over it.

    Parameters
    ----------
    estimator : fitted classifier
        Any classifier with ``predict_proba`` and ``classes_`` fitted on two features.
    data : array-like (sample, 2), LabeledData or (X, y)
        The training points: X with exactly two columns when ``y`` is given (as scikit-learn's
        ``DecisionBoundaryDisplay.from_estimator(estimator, X)``), else a LabeledData or a
        pair (X, y).
    y : array-like (sample,), optional
        Labels of ``data`` (original labels, as in ``estimator.classes_``).
    resolution : int, default 100
        Grid points per axis.
    bounds : (xmin, xmax, ymin, ymax), optional
        The square drawn (default: the data's range with a 4%% margin).
    points : bool, default True
        Draw the training points.
    max_points : int, default 500
        Draw at most this many points (an evenly spaced subset), so that the surface stays
        visible under them.
    point_size : float, default 9
        Marker area of the points (points^2, as ``scatter``'s ``s``).
    colorbar : bool, default False
        Add a colour bar (two classes only).
    title : str, optional
        Axes title.
    %(ax)s

    Returns
    -------
    %(returns_ax)s

    Examples
    --------
    >>> import treelab
    >>> from treelab.datasets import gaussian_mixture
    >>> data = gaussian_mixture(100, random_state=0)
    >>> model = treelab.VRTrees(alpha=0.5, n_estimators=5, random_state=0).fit(data.X, data.y)
    >>> ax = decision_surface(model, data.X, data.y, resolution=20)
    >>> ax.images[0].get_array().shape  # P(second class) on a 20 x 20 grid
    (20, 20)
    """
    X, y = _xy(data, y)
    if not isinstance(points, bool):
        raise TypeError(f"points must be True or False, got {points!r}")
    b = _bounds(X, bounds)
    xs, ys, proba = surface_grid(estimator, b, resolution)
    classes = np.asarray(estimator.classes_)
    ax = get_ax(ax, figsize=(4.2, 4.0))
    extent = (b[0], b[1], b[2], b[3])
    colours = class_colours(len(classes))
    if len(classes) == 2:
        image = ax.imshow(proba[:, :, 1], origin="lower", extent=extent, cmap="RdBu_r",
                          vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
        colours = np.array([[0.129, 0.400, 0.674], [0.698, 0.094, 0.169]])
        if colorbar:
            ax.figure.colorbar(image, ax=ax, label=f"P(y = {classes[1]} | x)", shrink=0.85)
    else:
        rgb = np.clip(proba @ colours, 0.0, 1.0)
        ax.imshow(rgb, origin="lower", extent=extent, aspect="auto", interpolation="nearest")
    if points:
        if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 1:
            raise ValueError(f"max_points must be a positive integer, got {max_points!r}")
        idx = np.arange(len(y))
        if len(idx) > max_points:
            idx = np.linspace(0, len(y) - 1, max_points).astype(int)
        codes = np.searchsorted(classes, y[idx])
        codes = np.clip(codes, 0, len(classes) - 1)
        if isinstance(point_size, bool) or not isinstance(point_size, int | float) \
                or not point_size > 0:
            raise ValueError(f"point_size must be a positive number, got {point_size!r}")
        ax.scatter(X[idx, 0], X[idx, 1], c=colours[codes], s=point_size, edgecolors="white",
                   linewidths=0.4 * min(1.0, point_size / 9.0), zorder=3)
    names = getattr(data, "feature_names", None)
    if names is None and hasattr(data, "columns"):  # a DataFrame X
        names = [str(c) for c in data.columns]
    names = names or ("x1", "x2")
    ax.set_xlabel(str(names[0]))
    ax.set_ylabel(str(names[1]))
    ax.set_xlim(b[0], b[1])
    ax.set_ylim(b[2], b[3])
    if title is not None:
        ax.set_title(title)
    return ax
