"""Tables for papers and reports, from treelab's results or anyone's.

* :func:`table`: methods x data sets with mean and sd, the best per row marked,
  wins/ties/losses against a reference method with a named significance test, average ranks
  and the Friedman test (:mod:`treelab.stats`);
* :func:`compare`: a published table beside a measured one, with the gap per cell, the mean
  absolute gap per column and Spearman's rank correlation.

Both render as Markdown (``to_markdown``), LaTeX with booktabs rules (``to_latex``) and HTML
through a pandas Styler (``to_html``; needs jinja2, a dependency of treelab).
"""

from treelab.report._compare import Comparison, compare
from treelab.report._table import ResultTable, table

__all__ = ["Comparison", "ResultTable", "compare", "table"]
