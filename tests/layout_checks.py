"""A small layout checker for figures: what a reader would see as broken, measured in pixels.

:func:`layout_problems` draws a figure and measures, with matplotlib's renderer extents,

* text boxes that overlap one another (titles, axis and tick labels, legend entries, contour
  labels, annotations, colour-bar labels) -- across panels too;
* text cut by the figure's edge, and contour labels cut by their axes;
* legends covering data: any line vertex or scatter point of any axes inside a legend box;
* markers cut in half at the axes' edge (a clipped marker whose centre lies on the edge);
* axes without labels, when asked (a figure's own x or y label, ``supxlabel`` or
  ``supylabel``, labels every panel).

It returns readable sentences (empty when the figure is clean), so an assertion message says
what is wrong. ``tests/test_plot_layout.py`` checks every figure function with it at its
exported size, and checks that it catches a deliberately broken figure.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.legend import Legend
from matplotlib.text import Text

#: Pixels two boxes may share before they count as overlapping (antialiasing, touching).
TOLERANCE = 1.0


def _visible_texts(fig: Any, renderer: Any) -> list[tuple[str, Text, Any]]:
    """(description, artist, window extent) of every drawn, non-empty text."""
    skipped = _undrawn_tick_labels(fig)
    found = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in skipped:
            continue
        try:
            box = text.get_window_extent(renderer)
        except RuntimeError:
            continue
        if box.width < 1 or box.height < 1:
            continue
        found.append((_describe(text), text, box))
    return found


def _undrawn_tick_labels(fig: Any) -> set[int]:
    """Ids of tick labels matplotlib keeps but does not draw (ticks outside the view, spare
    tick objects, labels switched off)."""
    skipped = set()
    for ax in fig.axes:
        if not ax.axison or not ax.get_visible():
            for axis in ax._axis_map.values():
                for tick in axis.majorTicks + axis.minorTicks:
                    skipped.update((id(tick.label1), id(tick.label2)))
            continue
        for axis in ax._axis_map.values():
            drawn = set()
            for tick in axis._update_ticks():  # the ticks the next draw will draw
                if tick.label1.get_visible():
                    drawn.add(id(tick.label1))
                if tick.label2.get_visible():
                    drawn.add(id(tick.label2))
            for tick in axis.majorTicks + axis.minorTicks:
                for label in (tick.label1, tick.label2):
                    if id(label) not in drawn:
                        skipped.add(id(label))
    return skipped


def _tick_labels(fig: Any) -> set[int]:
    out = set()
    for ax in fig.axes:
        for axis in ax._axis_map.values():
            for tick in axis.majorTicks + axis.minorTicks:
                out.update((id(tick.label1), id(tick.label2)))
            out.add(id(axis.offsetText))
    return out


def _describe(text: Text) -> str:
    return repr(text.get_text()[:40])


def _overlap(a: Any, b: Any) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > TOLERANCE
            and min(a.y1, b.y1) - max(a.y0, b.y0) > TOLERANCE)


def _legends(fig: Any) -> list[Legend]:
    out = list(fig.legends)
    for ax in fig.axes:
        if ax.get_legend() is not None:
            out.append(ax.get_legend())
    return [leg for leg in out if leg.get_visible()]


def _inside(legend_artists: set, artist: Any) -> bool:
    return artist in legend_artists


def _data_points(ax: Axes) -> np.ndarray:
    """Display coordinates of the data drawn on ``ax``: line vertices and scatter points
    inside the view (the reference lines spanning the axes count too)."""
    pts = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.column_stack([line.get_xdata(orig=False), line.get_ydata(orig=False)])
        xy = np.asarray(xy, dtype=np.float64)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) >= 2:  # sample along the segments: a legend over a line's middle counts
            t = np.linspace(0, 1, 12)[:, None]
            xy = np.vstack([a + t * (b - a) for a, b in itertools.pairwise(xy)] + [xy])
        if len(xy):
            pts.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible():
            offsets = np.asarray(coll.get_offsets(), dtype=np.float64)
            offsets = offsets[np.isfinite(offsets).all(axis=1)]
            if len(offsets):
                pts.append(coll.get_offset_transform().transform(offsets))
    if not pts:
        return np.empty((0, 2))
    xy = np.vstack(pts)
    box = ax.get_window_extent()
    keep = ((xy[:, 0] >= box.x0 - 1) & (xy[:, 0] <= box.x1 + 1)
            & (xy[:, 1] >= box.y0 - 1) & (xy[:, 1] <= box.y1 + 1))
    return xy[keep]


def _cut_markers(ax: Axes, dpi: float) -> list[str]:
    """Clipped markers whose centre lies within half a marker of the axes' edge."""
    problems = []
    box = ax.get_window_extent()
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "", " ") or not line.get_clip_on():
            continue
        if not line.get_visible():
            continue
        radius = line.get_markersize() * dpi / 72.0 / 2.0
        xy = np.column_stack([line.get_xdata(orig=False), line.get_ydata(orig=False)])
        xy = np.asarray(xy, dtype=np.float64)
        xy = line.get_transform().transform(xy[np.isfinite(xy).all(axis=1)])
        inside = ((xy[:, 0] >= box.x0 - radius) & (xy[:, 0] <= box.x1 + radius)
                  & (xy[:, 1] >= box.y0 - radius) & (xy[:, 1] <= box.y1 + radius))
        near = inside & ((np.abs(xy[:, 0] - box.x0) < radius - 0.5)
                         | (np.abs(xy[:, 0] - box.x1) < radius - 0.5)
                         | (np.abs(xy[:, 1] - box.y0) < radius - 0.5)
                         | (np.abs(xy[:, 1] - box.y1) < radius - 0.5))
        if near.any():
            problems.append(f"markers of {line.get_label()!r} cut at the axes' edge "
                            f"({int(near.sum())} of them)")
    return problems


