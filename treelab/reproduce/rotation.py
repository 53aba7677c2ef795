"""The rotation forest tutorial: random forest against rotation forests, with junk attributes.

The tutorial states its claims in words only (no table, no number), so this study measures
them: random forest against rotation forests with random axes and with PCA of feature groups
(100 trees each, 10-fold stratified CV) on the noisy 2-D function, scikit-learn's wine and
breast cancer and nine UCI sets, with 0, 4, 16 and 64 irrelevant N(0, 1) attributes added
(notebook 05's full-mode grid, unchanged).
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from treelab.experiment import ExperimentConfig
from treelab.report import table
from treelab.reproduce._study import Section, Verdict
from treelab.reproduce._verdicts import FOR_REFERENCE, ROPE_PERCENT, posterior_evidence, snap_ties

__all__ = ["grids", "measure", "report"]

N_ROWS, N_FOLDS = 2000, 10
IRRELEVANT = [0, 4, 16, 64]
UCI_NAMES = ["breast-w", "glass", "heart-statlog", "ionosphere", "liver", "sonar",
             "segmentation", "vowel", "waveform-21"]  # wine: scikit-learn's (the same data)
SEED = 0
RF = "Random forest"


def rotation(n: int, names: list[str] = UCI_NAMES, irrelevant: list[int] = IRRELEVANT,
             n_rows: int = N_ROWS, n_folds: int = N_FOLDS, builtin: bool = True
             ) -> ExperimentConfig:
    """Notebook 05's grid with the defaults."""
    from treelab.datasets import find_uci_root

    params = {"n_estimators": n}
    root = str(find_uci_root())
    first = [{"name": "noisy 2-D", "generator": "noisy_function_2d", "n_samples": n_rows}]
    if builtin:
        first += [{"name": "wine", "builtin": "wine"},
                  {"name": "breast cancer", "builtin": "breast_cancer"}]
    return ExperimentConfig(
        name="rotation vs random forest",
        datasets=first + [{"name": name, "uci": name, "root": root, "min_class_size": 10}
                          for name in names],
        ensembles=[{"name": RF, "estimator": "RandomForest", "params": params},
                   {"name": "Rotation (random)", "estimator": "RotationForest",
                    "params": params},
                   {"name": "Rotation (PCA)", "estimator": "RotationForest",
                    "params": {**params, "rotation": "pca"}}],
        transforms=[{"kind": "irrelevant", "values": irrelevant, "distribution": "gaussian"}],
        protocol={"name": "stratified_kfold", "n_splits": n_folds},
        seed=SEED, backend="local")


def grids(mode: str) -> dict[str, ExperimentConfig]:
    """``full``: notebook 05's grid; ``quick``: the noisy 2-D function, wine, breast cancer
    and five small UCI sets with 0 and 64 irrelevant attributes, 50 trees, 5-fold CV;
    ``ci``: the noisy 2-D function (300 rows) and glass, 0 and 16 irrelevant, 10 trees,
    3-fold CV.

    Examples
    --------
    >>> from treelab.experiment import expand
    >>> configs = grids("ci")
    >>> sorted(configs)
    ['rotation']
    >>> all(len(expand(c)) > 0 for c in configs.values())
    True
    """
    if mode == "full":
        return {"rotation": rotation(100)}
    if mode == "quick":
        return {"rotation": rotation(50, ["glass", "heart-statlog", "ionosphere", "liver",
                                          "sonar"], [0, 64], n_folds=5)}
    if mode == "ci":
        return {"rotation": rotation(10, ["glass"], [0, 16], n_rows=300, n_folds=3,
                                     builtin=False)}
    raise ValueError(f"mode must be 'full', 'quick' or 'ci', got {mode!r}")


def measure(results: dict[str, xr.Dataset], mode: str) -> dict[str, pd.DataFrame]:
    """``error_folds``: error per data set, irrelevant attributes, ensemble and fold."""
    ds = results["rotation"]
    err = ds.ensemble_error.isel(alpha=0, drop=True) if "alpha" in ds.dims else ds.ensemble_error
    frame = err.to_dataframe("error").reset_index()
    return {"error_folds": frame.set_index(["n_irrelevant", "dataset", "ensemble", "repeat",
                                            "fold"])[["error"]]}


def report(measured: dict[str, pd.DataFrame], mode: str
           ) -> tuple[list[Section], list[Verdict]]:
    """Per number of irrelevant attributes, the table against random forest; verdicts."""
    err = measured["error_folds"]["error"].to_xarray()
    sections, rows = [], {}
    ks = [int(k) for k in err.n_irrelevant.values]
    for k in ks:
        t = table(err.sel(n_irrelevant=k), reference=RF, test="wilcoxon", scale=100, digits=1,
                  measure=f"error (%), {k} irrelevant attributes")
        sections.append(Section(f"{k} irrelevant attributes", t.to_markdown()))
        rows[k] = t
    lo, hi = rows[ks[0]], rows[ks[-1]]
    rot = [m for m in lo.mean.columns if m != RF]
    # float-noise ties made exact before any comparison
    clean = snap_ties(lo.mean.mean().to_frame().T).iloc[0]
    noisy = snap_ties(hi.mean.mean().to_frame().T).iloc[0]
    verdicts = [
        Verdict("Rotation forests edge out random forests by a little (no junk attributes)",
                "holds" if min(clean[m] for m in rot) < clean[RF] else "does not hold",
                "mean error (%): " + ", ".join(f"{m} {clean[m]:.1f}" for m in clean.index)
                + "; average ranks " + ", ".join(f"{m} {lo.average_rank[m]:.2f}"
                                                 for m in lo.average_rank.index)
                + _posteriors(lo, rot),
                rule="holds when a rotation forest's mean error over the data sets (no "
                     "irrelevant attribute) is below the random forest's; " + FOR_REFERENCE),
        Verdict(f"Random forests ignore junk attributes better ({ks[-1]} irrelevant)",
                "holds" if all(noisy[RF] < noisy[m] for m in rot) else "does not hold",
                "mean error (%): " + ", ".join(f"{m} {noisy[m]:.1f}" for m in noisy.index)
                + _posteriors(hi, rot),
                rule="holds when the random forest's mean error with the most irrelevant "
                     "attributes is below every rotation forest's; " + FOR_REFERENCE),
        Verdict("The parabola split score is as good as entropy; orthogonal axes matter "
                "little; rotation forests need thousands of rows", "not measured",
                "advice without measurements in the tutorial; not part of this grid",
                rule="none: the tutorial gives no number to read")]
    return sections, verdicts


def _posteriors(t, rot: list[str]) -> str:
    """"; " and the Bayesian signed-rank posterior of each rotation forest against the random
    forest over the data sets' mean errors (percent, rope one point), where two or more data
    sets have both."""
    return "".join("; " + posterior_evidence(m, RF, t.mean[m].to_numpy(), t.mean[RF].to_numpy(),
                                              rope=ROPE_PERCENT, unit="point of error")[0]
                   for m in rot if (t.mean[m].notna() & t.mean[RF].notna()).sum() >= 2)

