"""Parameter descriptions shared by the figure functions (after seaborn's ``_docstrings``).

A figure function writes ``%(ax)s`` (etc.) in its docstring and is decorated with
:func:`share_docs`, which substitutes the entries of :data:`DOCS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["DOCS", "share_docs"]

F = TypeVar("F", bound=Callable)

DOCS: dict[str, str] = {
    "result": """result : xarray.Dataset
        An experiment result (:func:`treelab.experiment.run`) or any Dataset with the named
        dims; values are averaged over ``repeat`` and ``fold`` and their spread is shown.""",
    "dataset": """dataset : str, optional
        The data set to draw (a ``dataset`` coordinate); needed when the result holds several
        and ``col`` is not ``"dataset"``.""",
    "ensembles": """ensembles : sequence of str, optional
        Ensembles to draw, in this order (default: every ``ensemble`` coordinate with data).""",
    "spread": """spread : {"sd", "range", "none"}, default "sd"
        Band drawn around the mean over repeats and folds: +-1 standard deviation clipped to
        the variable's valid range (its ``valid_range`` attr; an error rate's band stops at
        0, an accuracy's at 1), min-max, or nothing; the legend's title says which band is
        drawn and over which resamples.""",
    "ax": """ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made when None.""",
    "palette": """palette : str, list or dict, optional
        Colours of the ensembles: a seaborn palette name, a list, or a dict name -> colour
        (default: Okabe & Ito's colour-blind-safe palette, each known ensemble in its own
        colour in every figure, :data:`treelab.plot._common.ENSEMBLE_COLOURS`, the others in
        order).""",
    "returns_ax": """matplotlib.axes.Axes
        The Axes drawn on.""",
}


def share_docs(func: F) -> F:
    """Fill ``%(name)s`` placeholders of ``func.__doc__`` from :data:`DOCS`."""
    if func.__doc__:
        func.__doc__ = func.__doc__ % DOCS
    return func
