"""Multi-panel figures built at the size they are printed at.

A figure drawn 15 inches wide and shrunk onto a 7-inch page keeps neither its proportions
nor its spacing, so the panels here are made at the exported width from the start, with
constrained layout, and ``savefig(..., width="double")`` writes them unchanged:

* :func:`panels` -- the bare grid, for panels drawn by different plot functions;
* :func:`facet` -- one plot function per entry of a mapping, titled with its key, the
  panels' legends merged into one right of (or under) the grid;
* :func:`measure_grid` -- small multiples of measures against a swept dim (one panel per
  variable, or one per coordinate of a dim with the variables as lines).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab.plot.export import _width_inches

__all__ = ["facet", "measure_grid", "panels"]

#: Room (inches) a row needs besides its panel: title, tick labels and axis label.
_ROW_EXTRA = 0.75

#: Longest legend entry (characters) that still goes right of the panels; longer ones go
#: under them, so that they do not squeeze the panels.
_LONG_ENTRY = 24


def _grid_shape(n: int, ncols: int | None) -> tuple[int, int]:
    if ncols is None:
        ncols = math.ceil(n / math.ceil(n / 4))  # at most 4 a row, rows as full as possible
    elif isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols must be a positive integer, got {ncols!r}")
    ncols = min(ncols, n)
    return math.ceil(n / ncols), ncols


def panels(
    n: int,
    *,
    ncols: int | None = None,
    width: str | float = "double",
    height: float | None = None,
    aspect: float = 0.8,
    sharex: bool = False,
    sharey: bool = False,
) -> tuple[Any, np.ndarray]:
    """A figure of ``n`` panels at its exported width, with constrained layout.

    Parameters
    ----------
    n : int
        Number of panels (cells of the last row beyond ``n`` are left out).
    ncols : int, optional
        Panels per row (default: ``n`` up to 4, else rows of at most 4 as even as possible).
    width : {"single", "double"} or float, default "double"
        The width the figure is exported at: a journal column (3.5 in), the page (7.0 in),
        or inches; pass the same to :func:`treelab.plot.savefig`.
    height : float, optional
        Height in inches (default: rows of panels ``aspect`` times as high as wide, plus room
        for titles and labels).
    aspect : float, default 0.8
        Height over width of a panel's data area (1 for pictures and surfaces).
    sharex, sharey : bool, default False
        Share the x (y) axis between the panels; inner tick labels are hidden.

    Returns
    -------
    figure : matplotlib.figure.Figure
    axes : numpy.ndarray of Axes, shape (n,)
        The panels in reading order.

    Examples
    --------
    >>> import treelab
    >>> from treelab.datasets import gaussian_mixture
    >>> data = gaussian_mixture(100, random_state=0)
    >>> model = treelab.VRTrees(n_estimators=5, random_state=0).fit(data.X, data.y)
    >>> fig, (left, right) = panels(2)
    >>> float(fig.get_size_inches()[0])  # the page width it is exported at
    7.0
    >>> ax = treelab.plot.decision_surface(model, data.X, data.y, resolution=20, ax=left)
    >>> margins = treelab.analysis.margins(model.member_predict(data.X), data.y)
    >>> ax = treelab.plot.margin_cdf(margins, ax=right)
    """
    import matplotlib.pyplot as plt

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if isinstance(aspect, bool) or not isinstance(aspect, int | float) or not aspect > 0:
        raise ValueError(f"aspect must be a positive number, got {aspect!r}")
    for name, value in (("sharex", sharex), ("sharey", sharey)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    width_in = _width_inches(width)
    nrows, ncols = _grid_shape(n, ncols)
    if height is None:
        height = nrows * (width_in / ncols * aspect + _ROW_EXTRA)
    elif isinstance(height, bool) or not isinstance(height, int | float) or height <= 0:
        raise ValueError(f"height must be positive inches, got {height!r}")
    fig = plt.figure(figsize=(width_in, float(height)), layout="constrained")
    grid = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False)
    for ax in grid.flat[n:]:
        ax.remove()
    return fig, grid.ravel()[:n]


def _wrap(text: str, ax: Any, fontsize: float) -> str:
    """``text`` broken into lines no wider than the panel (about 0.55 em a character)."""
    width_pt = ax.get_position().width * ax.figure.get_figwidth() * 72.0
    chars = max(8, int(width_pt / (0.55 * fontsize)))
    return textwrap.fill(str(text), chars)


def title_panel(ax: Any, title: str) -> None:
    """A panel title at the text size, wrapped to the panel's width."""
    from matplotlib.font_manager import FontProperties

    size = FontProperties(size="medium").get_size_in_points()
    ax.set_title(_wrap(title, ax, size), fontsize="medium")


