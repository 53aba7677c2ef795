"""Real regression data sets that need no download: the bundle's abalone rings, scikit-learn's
diabetes and the classic regression sets shipped inside statsmodels.

Nothing here reaches the network or copies data into treelab: abalone is read from the UCI
bundle (``data/uci``, see ``data/README.md``), the others from the installed scikit-learn and
statsmodels packages, which carry them. Each entry of :data:`REGRESSION_DATASETS` records its
source, licence, target and row count; :func:`list_regression` shows them as a table.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from treelab.datasets._data import CONTINUOUS, LabeledData

__all__ = ["REGRESSION_DATASETS", "RegressionSource", "list_regression", "load_regression"]


class RegressionSource(NamedTuple):
    """Where a regression data set comes from and what its target is."""

    origin: str        # "uci" (the bundle), "sklearn" or "statsmodels"
    module: str        # bundle name, ``sklearn.datasets`` loader or statsmodels.datasets module
    target: str        # the target column and its meaning
    n_samples: int
    n_features: int
    source: str        # the original source (paper, book, agency)
    licence: str
    count: bool = False  # the target is a count (suited to the Poisson loss)


_GILL = ("Gill (2001), Generalized Linear Models: A Unified Approach, Sage; via "
         "statsmodels.datasets")
_GILL_LICENCE = ("statsmodels (BSD-3-Clause) ships it 'used with express permission from the "
                 "original author, who retains all rights'")

#: Every regression data set :func:`load_regression` knows, by name.
REGRESSION_DATASETS: dict[str, RegressionSource] = {
    "abalone": RegressionSource(
        "uci", "abalone", "target: number of shell rings (age in years is rings + 1.5)",
        4177, 8, "Nash, Sellers, Talbot, Cawthorn & Ford (1994), UCI Machine Learning "
        "Repository; the OpenML copy in treelab's bundle (data/README.md)",
        "CC BY 4.0 (UCI); OpenML copy (ODC-PDDL)", count=True),
    "diabetes": RegressionSource(
        "sklearn", "load_diabetes", "target: a quantitative measure of disease progression "
        "one year after baseline", 442, 10, "Efron, Hastie, Johnstone & Tibshirani (2004), "
        "Least angle regression, Ann. Statist. 32(2); via sklearn.datasets.load_diabetes "
        "(unscaled features)", "scikit-learn (BSD-3-Clause) ships it"),
    "longley": RegressionSource(
        "statsmodels", "longley", "TOTEMP: total employment", 16, 6,
        "Longley (1967), J. Amer. Statist. Assoc. 62(319), 819-841; via "
        "statsmodels.datasets", "public domain"),
    "stackloss": RegressionSource(
        "statsmodels", "stackloss", "STACKLOSS: 10 times the percentage of ammonia escaping "
        "the absorption column", 21, 3, "Brownlee (1965), Statistical Theory and Methodology "
        "in Science and Engineering, Wiley; via statsmodels.datasets", "public domain"),
    "statecrime": RegressionSource(
        "statsmodels", "statecrime", "murder: murders per 100,000 population (2009)", 51, 4,
        "US statistical abstracts 2009 (50 states and DC); via statsmodels.datasets",
        "public domain"),
    "ccard": RegressionSource(
        "statsmodels", "ccard", "AVGEXP: average monthly credit card expenditure", 72, 4,
        "Greene, Econometric Analysis; via statsmodels.datasets",
        "statsmodels (BSD-3-Clause) ships it 'used with express permission of the original "
        "author, who retains all rights'"),
    "copper": RegressionSource(
        "statsmodels", "copper", "WORLDCONSUMPTION: world copper consumption (1000 metric "
        "tons), 1951-1975", 25, 5, _GILL, _GILL_LICENCE),
    "scotland": RegressionSource(
        "statsmodels", "scotland", "YES: share voting yes to taxation powers for the Scottish "
        "parliament (1997), per council district", 32, 7, _GILL, _GILL_LICENCE),
    "cpunish": RegressionSource(
        "statsmodels", "cpunish", "EXECUTIONS: executions in 1996, per US state", 17, 6,
        _GILL, _GILL_LICENCE, count=True),
    "committee": RegressionSource(
        "statsmodels", "committee", "BILLS104: bills assigned in the first 100 days of the "
        "104th House, per committee", 20, 5, _GILL, _GILL_LICENCE, count=True),
    "fair": RegressionSource(
        "statsmodels", "fair", "affairs: time spent in extramarital affairs", 6366, 8,
        "Fair (1978), A theory of extramarital affairs, J. Polit. Econ. 86(1), 45-61; via "
        "statsmodels.datasets", "statsmodels (BSD-3-Clause) ships it 'included with "
        "permission of the author'"),
    "randhie": RegressionSource(
        "statsmodels", "randhie", "mdvis: number of outpatient visits to a doctor", 20190, 9,
        "RAND Health Insurance Experiment, as used by Cameron & Trivedi (2005), "
        "Microeconometrics, Cambridge; via statsmodels.datasets", "public domain",
        count=True),
}


def list_regression() -> pd.DataFrame:
    """The regression data sets of :func:`load_regression`, with their provenance.

    Returns
    -------
    pandas.DataFrame
        Indexed by name: ``n_samples``, ``n_features``, ``origin`` (``uci``, ``sklearn`` or
        ``statsmodels``), ``count`` (the target is a count), ``target``, ``source``,
        ``licence``.

    Examples
    --------
    >>> from treelab.datasets import list_regression
    >>> table = list_regression()
    >>> int(table.loc["diabetes", "n_samples"])
    442
    """
    rows = [{"name": name, "n_samples": s.n_samples, "n_features": s.n_features,
             "origin": s.origin, "count": s.count, "target": s.target, "source": s.source,
             "licence": s.licence} for name, s in REGRESSION_DATASETS.items()]
    return pd.DataFrame(rows).set_index("name")


def load_regression(name: str, root: str | os.PathLike[str] | None = None) -> LabeledData:
    """Load a real regression data set that ships with treelab or its dependencies.

    ``abalone`` comes from the UCI bundle (its class column, the ring count, becomes the
    numeric target), ``diabetes`` from scikit-learn (unscaled features), and ``longley``,
    ``stackloss``, ``statecrime``, ``ccard``, ``copper``, ``scotland``, ``cpunish``,
    ``committee``, ``fair`` and ``randhie`` from statsmodels (its endogenous variable as the
    target and its exogenous ones as the features). Nothing is downloaded.

    Parameters
    ----------
    name : str
        A key of :data:`REGRESSION_DATASETS` (see :func:`list_regression`).
    root : str or path-like, optional
        The UCI bundle folder, for ``abalone`` (see :func:`treelab.datasets.find_uci_root`).

    Returns
    -------
    LabeledData
        ``y`` the target as float64, no class list (``classes`` empty), ``meta`` with
        ``task="regression"``, ``target``, ``source``, ``licence`` and ``count``. Binary
        indicator columns are nominal only where the source declares a column categorical
        (abalone's sex); the others stay numeric.

    Examples
    --------
    >>> from treelab.datasets import load_regression
    >>> data = load_regression("stackloss")
    >>> data.X.shape, data.y.dtype
    ((21, 3), dtype('float64'))
    """
    if not isinstance(name, str) or name not in REGRESSION_DATASETS:
        raise ValueError(f"name must be one of {sorted(REGRESSION_DATASETS)}; got {name!r}")
    src = REGRESSION_DATASETS[name]
    if src.origin == "uci":
        from treelab.datasets.loaders import load_uci

        base = load_uci(src.module, root=root)
        X, y = base.X, base.y
        types, names = base.feature_types, base.feature_names
        extra = {k: base.meta[k] for k in ("categories", "source_repo", "source_path",
                                           "license_note", "provenance") if k in base.meta}
    else:
        X, y, names = _from_package(src)
        types = (CONTINUOUS,) * X.shape[1]
        extra = {}
    y = np.asarray(y, dtype=np.float64)
    if X.shape != (src.n_samples, src.n_features):
        raise ValueError(f"{name}: expected {src.n_samples} rows and {src.n_features} features "
                         f"from {src.origin}, got {X.shape}; the installed package's copy "
                         "differs from the one described")
    meta: dict[str, Any] = {"task": "regression", "target": src.target, "source": src.source,
                            "licence": src.licence, "count": src.count, "origin": src.origin,
                            **extra}
    return LabeledData(X=X, y=y, feature_types=types, name=name, feature_names=names,
                       classes=np.empty(0), meta=meta)


def _from_package(src: RegressionSource) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    if src.origin == "sklearn":
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, src.module)(scaled=False)
        return (np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target),
                tuple(str(n) for n in bunch.feature_names))
    module = importlib.import_module(f"statsmodels.datasets.{src.module}")
    dataset = module.load_pandas()
    exog = pd.DataFrame(dataset.exog)
    return (exog.to_numpy(dtype=np.float64), np.asarray(dataset.endog, dtype=np.float64),
            tuple(str(c) for c in exog.columns))
