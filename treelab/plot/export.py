"""Export a figure at publication size to PNG, PDF and SVG with one call."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMATS", "MIN_FONT_PT", "MIN_PANEL_IN", "WIDTHS", "export_size", "savefig"]

#: Column widths in inches: a single column (3.5 in, most two-column journals) and a full
#: page width (7.0 in).
WIDTHS = {"single": 3.5, "double": 7.0}

#: Formats written by default.
FORMATS = ("png", "pdf", "svg")

#: Smallest font size (points) that shrinking a figure to a journal width gives its text.
MIN_FONT_PT = 6.5

#: Narrowest panel (inches) of an exported grid: a grid whose panels would be narrower at the
#: export width gets fewer panels per row, and more rows (:func:`export_size`).
MIN_PANEL_IN = 1.5


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
                               else "small", title=legend.get_title().get_text() or None)
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


def _panels(figure: Any) -> tuple[list[Any], Any] | None:
    """The panels of a grid figure in reading order and their GridSpec, or None when the
    figure is not one grid of panels (colour bars aside)."""
    panels = [ax for ax in figure.axes if not hasattr(ax, "_colorbar")
              and ax.get_label() != "<colorbar>"]
    specs = [ax.get_subplotspec() for ax in panels]
    if len(panels) < 2 or any(s is None for s in specs):
        return None
    grid = specs[0].get_gridspec()
    if any(s.get_gridspec() is not grid or s.rowspan.stop - s.rowspan.start != 1
           or s.colspan.stop - s.colspan.start != 1 for s in specs):
        return None
    order = sorted(range(len(panels)), key=lambda i: (specs[i].rowspan.start,
                                                     specs[i].colspan.start))
    return [panels[i] for i in order], grid


def _reflow(figure: Any, width_in: float, room_in: float) -> tuple[list[tuple[Any, Any]],
                                                                   int, int, int]:
    """Give a grid of panels fewer columns when its panels would be narrower than
    :data:`MIN_PANEL_IN` in ``room_in`` inches (a three-panel row in one journal column:
    0.7 in high, squashed panels, overprinted ticks). Returns (panel, former spec) pairs for
    :func:`_restore_reflow`, and the former and new numbers of columns and rows' new count."""
    from matplotlib.gridspec import GridSpec

    found = _panels(figure)
    if found is None:
        return [], 0, 0, 0
    panels, grid = found
    old_cols = max(ax.get_subplotspec().colspan.start for ax in panels) + 1
    fits = max(1, int(room_in // MIN_PANEL_IN))
    if old_cols <= fits:
        return [], 0, 0, 0
    ncols = fits
    nrows = -(-len(panels) // ncols)
    new = GridSpec(nrows, ncols, figure=figure)
    ylabel = panels[0].get_ylabel()
    former = []
    for i, ax in enumerate(panels):
        former.append((ax, (ax.get_subplotspec(), ax.get_ylabel())))
        ax.set_subplotspec(new[i // ncols, i % ncols])
        ax.set_position(new[i // ncols, i % ncols].get_position(figure))
        if i % ncols == 0 and not ax.get_ylabel():
            ax.set_ylabel(ylabel)  # a panel that starts a row now: the grid labels those
    return former, old_cols, ncols, nrows


def _legends_width(figure: Any) -> float:
    """Inches taken by the figure's own legends (a seaborn grid's, beside its panels)."""
    renderer = figure.canvas.get_renderer()
    return sum(lg.get_window_extent(renderer).width for lg in figure.legends) / figure.dpi


def _restore_reflow(former: list[tuple[Any, Any]]) -> None:
    for ax, (spec, ylabel) in former:
        ax.set_subplotspec(spec)
        ax.set_position(spec.get_position(ax.figure))
        ax.set_ylabel(ylabel)


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
    the axes it would take a third of the width). A grid of panels that would leave each
    panel narrower than :data:`MIN_PANEL_IN` in a single column gets fewer panels per row
    and more rows (three in a row at 3.5 in were 0.7 in high, ticks overprinted; beside their
    legend they become a column of three), each panel keeping its shape, unless ``height``
    is given. Afterwards size, fonts,
    legends, panels and layout are restored.
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
    flowed: list[tuple[Any, Any]] = []
    try:
        old_legend_in = _legends_width(figure)
        figure.set_size_inches(width_in, float(height) if height is not None
                               else width_in * old[1] / old[0])
        for text, size in texts:
            text.set_fontsize(max(MIN_FONT_PT, size * scale))
        for ax, name, size in ticks:
            ax.tick_params(axis=name, labelsize=max(MIN_FONT_PT, size * scale))
        # a grid's legend beside its panels keeps its room: the panels share what is left
        legend_in = _legends_width(figure)
        if width_in <= WIDTHS["single"] + 1e-9:  # wider figures are laid out at their width
            flowed, old_cols, ncols, nrows = _reflow(figure, width_in, width_in - legend_in)
        if flowed and height is None:
            # each panel keeps its shape: rows of narrower panels, as high as wide times the
            # panels' former aspect
            old_rows = max(spec.rowspan.start for _, (spec, _) in flowed) + 1
            aspect = (old[1] / old_rows) / ((old[0] - old_legend_in) / old_cols)
            figure.set_size_inches(width_in, nrows * (width_in - legend_in) / ncols * aspect)
        if grid is not None:
            _relayout_grid(grid, figure)
        if width_in <= WIDTHS["single"] + 1e-9:
            moved = _legends_below(figure, grow=height is None)
        yield figure
    finally:
        _restore_legends(moved)
        _restore_reflow(flowed)
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
