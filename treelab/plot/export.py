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


def _constrained() -> type:
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    return ConstrainedLayoutEngine


def _legends_below(figure: Any, grow: bool) -> list[tuple[Any, Any]]:
    """Move every Axes legend that stands right of its axes to under them (in as many columns
    as fit the axes' width): in a single column such a legend takes a third of the width.
    With ``grow`` the figure grows by the tallest moved legend, so the panels keep their
    height. Returns (axes, former legend) pairs for :func:`_restore_legends`."""
    from treelab.plot._common import place_legend

    renderer = figure.canvas.get_renderer()
    moved = []
    extra = 0.0
    for ax in figure.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        if legend.get_window_extent(renderer).x0 < ax.get_window_extent(renderer).x1 - 1:
            continue  # inside or under the axes already
        handles = list(legend.legend_handles)
        labels = [t.get_text() for t in legend.get_texts()]
        room = ax.get_window_extent(renderer).width
        for ncols in range(len(labels), 0, -1):
            ax.legend_ = None  # out of the axes' extent, which sets how far under them it goes
            new = place_legend(ax, below=True, handles=handles, labels=labels, ncols=ncols,
                               fontsize=legend.texts[0].get_fontsize() if legend.texts
                               else "small")
            if ncols == 1 or new.get_window_extent(renderer).width <= room:
                break
        # the layout engine lays the panels out above a band kept for the legends (left to
        # itself, constrained layout gave such a legend several times its height)
        new.set_in_layout(False)
        moved.append((ax, legend))
        extra = max(extra, new.get_window_extent(renderer).height / figure.dpi + 0.05)
    if not moved:
        return moved
    size = figure.get_size_inches()
    if grow:
        figure.set_size_inches(size[0], size[1] + extra)
    engine = figure.get_layout_engine()
    if isinstance(engine, _constrained()):
        rect = engine.get()["rect"]
        band = extra / figure.get_size_inches()[1]
        engine.set(rect=(rect[0], rect[1] + band, rect[2], rect[3] - band))
        moved.append((engine, rect))
        figure.draw_without_rendering()
    return moved


def _restore_legends(moved: list[tuple[Any, Any]]) -> None:
    for ax, legend in moved:
        if isinstance(ax, _constrained()):
            ax.set(rect=legend)
            continue
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        ax.legend_ = legend


def _crop_box(figure: Any, width_in: float, pad: float = 0.04) -> Any:
    """A box ``width_in`` wide around the figure's content, cropped to it vertically: the
    figure is narrowed until what it draws (text and legends outside the axes included) fits
    that width, so a cropped file is exactly as wide as the journal asks."""
    from matplotlib.transforms import Bbox, TransformedBbox

    for _ in range(5):
        figure.draw_without_rendering()
        renderer = figure.canvas.get_renderer()
        # legends kept out of the layout (moved under their axes) count as content too
        legends = [a.get_legend() for a in figure.axes if a.get_legend() is not None]
        box = Bbox.union([figure.get_tightbbox(renderer)] + [
            TransformedBbox(lg.get_window_extent(renderer), figure.dpi_scale_trans.inverted())
            for lg in legends + list(figure.legends) if lg.get_visible()])
        if box.width + 2 * pad <= width_in + 1e-3:
            break
        size = figure.get_size_inches()
        figure.set_size_inches(size[0] * width_in / (box.width + 2 * pad), size[1])
    fig_w = figure.get_size_inches()[0]
    if box.x0 >= 0 and box.x1 <= fig_w and abs(fig_w - width_in) < 1e-6:
        x0 = 0.0  # everything inside the page: keep its own margins
    else:
        x0 = box.x0 - pad - max(0.0, width_in - box.width - 2 * pad) / 2
    return Bbox.from_extents(x0, box.y0 - pad, x0 + width_in, box.y1 + pad)


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
    for the legend places everything again. At a single column's width (3.5 in or less) a
    legend that stands right of its axes moves under them, in as many columns as fit (beside
    the axes it would take a third of the width). Afterwards size, fonts, legends and layout
    are restored.
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
    moved: list[tuple[Any, Any]] = []
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
        if width_in <= WIDTHS["single"] + 1e-9:
            moved = _legends_below(figure, grow=height is None)
        yield figure
    finally:
        _restore_legends(moved)
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
    with its fonts scaled to match and, in a single column, a legend beside the axes moved
    under them (see :func:`export_size`), written, and given back its former size, fonts and
    legends, so the notebook's figure is unchanged. A written file is exactly ``width`` wide
    (3.5 in = 252 pt for a single column): cropped to the content vertically, and, where text
    or a legend reaches past the page, narrowed until it fits (``tight=False`` writes the
    page as it is). Global matplotlib settings are never touched.

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
        Crop to the drawn content vertically, at exactly ``width``; False keeps the exact
        page size.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    A figure with its legend beside the axes, saved for one journal column: 3.5 in wide
    (1050 pixels at 300 dpi), the legend moved under the axes.

    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.image import imread
    >>> fig, ax = plt.subplots(figsize=(5.0, 3.5))
    >>> for name, errors in {"Aggregating": [0.21, 0.18, 0.2], "Bagging": [0.2, 0.19, 0.2]}.items():
    ...     _ = ax.plot([0.0, 0.5, 1.0], errors, label=name)
    >>> _ = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    >>> folder = tempfile.mkdtemp()
    >>> [p.name for p in savefig(fig, f"{folder}/spectrum", width="single")]
    ['spectrum.png', 'spectrum.pdf', 'spectrum.svg']
    >>> imread(f"{folder}/spectrum.png").shape[1]
    1050
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
        box = _crop_box(figure, _width_inches(width)) if tight else None
        for fmt in formats:
            target = path.with_suffix(f".{fmt}")
            figure.savefig(target, format=fmt, dpi=dpi, bbox_inches=box,
                           metadata={"Software": "treelab"} if fmt == "png" else None)
            written.append(target)
    return written
