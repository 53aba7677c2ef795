"""Where each measure's definition comes from: the paper and the place in it (section,
equation, table), and for treelab's own definitions and readings the page of treelab's
documentation that states them. Every result variable's ``cite`` attribute is one of these."""

from __future__ import annotations

__all__ = [
    "CITE_ALI_PAZZANI",
    "CITE_ARRANGEMENT",
    "CITE_BREIMAN",
    "CITE_ERRORS",
    "CITE_FAN",
    "CITE_GAIN_TIES",
    "CITE_PHI_E",
    "CITE_PHI_STAR",
    "CITE_RELATION",
    "CITE_TREELAB",
    "CITE_TREE_STATS",
    "treelab_docs",
]


def treelab_docs(page: str) -> str:
    """The cite of a definition that is treelab's own: its page of treelab's documentation
    (``docs/<page>.md`` in the repository, built into the documentation site)."""
    return f"treelab documentation, {page} (docs/{page}.md)"


# sources of the measures: the paper, where in it, and treelab's page where the reading taken
# departs from the print
_AP = ("Ali & Pazzani (1995), On the link between error correlation and error reduction in "
       "decision tree ensembles, UCI ICS TR 95-38")
CITE_ALI_PAZZANI = _AP
CITE_ERRORS = f"{_AP}, section 4 (E_e, E_s, E_r = E_e / E_s); {treelab_docs('measures/errors')}"
CITE_PHI_E = (f"{_AP}, eq. (1), taken as the average over pairs; "
              f"{treelab_docs('measures/error_correlation')}")
CITE_PHI_STAR = (f"{_AP}, eq. (2), conditioned on the true class; "
                 f"{treelab_docs('measures/error_correlation')}")
CITE_RELATION = f"{_AP}, Table 1"
CITE_ARRANGEMENT = f"{_AP}, section 5.3; {treelab_docs('measures/error_arrangement')}"
CITE_GAIN_TIES = f"{_AP}, section 5.2 (g); {treelab_docs('measures/gain_ties')}"
CITE_BREIMAN = (
    "Breiman (2001), Random forests, Machine Learning 45, section 2.2 and Theorem 2.3; "
    "estimates as in Buttrey & Kobayashi (2003) and Liu, Ting, Yu & Zhou (2008) Appendix C; "
    f"{treelab_docs('measures/strength_correlation')}"
)
CITE_FAN = (
    "Fan, Greengrass, McCloskey, Yu & Drummey (2005), Effective estimation of posterior "
    "probabilities: explaining the accuracy of randomized decision tree approaches, ICDM, "
    f"section 5; {treelab_docs('measures/probability')}"
)
#: Definitions of treelab's own without a page of their own: the measures' overview.
CITE_TREELAB = treelab_docs("measures/index")
#: Per-tree statistics of a fitted ensemble (``tree_stats``).
CITE_TREE_STATS = treelab_docs("architecture")