def outer_labels(axes: Sequence[Any], sharex: bool, sharey: bool) -> None:
    """Keep the axis labels of shared axes on the outer panels only (one per row, column)."""
    for ax in axes:
        spec = ax.get_subplotspec()
        if sharey and not spec.is_first_col():
            ax.set_ylabel("")
        if sharex and not spec.is_last_row():
            below = [o for o in axes if o.get_subplotspec().colspan.start
                     == spec.colspan.start and o.get_subplotspec().rowspan.start
                     > spec.rowspan.start]
            if below:  # a panel of the last, short row may have none under it
                ax.set_xlabel("")


def figure_labels(fig: Any, axes: Sequence[Any]) -> None:
    """An axis label that several panels repeat, said once for the figure (under or left of
    the panels), so that long labels of neighbouring panels cannot run into each other."""
    if len(axes) < 2:
        return
    for axis, setter in (("x", fig.supxlabel), ("y", fig.supylabel)):
        labels = {getattr(ax, f"get_{axis}label")() for ax in axes}
        labels.discard("")
        if len(labels) != 1:
            continue
        label = labels.pop()
        for ax in axes:
            getattr(ax, f"set_{axis}label")("")
        setter(label, fontsize="medium")


def merge_legends(fig: Any, axes: Sequence[Any]) -> Any:
    """The panels' legends as one legend of the figure, outside the panels: right of them, or
    under them when an entry is long; entries with the same label are drawn once."""
    handles: dict[str, Any] = {}
    titles: set[str] = set()
    for ax in axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
            handles.setdefault(text.get_text(), handle)
        titles.add(legend.get_title().get_text())
        legend.remove()
    if not handles:
        return None
    options = {"frameon": False, "fontsize": "small"}
    if len(titles) == 1 and titles != {""}:  # what the panels' bands are, said once
        options["title"] = titles.pop()
    if max(len(line) for label in handles for line in label.splitlines()) > _LONG_ENTRY:
        options.update(loc="outside lower center", ncols=min(len(handles), 2))
    else:
        options.update(loc="outside right upper")
    return fig.legend(list(handles.values()), list(handles), **options)


