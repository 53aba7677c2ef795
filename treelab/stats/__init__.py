"""Statistics for comparing methods over data sets and for relating diversity to error.

* :func:`friedman`, :func:`nemenyi`, :func:`bonferroni_dunn`: rank tests over a (dataset x
  method) table (Demsar 2006), with average ranks, the Iman-Davenport F, critical differences
  and pairwise decisions (draw them with :func:`treelab.plot.critical_difference`);
* :func:`five_by_two_cv_t` (Dietterich 1998) and :func:`five_by_two_cv_f` (Alpaydin 1999):
  two methods on one data set from 5x2 cross-validation;
* :func:`fit_error_ratio`: OLS of the error ratio on the error correlation with r^2 and a
  Fisher-z interval for r (Ali & Pazzani 1995);
* :func:`wins_ties_losses`: win/tie/loss counts as a pandas DataFrame;
* :func:`select_alpha`: one alpha of an experiment result, keeping ensembles without alpha.

Every test takes an experiment result (``treelab.experiment.run``) or any Dataset/DataArray
with named dims, and returns an ``xarray.Dataset`` with ``long_name`` and ``cite`` on every
variable and the provenance attrs of :mod:`treelab.analysis`.
"""

from treelab.stats._common import select_alpha
from treelab.stats._cv import five_by_two_cv_f, five_by_two_cv_t
from treelab.stats._ranks import bonferroni_dunn, friedman, nemenyi, wins_ties_losses
from treelab.stats._regression import fit_error_ratio

__all__ = [
    "bonferroni_dunn",
    "fit_error_ratio",
    "five_by_two_cv_f",
    "five_by_two_cv_t",
    "friedman",
    "nemenyi",
    "select_alpha",
    "wins_ties_losses",
]