def layout_problems(fig: Any, *, labels: bool = True) -> list[str]:
    """What is broken in the figure's layout, as sentences (empty: clean).

    Parameters
    ----------
    fig : matplotlib Figure
        Drawn at its current size (resize it to the exported size first).
    labels : bool, default True
        Also require every visible, non-colour-bar axes with ticks to have x and y labels.
    """
    if not hasattr(fig.canvas, "get_renderer"):  # a bare Figure (the widgets' own)
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    texts = _visible_texts(fig, renderer)
    legends = _legends(fig)
    # text boxes overlapping each other
    for (da, _, ba), (db, _, bb) in itertools.combinations(texts, 2):
        if _overlap(ba, bb):
            problems.append(f"text {da} overlaps text {db}")
    # text cut by the figure edge (what savefig's tight crop cannot bring back: nothing is
    # cut there, but a text outside the canvas is a misplaced one) and contour labels cut
    fig_box = fig.bbox
    for desc, text, box in texts:
        if box.x0 < fig_box.x0 - 1 or box.x1 > fig_box.x1 + 1 or box.y0 < fig_box.y0 - 1 \
                or box.y1 > fig_box.y1 + 1:
            problems.append(f"text {desc} runs off the figure")
        parent = getattr(text, "axes", None)
        if parent is not None and text in parent.texts and text.get_clip_on():
            ab = parent.get_window_extent()
            if box.x0 < ab.x0 - 1 or box.x1 > ab.x1 + 1 or box.y0 < ab.y0 - 1 \
                    or box.y1 > ab.y1 + 1:
                problems.append(f"text {desc} is cut by its axes")
    # text (a title, a legend entry) running into another axes' area: hidden behind it
    ticks = _tick_labels(fig)
    for desc, text, box in texts:
        if id(text) in ticks:
            continue
        own = getattr(text, "axes", None)
        for ax in fig.axes:
            if ax is own or not ax.get_visible() or not ax.axison:
                continue
            if _overlap(box, ax.get_window_extent(renderer)):
                problems.append(f"text {desc} runs into the area of axes "
                                f"{ax.get_label() or ax.get_title()!r}")
    # legends over data
    for legend in legends:
        lbox = legend.get_window_extent(renderer)
        for ax in fig.axes:
            xy = _data_points(ax)
            hit = ((xy[:, 0] > lbox.x0) & (xy[:, 0] < lbox.x1) & (xy[:, 1] > lbox.y0)
                   & (xy[:, 1] < lbox.y1))
            if hit.any():
                problems.append(f"legend {[t.get_text() for t in legend.get_texts()][:3]} "
                                f"covers {int(hit.sum())} data points of an axes")
        for other in legends:
            if other is not legend and _overlap(lbox, other.get_window_extent(renderer)):
                problems.append("two legends overlap")
    # a label of the whole figure (supxlabel, supylabel) labels every column (row)
    fig_x, fig_y = (bool(t is not None and t.get_visible() and t.get_text().strip())
                    for t in (getattr(fig, "_supxlabel", None), getattr(fig, "_supylabel", None)))
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison:
            continue
        problems.extend(_cut_markers(ax, fig.dpi))
        if labels and not _is_colorbar(ax):
            # a grid labels its outer panels only: a row (column) with one label is labelled
            pos = ax.get_position()
            row_label = fig_y or any(o.get_ylabel() and abs(o.get_position().y0 - pos.y0)
                                     < 0.02 for o in fig.axes)
            col_label = fig_x or any(o.get_xlabel() and abs(o.get_position().x0 - pos.x0)
                                     < 0.02 for o in fig.axes)
            if ax.xaxis.get_visible() and not col_label and _labelled_ticks(ax.xaxis):
                problems.append(f"axes {ax.get_title()!r} has no x label")
            if ax.yaxis.get_visible() and not row_label and _labelled_ticks(ax.yaxis):
                problems.append(f"axes {ax.get_title()!r} has no y label")
    return sorted(set(problems))


def _labelled_ticks(axis: Any) -> bool:
    return any(t.get_text() for t in axis.get_ticklabels())


def _is_colorbar(ax: Axes) -> bool:
    return getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"
