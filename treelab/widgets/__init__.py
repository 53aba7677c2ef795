"""Interactive explorers for Jupyter: move a slider, see the figures and measures change.

* :class:`SpectrumExplorer` -- an experiment result: data set, construction and alpha; the
  error curve with the current alpha marked, the strength-correlation point on its
  trajectory, and the diagnostic measures at that alpha.
* :class:`DecisionSurfaceExplorer` -- 2-D data: alpha, number of trees and construction; a
  small ensemble is refitted live and its decision surface drawn beside its place in the
  strength-correlation plane and its phi_e.
* :class:`DiversityExplorer` -- phi_e against the error ratio across data sets; pick a data set
  to highlight its points and list its measures.

ipywidgets is imported only when an explorer is built. All the work happens in plain named
functions (:func:`spectrum_view`, :func:`surface_view`, :func:`diversity_view`,
:func:`measures_at`) that return a matplotlib Figure and a pandas table, so they can be called
and tested without a kernel; the explorers only wire them to controls. Figures are built with
:class:`matplotlib.figure.Figure` (not pyplot), rendered to PNG into an ``ipywidgets.Image``,
and never registered globally.
"""

from treelab.widgets._common import CONSTRUCTIONS, MEASURES, measures_at, render_png
from treelab.widgets.diversity import DiversityExplorer, diversity_view
from treelab.widgets.spectrum import SpectrumExplorer, spectrum_view
from treelab.widgets.surface import DecisionSurfaceExplorer, surface_view

__all__ = [
    "CONSTRUCTIONS",
    "MEASURES",
    "DecisionSurfaceExplorer",
    "DiversityExplorer",
    "SpectrumExplorer",
    "diversity_view",
    "measures_at",
    "render_png",
    "spectrum_view",
    "surface_view",
]
