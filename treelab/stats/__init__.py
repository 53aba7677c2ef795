"""Statistics for comparing methods over data sets and for relating diversity to error.

* :func:`friedman`, :func:`nemenyi`, :func:`bonferroni_dunn`: rank tests over a (dataset x
  method) table (Demsar 2006), with average ranks, the Iman-Davenport F, critical differences
  and pairwise decisions (draw them with :func:`treelab.plot.critical_difference`);
* :func:`five_by_two_cv_t` (Dietterich 1998) and :func:`five_by_two_cv_f` (Alpaydin 1999):
  two methods on one data set from 5x2 cross-validation;
* :func:`fit_error_ratio`: OLS of the error ratio on the error correlation with r^2 and a
  Fisher-z interval for r (Ali & Pazzani 1995);
* :func:`wilcoxon_holm`, :func:`corrected_resampled_t`, :func:`mcnemar`: paired tests of two
  methods per data set over folds (Holm over data sets), Nadeau-Bengio's corrected resampled
  t test, and McNemar's test on one test set;
* :func:`probability_quality`: log loss, Brier score with Murphy's decomposition, ECE with
  equal-width and equal-count bins, one-vs-rest AUC;
* :func:`wins_ties_losses`: win/tie/loss counts as a pandas DataFrame;
* :func:`select_alpha`: one alpha of an experiment result, keeping ensembles without alpha;
* :func:`bayesian_signed_rank` (Benavoli et al. 2017) and :func:`bayesian_correlated_t`
  (Corani & Benavoli 2015): posterior probabilities that one method is practically better,
  equivalent (inside a rope) or worse, with the posterior samples;
* :func:`pairwise_over_datasets`, :func:`holm_control`, :func:`pairwise_p_values`: pairwise
  Wilcoxon (or sign) tests over data sets with Holm's correction, which do not depend on the
  pool of methods, for critical-difference diagrams (Benavoli, Corani & Mangili 2016).

Every test takes an experiment result (``treelab.experiment.run``) or any Dataset/DataArray
with named dims, and returns an ``xarray.Dataset`` with ``long_name`` and ``cite`` on every
variable and the provenance attrs of :mod:`treelab.analysis`.
"""

from treelab.stats._bayes import bayesian_correlated_t, bayesian_signed_rank
from treelab.stats._cliques import (
    holm_control,
    pairwise_over_datasets,
    pairwise_p_values,
    significance_cliques,
)
from treelab.stats._common import select_alpha
from treelab.stats._cv import five_by_two_cv_f, five_by_two_cv_t
from treelab.stats._paired import corrected_resampled_t, mcnemar, wilcoxon_holm
from treelab.stats._proba import probability_quality
from treelab.stats._ranks import bonferroni_dunn, friedman, nemenyi, wins_ties_losses
from treelab.stats._regression import fit_error_ratio

__all__ = [
    "bayesian_correlated_t",
    "bayesian_signed_rank",
    "bonferroni_dunn",
    "corrected_resampled_t",
    "fit_error_ratio",
    "five_by_two_cv_f",
    "five_by_two_cv_t",
    "friedman",
    "holm_control",
    "mcnemar",
    "nemenyi",
    "pairwise_over_datasets",
    "pairwise_p_values",
    "probability_quality",
    "select_alpha",
    "significance_cliques",
    "wilcoxon_holm",
    "wins_ties_losses",
]