def facet(
    draw: Callable[..., Any],
    entries: Mapping[Any, Any],
    /,
    *,
    ncols: int | None = None,
    width: str | float = "double",
    height: float | None = None,
    aspect: float = 0.8,
    sharex: bool = False,
    sharey: bool = False,
    titles: bool = True,
    legend: bool = True,
    **kwargs: Any,
) -> Any:
    """One panel per entry: ``draw(value, ax=panel, **kwargs)``, titled with the key.

    The grid is made at its exported width (:func:`panels`); with shared axes only the outer
    panels keep their axis labels, and the panels' legends become one legend of the figure,
    outside the panels (they draw the same entries in the same colours).

    Parameters
    ----------
    draw : callable
        A plot function taking the panel's value first and ``ax=`` (any ``treelab.plot``
        function that returns an Axes).
    entries : mapping
        Title -> first argument of ``draw``, one panel each, in order.
    ncols, width, height, aspect, sharex, sharey
        As for :func:`panels`.
    titles : bool, default True
        Title each panel with its key (wrapped to the panel's width).
    legend : bool, default True
        Merge the panels' legends into one legend of the figure (False: leave them).
    **kwargs
        Passed to every ``draw`` call.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    Voting margins of a forest grown on clean labels and on labels with 20% of them flipped:

    >>> import treelab
    >>> from treelab.datasets import gaussian_mixture
    >>> data = gaussian_mixture(100, random_state=0)
    >>> noisy = data.y.copy()
    >>> noisy[::5] = 1 - noisy[::5]
    >>> def margins(labels):
    ...     model = treelab.VRTrees(n_estimators=5, random_state=0).fit(data.X, labels)
    ...     return treelab.analysis.margins(model.member_predict(data.X), data.y)
    >>> fig = facet(treelab.plot.margin_cdf,
    ...             {"noise-free": margins(data.y), "20% noise": margins(noisy)}, sharey=True)
    >>> [ax.get_title() for ax in fig.axes]
    ['noise-free', '20% noise']
    """
    if not callable(draw):
        raise TypeError(f"draw must be a plot function, got {type(draw).__name__}")
    if not isinstance(entries, Mapping) or not entries:
        raise ValueError("entries must be a non-empty mapping of title to what each panel "
                         "draws")
    for name, value in (("titles", titles), ("legend", legend)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    fig, axes = panels(len(entries), ncols=ncols, width=width, height=height, aspect=aspect,
                       sharex=sharex, sharey=sharey)
    for (title, value), ax in zip(entries.items(), axes, strict=True):
        draw(value, ax=ax, **kwargs)
        if titles:
            title_panel(ax, str(title))
    outer_labels(axes, sharex, sharey)
    figure_labels(fig, axes)
    if legend:
        merge_legends(fig, axes)
    return fig


def measure_grid(
    result: xr.Dataset,
    *,
    x: str,
    hue: str,
    col: str = "variable",
    variables: Sequence[str] | None = None,
    ylabel: str | None = None,
    ncols: int | None = None,
    width: str | float = "double",
    aspect: float = 0.8,
    sharey: bool = False,
    xscale: str = "linear",
    spread: str = "sd",
    palette: Any = None,
) -> Any:
    """Small multiples of measures against a swept dim: one line per ``hue`` coordinate.

    Each panel is :func:`treelab.plot.measure_curve` (mean over repeats and folds, the
    spread as a band clipped to the valid range). With ``col="variable"`` every variable has
    a panel of its own, titled with its name; with ``col`` a dim, every coordinate of it has
    a panel and the variables are its lines (``hue="variable"``). One legend serves all.

    Parameters
    ----------
    result : xarray.Dataset
        Variables with the dims ``x`` and ``hue`` (or ``col``), and optionally ``repeat`` and
        ``fold``.
    x : str
        Dim on the x axis (``"alpha"``, ``"train_size"``, ...).
    hue : str
        Dim whose coordinates are the lines, or ``"variable"`` (with ``col`` a dim).
    col : str, default "variable"
        ``"variable"`` (a panel per variable) or a dim (a panel per coordinate).
    variables : sequence of str, optional
        The variables drawn, in order (default: every variable with dim ``x``).
    ylabel : str, optional
        Y-axis label of the panels, said once for the figure (default "value"); the panels'
        titles name the variables or coordinates.
    ncols, width, aspect, sharey
        As for :func:`panels`.
    xscale : {"linear", "log", "symlog"}, default "linear"
        Scale of the x axis (log axes are labelled with the swept values).
    spread : {"sd", "range", "none"}, default "sd"
        Band around the mean over repeats and folds.
    palette : str, list or dict, optional
        Colours of the lines.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import xarray as xr
    >>> result = xr.Dataset(
    ...     {"kappa": (("data", "alpha"), [[0.2, 0.4, 0.6], [0.1, 0.3, 0.5]]),
    ...      "error": (("data", "alpha"), [[0.1, 0.12, 0.15], [0.2, 0.22, 0.25]])},
    ...     coords={"data": ["waveform", "wine"], "alpha": [0.0, 0.5, 1.0]})
    >>> fig = measure_grid(result, x="alpha", hue="data")
    >>> [ax.get_title() for ax in fig.axes]
    ['kappa', 'error']
    """
    from treelab.plot.irrelevant import measure_curve

    if not isinstance(result, xr.Dataset):
        raise TypeError(f"result must be an xarray.Dataset, got {type(result).__name__}")
    if variables is None:
        variables = [str(v) for v, da in result.data_vars.items() if x in da.dims]
    variables = list(variables)
    missing = [v for v in variables if v not in result.data_vars]
    if not variables or missing:
        raise ValueError(f"variables {missing or variables} are not variables of result "
                         f"with the dim {x!r} (has {sorted(map(str, result.data_vars))})")
    ylabel = "value" if ylabel is None else str(ylabel)
    options = {"dim": x, "xscale": xscale, "spread": spread, "palette": palette}

    def draw(part: tuple[xr.Dataset, str, str], ax: Any) -> Any:
        ds, var, lines = part
        measure_curve(ds, var=var, hue=lines, ax=ax, **options)
        ax.set_ylabel(ylabel)  # the panel's title names the variable or the coordinate
        return ax

    if col == "variable":
        if hue == "variable":
            raise ValueError("hue and col cannot both be 'variable'")
        entries = {v: (result, v, hue) for v in variables}
    elif col in result.dims:
        if hue != "variable":
            raise ValueError("with col a dim, the variables are the lines: hue='variable'")
        stacked = result[variables].to_array("variable").rename("value").to_dataset()
        entries = {str(c): (stacked.sel({col: c}), "value", "variable")
                   for c in result[col].values}
    else:
        raise ValueError(f"col must be 'variable' or a dim of result ({tuple(result.dims)}), "
                         f"got {col!r}")
    return facet(draw, entries, ncols=ncols, width=width, aspect=aspect, sharex=True,
                 sharey=sharey)
