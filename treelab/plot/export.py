"""Export a figure at publication size to PNG, PDF and SVG with one call."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMATS", "WIDTHS", "savefig"]

#: Column widths in inches: a single column (3.5 in, most two-column journals) and a full
#: page width (7.0 in).
WIDTHS = {"single": 3.5, "double": 7.0}

#: Formats written by default.
FORMATS = ("png", "pdf", "svg")


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

    The figure is resized to ``width`` (keeping its aspect ratio unless ``height`` is given),
    written (cropped to its content unless ``tight=False``), and given back its former size,
    so the notebook's figure is unchanged. Global matplotlib settings are never touched.

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
    # seaborn grids place their legend outside the panels by hand: lay them out again
    relayout = (lambda: _relayout_grid(fig, figure)) if hasattr(fig, "axes_dict") else None
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file path, got {type(path).__name__}")
    path = Path(path)
    if isinstance(width, str):
        if width not in WIDTHS:
            raise ValueError(f"width must be one of {sorted(WIDTHS)} or inches, got {width!r}")
        width_in = WIDTHS[width]
    elif isinstance(width, bool) or not isinstance(width, int | float) or width <= 0:
        raise ValueError(f"width must be positive inches or a named width, got {width!r}")
    else:
        width_in = float(width)
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
    old = figure.get_size_inches().copy()
    new_height = float(height) if height is not None else width_in * old[1] / old[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        figure.set_size_inches(width_in, new_height)
        if relayout is not None:
            relayout()
        for fmt in formats:
            target = path.with_suffix(f".{fmt}")
            figure.savefig(target, format=fmt, dpi=dpi, bbox_inches="tight" if tight else None,
                           metadata={"Software": "treelab"} if fmt == "png" else None)
            written.append(target)
    finally:
        figure.set_size_inches(*old)
        if relayout is not None:
            relayout()
    return written
