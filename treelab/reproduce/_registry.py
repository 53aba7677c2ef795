"""The studies of ``treelab reproduce``, in the order ``--list`` prints them."""

from __future__ import annotations

from treelab.reproduce import (
    _alipazzani1995_report,
    _fan2005_report,
    _figures,
    _gashler2008_report,
    _liu2008_report,
    alipazzani1995,
    fan2005,
    gashler2008,
    liu2008,
    rotation,
)
from treelab.reproduce._study import Study

STUDIES: dict[str, Study] = {}


def _add(study: Study) -> None:
    STUDIES[study.name] = study


_add(Study(
    name="liu2008", title="Spectrum of variable-random trees (Liu, Ting, Yu & Zhou 2008)",
    paper="liu2008", grids=liu2008.grids, measure=liu2008.measure,
    report=_liu2008_report.report, figures=_figures.liu2008, notebook="01_spectrum_of_randomness",
    modes={"full": f"Table 3 on the {len(liu2008.BUNDLE)} data sets of the paper the bundle and "
                   "generators provide, "
                   "Table 4 with 10 draws, "
                   f"Table 5 on its {len(liu2008.TABLE5_SETS)} provided sets, the alpha spectrum "
                   "and notebook 01's full mode; 100 trees, 10-fold CV",
           "quick": f"Table 3 on the {len(liu2008.SMALL)} provided sets of at most 1,000 rows "
                    "and Table 4 with 3 "
                    "draws (100 trees, 10-fold CV); the alpha spectrum (Figures 1, 2, Table 2) "
                    "and Coalescence beside it (section 5.3, Figure 5) on glass, iris, sonar, "
                    "wine, zoo and liver with 30 trees and 5-fold CV; "
                    f"Table 5 on its {len(liu2008.TABLE5_SMALL)} provided sets of at most "
                    "1,000 rows (100 trees, 10-fold CV)",
           "ci": "Table 4 at k = 64 only, 2 draws, 20 trees, a 50 x 50 lattice",
           "full adds": "Table 3 on the nine provided sets of more than 1,000 rows (chess, dna, "
                        "hypo, led24, led7, satimage, segment, waveform21, waveform40); Table 4 "
                        "with the paper's 10 draws; Table 5 on dna and satimage; Figures 1, 2, "
                        "Table 2 and section 5.3 from notebook 01's "
                        "spectrum and comparison grids (14 data sets, 100 trees, 10-fold CV)"}))

_add(Study(
    name="alipazzani1995",
    title="Error correlation and error reduction (Ali & Pazzani 1995)",
    paper="alipazzani1995", grids=alipazzani1995.grids, measure=alipazzani1995.measure,
    report=_alipazzani1995_report.report, figures=_figures.alipazzani1995,
    notebook="02_error_correlation",
    modes={"full": "Table 2's rows with 30 trials, Figure 1's ten training fractions with 30 "
                   "trials on 18 data sets and four combination functions, and notebook 02's "
                   "full mode",
           "quick": "Table 2's 27 provided rows with 10 trials (DNA promoters by "
                    "leave-one-out), Figure 1 at training fractions 0.3 and 1.0 with 10 trials "
                    "on seven small sets of notebook 02 (monks-2, breast-cancer, vote, "
                    "promoters, hepatitis, primary-tumor, zoo)",
           "ci": "Table 2's KRK 100 row, 3 trials",
           "full adds": "Table 2 with the study's 30 trials; Figure 1 with all ten training "
                        "fractions and 30 trials on all 18 data sets"}))

_add(Study(
    name="fan2005",
    title="Randomised trees as posterior-probability estimators (Fan et al. 2005)",
    paper="fan2005", grids=fan2005.grids, measure=fan2005.measure,
    report=_fan2005_report.report, extra=fan2005.extra, notebook="03_probability_estimation",
    modes={"full": "Figure 1's exact MSE (six methods, 100 trees, d = 5, 15, 20, five training "
                   "sizes, 10 draws; notebook 03's full mode) and Table 1 (100 training sets "
                   "of 2,000 rows)",
           "quick": "Figure 1 with d = 5 and 20, 100, 1,000 and 10,000 training rows, 3 draws, "
                    "30 trees; Table 1 with 10 training sets of 2,000 rows, 30 trees",
           "ci": "Figure 1 at d = 5 and 100 rows, 2 draws, 5 trees; Table 1 with 3 sets of 300 "
                 "rows",
           "full adds": "Figure 1 with d = 15, 300 and 3,000 training rows, 10 draws and 100 "
                        "trees; Table 1 with the paper's 100 training sets and 100 trees"}))

_add(Study(
    name="gashler2008",
    title="Small heterogeneous against large homogeneous ensembles (Gashler et al. 2008)",
    paper="gashler2008", grids=gashler2008.grids, measure=gashler2008.measure,
    report=_gashler2008_report.report, figures=_figures.gashler2008,
    notebook="04_heterogeneous_ensembles",
    modes={"full": "bagged RDT, ERDT, MMDT, CVDT of 100 trees and RDT, ERDT of 1,000 trees by "
                   "5x2 CV on the bundle's UCI sets of at most 10,000 rows, notebook 04's full "
                   "mode (15 sets; wine with 0 to 256 irrelevant attributes) and the paper's "
                   "Figure 5 set, vowel, with 0 to 256 irrelevant attributes",
           "quick": "one repeat of 2-fold CV and ensembles a quarter of the size: 25 bagged "
                    "RDT, ERDT, MMDT, CVDT against 250-tree RDT and ERDT on notebook 04's 15 "
                    "data sets, the four bagged ones on wine and vowel with 0, 4, 16, 64 and "
                    "256 irrelevant attributes, and bagged ERDT against MMDT on the bundle's UCI "
                    "sets of at most 500 rows",
           "ci": "bagged ERDT against MMDT, 10 trees, on the bundle's UCI sets of at most 160 "
                 "rows",
           "full adds": "the paper's 5x2 CV and ensemble sizes (100 bagged trees against 1,000) "
                        "on notebook 04's 15 sets and on the bundle's UCI sets of at most 10,000 "
                        "rows, so that Tables 1 and 2 and the density counts cover about 40 sets"}))

_add(Study(
    name="rotation-forest", title="Random and rotation forests (the rotation forest tutorial)",
    paper="rotation-forest", grids=rotation.grids, measure=rotation.measure,
    report=rotation.report, figures=_figures.rotation, notebook="05_rotation_forest",
    modes={"full": "random forest against rotation forests (random axes, PCA), 100 trees, "
                   "10-fold CV on 12 data sets with 0, 4, 16 and 64 irrelevant attributes "
                   "(notebook 05's full mode)",
           "quick": "the same on the noisy 2-D function, wine, breast cancer and five small "
                    "UCI sets with 0 and 64 irrelevant attributes, 50 trees, 5-fold CV",
           "ci": "the noisy 2-D function (300 rows) and glass, 0 and 16 irrelevant "
                 "attributes, 10 trees, 3-fold CV",
           "full adds": "12 data sets, 4 and 16 irrelevant attributes too, 100 trees, 10-fold "
                        "CV"}))
