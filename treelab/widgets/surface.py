"""The decision-surface explorer: a small VR-Trees ensemble refitted live on 2-D data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from treelab.widgets._common import (
    CONSTRUCTIONS,
    STYLE,
    _Explorer,
    _figure,
    _ipywidgets,
)


def _split(data: Any, test: Any, random_state: int) -> tuple[np.ndarray, ...]:
    from treelab.plot.surface import _xy

    X, y = _xy(data)
    if test is not None:
        Xt, yt = _xy(test)
        return X, y, Xt, yt
    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(y))
    half = len(y) // 2
    return X[order[:half]], y[order[:half]], X[order[half:]], y[order[half:]]


def surface_view(
    data: Any,
    *,
    alpha: float = 0.5,
    n_estimators: int = 20,
    construction: str = "Aggregating",
    test: Any = None,
    resolution: int = 60,
    random_state: int = 0,
    history: Sequence[tuple[float, float, float]] = (),
) -> tuple[Any, pd.DataFrame, Any]:
    """Fit a small VR-Trees ensemble and draw the :class:`DecisionSurfaceExplorer` picture.

    Left: :func:`treelab.plot.decision_surface` of the ensemble with its training points.
    Right: the ensemble's (strength, correlation) on the test rows over contours of Breiman's
    bound, with earlier settings (``history``) as faded points coloured by alpha. Table:
    test error, phi_e, phi*, strength, correlation and the bound (from
    :func:`treelab.analysis.diagnose`).

    Parameters
    ----------
    data : LabeledData or (X, y)
        Two-feature data. Without ``test``, a random half trains and the other half tests.
    alpha : float, default 0.5
        Probability of a deterministic test at a node.
    n_estimators : int, default 20
        Number of trees.
    construction : {"Aggregating", "Bagging", "Subspacing"}, default "Aggregating"
        What rows and features each tree sees.
    test : LabeledData or (X, y), optional
        Test rows for the measures.
    resolution : int, default 60
        Grid points per axis of the surface.
    random_state : int, default 0
        Seed of the split and of the ensemble.
    history : sequence of (alpha, strength, correlation)
        Earlier points to draw faded.

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame, fitted VRTrees)
    """
    import treelab
    from treelab import plot
    from treelab.analysis import diagnose

    if construction not in CONSTRUCTIONS:
        raise ValueError(f"construction must be one of {list(CONSTRUCTIONS)}, got "
                         f"{construction!r}")
    if isinstance(n_estimators, bool) or not isinstance(n_estimators, int | np.integer) \
            or n_estimators < 2:
        raise ValueError(f"n_estimators must be an integer >= 2, got {n_estimators!r}")
    X, y, Xt, yt = _split(data, test, random_state)
    model = treelab.VRTrees(n_estimators=int(n_estimators), alpha=float(alpha),
                            sampling=CONSTRUCTIONS[construction], subspace_fraction=0.5,
                            random_state=random_state)
    model.fit(X, y)  # with two features, a subspace tree sees one of them
    known = np.isin(yt, model.classes_)
    diag = diagnose(model, Xt[known], yt[known])
    fig, (left, right) = _figure(9.0, 4.0, 2, legend_in=0.3, top_in=1.15)
    names = getattr(data, "feature_names", None)
    plot.decision_surface(model, (X, y), resolution=resolution, ax=left,
                          bounds=plot.surface._bounds(np.vstack([X, Xt]), None),
                          title=f"{construction}, alpha = {alpha:g}, {n_estimators} trees")
    if names:
        left.set_xlabel(names[0])
        left.set_ylabel(names[1])
    s, rho = float(diag.strength), float(diag.correlation)
    _strength_panel(right, s, rho, float(alpha), history)
    table = pd.DataFrame(
        {"value": [float(diag.ensemble_error), float(diag.phi_e), float(diag.phi_star), s,
                   rho, float(diag.breiman_bound)]},
        index=pd.Index(["test error", "phi_e", "phi*", "strength", "correlation",
                        "Breiman bound"], name="measure"))
    return fig, table, model


def _strength_panel(ax: Any, s: float, rho: float, alpha: float,
                    history: Sequence[tuple[float, float, float]]) -> None:
    import matplotlib as mpl

    from treelab.plot.strength import breiman_bound, label_contours

    pts = [(a, hs, hr) for a, hs, hr in history if np.isfinite(hs) and np.isfinite(hr)]
    s_all = [p[1] for p in pts] + [s]
    r_all = [p[2] for p in pts] + [rho]
    s_lo = max(0.02, min(v for v in s_all if np.isfinite(v)) - 0.1) if np.isfinite(s) else 0.05
    r_hi = max(0.1, 1.25 * max(v for v in r_all if np.isfinite(v))) if np.isfinite(rho) else 1
    sg, rg = np.meshgrid(np.linspace(s_lo, 1.0, 80), np.linspace(0.0, r_hi, 80))
    cs = ax.contour(sg, rg, breiman_bound(sg, rg), levels=(0.05, 0.1, 0.2, 0.4, 0.8),
                    colors="0.65", linewidths=0.8)
    label_contours(ax, cs, (s_lo, 1.0, 0.0, r_hi))
    norm = mpl.colors.Normalize(0, 1)
    if pts:
        hist = np.array(pts)
        ax.scatter(hist[:, 1], hist[:, 2], c=hist[:, 0], cmap="viridis", norm=norm, s=18,
                   alpha=0.45, gid="history")
    current = ax.scatter([s], [rho], c=[alpha], cmap="viridis", norm=norm, s=120,
                         edgecolors="k", linewidths=1.2, zorder=3, gid="current")
    # point colour carries alpha: the colour bar says so
    bar = ax.figure.colorbar(current, ax=ax, label=r"point colour: $\alpha$", location="top",
                             fraction=0.05, pad=0.03, aspect=30, ticks=[0.0, 0.5, 1.0])
    ax.set_xlim(s_lo, 1.0)
    ax.set_ylim(0.0, r_hi)
    ax.set_xlabel("strength $s$")
    ax.set_ylabel(r"correlation $\bar\rho$")
    bar.ax.set_title("test rows: strength and correlation", fontsize="medium")


class DecisionSurfaceExplorer(_Explorer):
    """Refit a small ensemble live and watch its decision surface as alpha moves.

    Sliders for alpha and the number of trees and a construction picker refit a
    :class:`treelab.VRTrees` ensemble on two-feature data (concepts A/B, the Gaussian mixture,
    the noisy 2-D function, image interpolation) and redraw its decision surface beside its
    place in the strength-correlation plane; earlier settings stay as faded points, so the
    trajectory builds up as you slide. A table shows the test error, phi_e and phi*. Every
    interaction calls :func:`surface_view` (well under a second at the default sizes once the
    kernels are compiled).

    Parameters
    ----------
    data : LabeledData or (X, y)
        Two-feature training data (a random half trains when ``test`` is not given).
    test : LabeledData or (X, y), optional
        Test rows for the measures.
    n_estimators : int, default 20
        Initial number of trees (slider 2..100).
    alpha : float, default 0.5
        Initial alpha (slider 0..1 in steps of 0.05).
    construction : {"Aggregating", "Bagging", "Subspacing"}, default "Aggregating"
        Initial construction.
    resolution : int, default 60
        Grid points per axis of the surface.
    random_state : int, default 0
        Seed of the split and of every fit.
    """

    def __init__(self, data: Any, *, test: Any = None, n_estimators: int = 20,
                 alpha: float = 0.5, construction: str = "Aggregating", resolution: int = 60,
                 random_state: int = 0) -> None:
        w = _ipywidgets()
        from treelab.plot.surface import _xy

        _xy(data)  # checked before any widget exists
        if test is not None:
            _xy(test)
        if construction not in CONSTRUCTIONS:
            raise ValueError(f"construction must be one of {list(CONSTRUCTIONS)}, got "
                             f"{construction!r}")
        self.data, self.test = data, test
        self.resolution, self.random_state = resolution, random_state
        self.history: list[tuple[float, float, float]] = []
        self.alpha = w.FloatSlider(value=float(alpha), min=0.0, max=1.0, step=0.05,
                                   description="alpha", continuous_update=False, style=STYLE)
        self.n_estimators = w.IntSlider(value=int(n_estimators), min=2, max=100,
                                        description="trees", continuous_update=False,
                                        style=STYLE)
        self.construction = w.Dropdown(options=list(CONSTRUCTIONS), value=construction,
                                       description="construction", style=STYLE)
        self.image = w.Image(format="png")
        self.table = w.HTML()
        for control in (self.alpha, self.n_estimators, self.construction):
            control.observe(self._on_change, names="value")
        self.widget = w.VBox([w.HBox([self.alpha, self.n_estimators, self.construction]),
                              self.image, self.table])
        self.update()

    def _on_change(self, change: Any) -> None:
        if change.get("owner") is not self.alpha:
            self.history.clear()  # a new trajectory for another size or construction
        self.update()

    def update(self) -> None:
        """Refit and redraw for the current control values."""
        fig, table, self.model = surface_view(
            self.data, alpha=self.alpha.value, n_estimators=self.n_estimators.value,
            construction=self.construction.value, test=self.test,
            resolution=self.resolution, random_state=self.random_state,
            history=self.history)
        self.history.append((float(self.alpha.value), float(table.loc["strength", "value"]),
                             float(table.loc["correlation", "value"])))
        self._show(fig, table)
