"""Publication-quality figures of treelab results (matplotlib and seaborn).

Every function takes a result Dataset (or a fitted estimator and its data, for
:func:`decision_surface`), draws on ``ax`` (a new figure when None) and returns the Axes, or
the seaborn grid for faceted figures. Nothing here calls ``plt.show()`` or changes global
matplotlib settings; :func:`savefig` writes a figure at journal column width to PNG, PDF and
SVG in one call.

=================================  =============================================================
:func:`spectrum`                   error against alpha per construction (Liu et al. 2008)
:func:`regression_spectrum`        a regression forest's MSE and its explanations against alpha
:func:`strength_correlation`       trajectories over contours of Breiman's bound
:func:`error_ratio_vs_phi`         E_r against phi_e with the OLS line (Ali & Pazzani 1995)
:func:`error_ratio_vs_gain_ties`   E_r against gain ties per decision node
:func:`reliability`                reliability curves per class (Fan et al. 2005)
:func:`bias_variance`              stacked bias and variance bars
:func:`critical_difference`        CD diagram: Wilcoxon-Holm cliques, Nemenyi, any p-values
:func:`posterior_simplex`          the Bayesian signed-rank posterior in the simplex
:func:`posterior_t`                the correlated t posterior density with the rope
:func:`decision_surface`           predicted probability over a 2-D grid with the training points
:func:`irrelevant_attributes`      accuracy against added irrelevant attributes (log x axis)
:func:`measure_curve`              any measure against any swept dim (training size, noise)
:func:`stack_results`              several ``diagnose`` results in the (ensemble, alpha) shape
:func:`panels`                     a grid of panels made at its exported width
:func:`facet`                      one plot function per panel, one legend for the figure
:func:`surface_panels`             decision surfaces of several models beside the true classes
:func:`measure_grid`               small multiples of measures against a swept dim
=================================  =============================================================
"""

from treelab.plot.bayes import posterior_simplex, posterior_t
from treelab.plot.comparison import critical_difference
from treelab.plot.diversity import error_ratio_vs_gain_ties, error_ratio_vs_phi
from treelab.plot.export import savefig
from treelab.plot.irrelevant import irrelevant_attributes, measure_curve
from treelab.plot.panels import facet, measure_grid, panels
from treelab.plot.probability import bias_variance, reliability
from treelab.plot.spectrum import regression_spectrum, spectrum
from treelab.plot.stack import stack_results
from treelab.plot.strength import breiman_bound, strength_correlation
from treelab.plot.surface import decision_surface, surface_grid, surface_panels
from treelab.plot.workbench import kappa_error_diagram, kappa_error_points, margin_cdf

__all__ = [
    "bias_variance",
    "breiman_bound",
    "critical_difference",
    "decision_surface",
    "error_ratio_vs_gain_ties",
    "error_ratio_vs_phi",
    "facet",
    "irrelevant_attributes",
    "kappa_error_diagram",
    "kappa_error_points",
    "margin_cdf",
    "measure_curve",
    "measure_grid",
    "panels",
    "posterior_simplex",
    "posterior_t",
    "regression_spectrum",
    "reliability",
    "savefig",
    "spectrum",
    "stack_results",
    "strength_correlation",
    "surface_panels",
    "surface_grid",
]
