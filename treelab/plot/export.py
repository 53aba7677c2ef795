"""Export a figure at publication size to PNG, PDF and SVG with one call."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMATS", "MIN_FONT_PT", "WIDTHS", "export_size", "savefig"]

#: Column widths in inches: a single column (3.5 in, most two-column journals) and a full
#: page width (7.0 in).
WIDTHS = {"single": 3.5, "double": 7.0}

#: Formats written by default.
FORMATS = ("png", "pdf", "svg")

#: Smallest font size (points) that shrinking a figure to a journal width gives its text.
MIN_FONT_PT = 6.5


def _figure_of(obj: Any) -> Any:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure

    if isinstance(obj, Figure):
        return obj
    if isinstance(obj, Axes | SubFigure):
        return obj.figure if isinstance(obj, Axes) else obj.figure
    if hasattr(obj, "figure") and isinstance(obj.figure, Figure):  # seaborn grids
        return obj.figure
    if isinstance(obj, np.ndarray) and obj.size and isinstance(obj.flat[0], Axes):
        return obj.flat[0].figure
    raise TypeError(f"fig must be a matplotlib Figure, Axes or seaborn grid, got "
                    f"{type(obj).__name__}")


def _relayout_grid(grid: Any, figure: Any) -> None:
    """Tight layout of a seaborn grid leaving room for its legend at the figure's size."""
    right = 1.0
    legend = getattr(grid, "legend", None)
    if legend is not None:
        renderer = figure.canvas.get_renderer()
        legend_in = legend.get_window_extent(renderer).width / figure.dpi
        right = max(0.4, 1.0 - (legend_in + 0.1) / figure.get_size_inches()[0])
    figure.tight_layout(rect=(0.0, 0.0, right, 1.0))


def _width_inches(width: str | float) -> float:
    if isinstance(width, str):
        if width not in WIDTHS:
            raise ValueError(f"width must be one of {sorted(WIDTHS)} or inches, got {width!r}")
        return WIDTHS[width]
    if isinstance(width, bool) or not isinstance(width, int | float) or width <= 0:
        raise ValueError(f"width must be positive inches or a named width, got {width!r}")
    return float(width)


@contextmanager
def export_size(fig: Any, width: str | float = "single", height: float | None = None
                ) -> Iterator[Any]:
    """Temporarily give a figure its exported size, with its text scaled to match.

    Inside the block the figure is ``width`` wide (its aspect ratio kept unless ``height`` is
    given). A figure built wider than that has every font size scaled by the ratio of the
    widths (never below :data:`MIN_FONT_PT`), so that a 10.5-inch three-panel figure printed
    at 7 inches looks as it did on screen instead of crowding its titles and labels; its
    layout engine (constrained layout) or, for a seaborn grid, a tight layout leaving room
    for the legend places everything again. Afterwards size, fonts and layout are restored.
    :func:`savefig` writes inside this block; tests check layouts inside it.

    Parameters
    ----------
    fig : matplotlib Figure, Axes or seaborn grid
        The figure (an Axes or grid stands for its whole figure).
    width : {"single", "double"} or float, default "single"
        Width: a journal column (3.5 in), the page width (7.0 in), or inches.
    height : float, optional
        Height in inches (default: keep the aspect ratio).

    Yields
    ------
    matplotlib.figure.Figure
        The resized figure.
    """
    from matplotlib.text import Text

    figure = _figure_of(fig)
    width_in = _width_inches(width)
    if height is not None and (isinstance(height, bool) or not isinstance(height, int | float)
                               or height <= 0):
        raise ValueError(f"height must be positive inches, got {height!r}")
    # seaborn grids place their legend outside the panels by hand: lay them out again
    grid = fig if hasattr(fig, "axes_dict") else None
    old = figure.get_size_inches().copy()
    scale = min(1.0, width_in / old[0])
    texts = [(t, t.get_fontsize()) for t in figure.findobj(Text)] if scale < 1 else []
    ticks = []
    if scale < 1:
        for ax in figure.axes:
            for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
                labels = axis.get_ticklabels()
                if labels:
                    ticks.append((ax, name, labels[0].get_fontsize()))
    try:
        figure.set_size_inches(width_in, float(height) if height is not None
                               else width_in * old[1] / old[0])
        for text, size in texts:
            text.set_fontsize(max(MIN_FONT_PT, size * scale))
        for ax, name, size in ticks:
            ax.tick_params(axis=name, labelsize=max(MIN_FONT_PT, size * scale))
        if grid is not None:
            _relayout_grid(grid, figure)
        yield figure
    finally:
        figure.set_size_inches(*old)
        for text, size in texts:
            text.set_fontsize(size)
        for ax, name, size in ticks:
            ax.tick_params(axis=name, labelsize=size)
        if grid is not None:
            _relayout_grid(grid, figure)


def savefig(
    fig: Any,
    path: str | os.PathLike[str],
    *,
    formats: Sequence[str] | None = None,
    width: str | float = "single",
    height: float | None = None,
    dpi: int = 300,
    tight: bool = True,
) -> list[Path]:
    """Save a figure at publication size in one or more formats.

    The figure is resized to ``width`` (keeping its aspect ratio unless ``height`` is given)
    with its fonts scaled to match (see :func:`export_size`), written (cropped to its content
    unless ``tight=False``), and given back its former size and fonts, so the notebook's
    figure is unchanged. Global matplotlib settings are never touched.

    Parameters
    ----------
    fig : matplotlib Figure, Axes or seaborn grid
        What to save (an Axes or grid saves its whole figure).
    path : str or path-like
        File name. With a suffix and no ``formats``, that one format; otherwise the suffix is
        replaced by each of ``formats``. Parent folders are created.
    formats : sequence of {"png", "pdf", "svg", ...}, optional
        Formats to write (default: the suffix of ``path``, else PNG, PDF and SVG).
    width : {"single", "double"} or float, default "single"
        Figure width: a journal column (3.5 in), the page width (7.0 in), or inches.
    height : float, optional
        Figure height in inches (default: keep the aspect ratio).
    dpi : int, default 300
        Resolution of raster formats.
    tight : bool, default True
        Crop to the drawn content (``bbox_inches="tight"``); False keeps the exact page size.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> ax = treelab.plot.spectrum(result, dataset="wine")  # doctest: +SKIP
    >>> treelab.plot.savefig(ax, "figures/spectrum", width="double")  # doctest: +SKIP
    [PosixPath('figures/spectrum.png'), PosixPath('figures/spectrum.pdf'), ...]
    """
    figure = _figure_of(fig)
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file path, got {type(path).__name__}")
    path = Path(path)
    _width_inches(width)
    if height is not None and (isinstance(height, bool) or not isinstance(height, int | float)
                               or height <= 0):
        raise ValueError(f"height must be positive inches, got {height!r}")
    if isinstance(dpi, bool) or not isinstance(dpi, int) or dpi < 10:
        raise ValueError(f"dpi must be an integer >= 10, got {dpi!r}")
    if formats is None:
        formats = (path.suffix.lstrip("."),) if path.suffix else FORMATS
    elif isinstance(formats, str):
        formats = (formats,)
    supported = figure.canvas.get_supported_filetypes()
    bad = [f for f in formats if f not in supported]
    if bad:
        raise ValueError(f"formats {bad} are not supported (choose from {sorted(supported)})")
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with export_size(fig, width, height):
        for fmt in formats:
            target = path.with_suffix(f".{fmt}")
            figure.savefig(target, format=fmt, dpi=dpi, bbox_inches="tight" if tight else None,
                           metadata={"Software": "treelab"} if fmt == "png" else None)
            written.append(target)
    return written
