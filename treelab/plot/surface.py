"""Decision surfaces: a fitted ensemble's class probabilities over a 2-D grid, and
:func:`surface_panels`, the true class picture beside the surfaces of several models
(Gashler et al. 2008, image interpolation; the noisy 2-D function), laid out by
:func:`treelab.plot.panels`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from treelab.plot._common import get_ax
from treelab.plot._docstrings import share_docs
from treelab.plot.panels import outer_labels, panels, title_panel

__all__ = ["decision_surface", "surface_grid", "surface_panels"]

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


def _truth_image(truth: Any, classes: np.ndarray, bounds: tuple[float, ...],
                 resolution: int) -> tuple[np.ndarray, tuple[float, ...]]:
    """Class codes of the true picture and its extent: a labelling function evaluated at the
    grid centres, or a LabeledData of pixel centres in row-major order (``meta["shape"]``,
    as :func:`treelab.datasets.image_interpolation` gives)."""
    if callable(truth):
        x0, x1, y0, y1 = bounds
        xs = x0 + (np.arange(resolution) + 0.5) * (x1 - x0) / resolution
        ys = y0 + (np.arange(resolution) + 0.5) * (y1 - y0) / resolution
        gx, gy = np.meshgrid(xs, ys)
        labels = np.asarray(truth(np.column_stack([gx.ravel(), gy.ravel()])))
        if labels.shape != (resolution * resolution,):
            raise ValueError(f"truth must return one label per row, got shape {labels.shape}")
        labels, extent = labels.reshape(resolution, resolution), bounds
    elif hasattr(truth, "X") and hasattr(truth, "y") and "shape" in getattr(truth, "meta", {}):
        shape = tuple(truth.meta["shape"])
        X = np.asarray(truth.X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != 2 or len(truth.y) != math.prod(shape):
            raise ValueError("truth must hold one row of 2 features per pixel of its "
                             "meta['shape']")
        labels = np.asarray(truth.y).reshape(shape)
        # pixel centres: the picture reaches half a pixel beyond the outer ones
        half_x = (X[:, 0].max() - X[:, 0].min()) / max(shape[1] - 1, 1) / 2
        half_y = (X[:, 1].max() - X[:, 1].min()) / max(shape[0] - 1, 1) / 2
        extent = (X[:, 0].min() - half_x, X[:, 0].max() + half_x,
                  X[:, 1].min() - half_y, X[:, 1].max() + half_y)
    else:
        raise TypeError("truth must be a function of X (n, 2) returning labels, or a "
                        "LabeledData of pixels with meta['shape'] (image_interpolation)")
    codes = np.searchsorted(classes, labels.ravel())
    bad = (codes >= len(classes)) | (classes[np.minimum(codes, len(classes) - 1)]
                                     != labels.ravel())
    if bad.any():
        raise ValueError(f"truth has labels {np.unique(labels.ravel()[bad]).tolist()} that "
                         f"the models do not know (classes {classes.tolist()})")
    return codes.reshape(labels.shape), tuple(float(v) for v in extent)


def surface_panels(
    models: Mapping[str, Any],
    data: Any,
    y: Any = None,
    *,
    truth: Any = None,
    truth_title: str = "true classes",
    bounds: Sequence[float] | None = None,
    resolution: int = 100,
    points: bool = True,
    max_points: int = 300,
    point_size: float = 4.0,
    colorbar: bool = False,
    ncols: int | None = None,
    width: str | float = "double",
) -> Any:
    """Decision surfaces of several fitted models side by side, after the true classes.

    Every panel is :func:`treelab.plot.decision_surface` of one model over the same square;
    the panels share their axes (labels on the outer ones only). With ``truth``, a first panel
    shows the noise-free classes in the same colours, so that axis-aligned staircases and
    oblique boundaries can be compared with what the models should draw.

    Parameters
    ----------
    models : mapping of str to fitted classifier
        Title -> model fitted on the two features of ``data`` (with the same classes).
    data : array-like (sample, 2), LabeledData or (X, y)
        Training points, as for :func:`treelab.plot.decision_surface`.
    y : array-like (sample,), optional
        Labels of ``data``.
    truth : callable or LabeledData, optional
        The true classes: a function of X (n, 2) returning labels (such as
        :func:`treelab.datasets.noisy_function_label`), or a picture as pixels
        (:func:`treelab.datasets.image_interpolation`).
    truth_title : str, default "true classes"
        Title of the truth panel.
    bounds : (xmin, xmax, ymin, ymax), optional
        The square drawn (default: the data's range with a 4% margin).
    resolution : int, default 100
        Grid points per axis (of the surfaces and of a truth function).
    points : bool, default True
        Draw the training points over each surface.
    max_points : int, default 300
        Draw at most this many of them (an evenly spaced subset).
    point_size : float, default 4
        Their marker area (points^2): small, as the panels are.
    colorbar : bool, default False
        One colour bar of P(second class | x) right of the panels (two classes only).
    ncols : int, optional
        Panels per row (default: all in one row up to 5 panels).
    width : {"single", "double"} or float, default "double"
        The width the figure is exported at.

    Returns
    -------
    matplotlib.figure.Figure
    """

    if not isinstance(models, Mapping) or not models:
        raise ValueError("models must be a non-empty mapping of title to fitted classifier")
    if not isinstance(colorbar, bool):
        raise TypeError(f"colorbar must be True or False, got {colorbar!r}")
    X, _ = _xy(data, y)
    box = _bounds(X, bounds)
    first = next(iter(models.values()))
    if not hasattr(first, "classes_"):
        raise TypeError("models must be fitted classifiers (call fit first)")
    classes = np.asarray(first.classes_)
    n = len(models) + (truth is not None)
    if ncols is None and n <= 5:
        ncols = n
    fig, axes = panels(n, ncols=ncols, width=width, aspect=1.0, sharex=True, sharey=True)
    rest = list(axes)
    if truth is not None:
        ax = rest.pop(0)
        codes, extent = _truth_image(truth, classes, box, resolution)
        ax.imshow(class_colours(len(classes))[codes], origin="lower", extent=extent, aspect="auto",
                  interpolation="nearest")
        ax.set(xlim=box[:2], ylim=box[2:])
        title_panel(ax, truth_title)
    for (title, model), ax in zip(models.items(), rest, strict=True):
        decision_surface(model, data, y, resolution=resolution, bounds=box, points=points,
                         max_points=max_points, point_size=point_size, ax=ax)
        title_panel(ax, str(title))
    names = getattr(data, "feature_names", None) or ("x1", "x2")
    for ax in axes:
        ax.set_xlabel(str(names[0]))
        ax.set_ylabel(str(names[1]))
        ax.set_box_aspect(1.0)
        for axis in (ax.xaxis, ax.yaxis):  # "0", "0.5", "1": shorter than "0.0", "1.0",
            axis.set_major_formatter(lambda v, _pos: f"{v:g}")  # so neighbours keep apart
    outer_labels(axes, True, True)
    if colorbar:
        if len(classes) != 2:
            raise ValueError("colorbar needs two classes (more classes mix their colours)")
        fig.colorbar(rest[-1].images[0], ax=list(axes), shrink=0.7, aspect=15,
                     label=f"P(y = {classes[1]} | x)")
    return fig
