"""Analysis of tree ensembles: pure functions over member outputs returning xarray objects.

Measures follow the treelab analysis specification (errors and error ratio, error correlation
phi_e and phi*, error arrangements, strength and correlation, probability quality, bias and
variance, gain ties, sample density). Every function takes NumPy arrays or DataArrays with
the dims of :mod:`treelab._dims`; :func:`member_outputs` reads them from any ensemble (treelab,
scikit-learn forests, bagging and voting, a list of fitted classifiers), and the member-label
measures and :func:`diagnose` take such a model directly. Regression ensembles have their own
measures (:mod:`treelab.analysis.regression`, docs/measures/regression.md): the ambiguity,
bias-variance-diversity, bias-variance-covariance and Louppe variance decompositions and
Breiman's regression bound; :func:`diagnose` dispatches on a regressor.
"""

from treelab.analysis.arrangement import error_arrangement
from treelab.analysis.bias_variance import bias_variance
from treelab.analysis.calibration import reliability
from treelab.analysis.characteristics import sample_density
from treelab.analysis.costs import cost_sensitive_profit, cost_thresholds
from treelab.analysis.decomposition import bias_variance_01, bias_variance_diversity
from treelab.analysis.diagnose import diagnose
from treelab.analysis.diversity import error_correlation, error_ratio, errors
from treelab.analysis.intervals import grid_intervals
from treelab.analysis.kuncheva import nonpairwise_diversity, pairwise_diversity
from treelab.analysis.margins import margin_cdf, margins
from treelab.analysis.members import member_outputs
from treelab.analysis.oob import in_bag_counts, oob_strength_correlation
from treelab.analysis.probability import (
    exact_mse,
    thresholded_mse,
    topk_error,
)
from treelab.analysis.regression import (
    ambiguity,
    bias_variance_covariance,
    breiman_regression_bound,
    louppe_variance,
    regression_outputs,
    repeated_member_outputs,
)
from treelab.analysis.regression import (
    bias_variance_diversity as bias_variance_diversity_regression,
)
from treelab.analysis.regression_diagnose import diagnose_regression
from treelab.analysis.strength import strength_correlation
from treelab.analysis.subspaces import subspace_features
from treelab.analysis.ties import gain_ties, gain_ties_from_counts

__all__ = [
    "ambiguity",
    "bias_variance",
    "bias_variance_covariance",
    "bias_variance_01",
    "bias_variance_diversity",
    "bias_variance_diversity_regression",
    "breiman_regression_bound",
    "cost_sensitive_profit",
    "cost_thresholds",
    "diagnose",
    "diagnose_regression",
    "error_arrangement",
    "error_correlation",
    "error_ratio",
    "errors",
    "exact_mse",
    "gain_ties",
    "gain_ties_from_counts",
    "grid_intervals",
    "in_bag_counts",
    "louppe_variance",
    "oob_strength_correlation",
    "margin_cdf",
    "margins",
    "member_outputs",
    "nonpairwise_diversity",
    "pairwise_diversity",
    "regression_outputs",
    "reliability",
    "repeated_member_outputs",
    "sample_density",
    "strength_correlation",
    "subspace_features",
    "thresholded_mse",
    "topk_error",
]
