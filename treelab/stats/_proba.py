"""Probability quality: log loss, multi-class Brier score with Murphy's decomposition,
expected calibration error (equal-width and equal-count bins) and one-vs-rest AUC."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import xarray as xr
from sklearn.metrics import log_loss, roc_auc_score

from treelab import _dims
from treelab.analysis._batch import split_input
from treelab.analysis._dataset import Var
from treelab.analysis._inputs import (
    align_to,
    check_class_coord,
    check_proba,
    encode_labels,
    index_coords,
)
from treelab.analysis._measure_intervals import documents_ci_options
from treelab.stats._common import build

__all__ = ["brier_decomposition", "probability_quality"]

CITE_BRIER = "Brier (1950), Verification of forecasts expressed in terms of probability"
CITE_MURPHY = "Murphy (1973), A new vector partition of the probability score, J. Appl. Meteor."
CITE_ECE = (
    "Naeini, Cooper & Hauskrecht (2015), Obtaining well calibrated probabilities using "
    "Bayesian binning, AAAI; Guo, Pleiss, Sun & Weinberger (2017), On calibration of modern "
    "neural networks, ICML"
)
CITE_AUC = (
    "Provost & Domingos (2003), Tree induction for probability-based ranking, Machine "
    "Learning 52 (one-vs-rest AUC); scikit-learn roc_auc_score"
)
CITE_LOGLOSS = "Good (1952), Rational decisions, JRSS B; scikit-learn log_loss"


def brier_decomposition(p: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """Brier score and Murphy's reliability, resolution, uncertainty for one (sample, class)
    table; forecasts grouped by identical probability vectors, so BS = REL - RES + UNC."""
    n, n_c = p.shape
    onehot = np.zeros_like(p)
    onehot[np.arange(n), y] = 1.0
    bs = float(np.mean(np.sum((p - onehot) ** 2, axis=1)))
    _, group, counts = np.unique(p, axis=0, return_inverse=True, return_counts=True)
    group = group.ravel()
    obs = np.zeros((counts.size, n_c))
    np.add.at(obs, group, onehot)
    obs /= counts[:, None]
    fc = np.zeros((counts.size, n_c))
    fc[group] = p
    base = onehot.mean(axis=0)
    rel = float(np.sum(counts * np.sum((fc - obs) ** 2, axis=1)) / n)
    res = float(np.sum(counts * np.sum((obs - base) ** 2, axis=1)) / n)
    unc = float(np.sum(base * (1.0 - base)))
    return bs, rel, res, unc


def _ece(conf: np.ndarray, correct: np.ndarray, n_bins: int, equal_count: bool) -> float:
    n = conf.size
    if equal_count:
        order = np.argsort(conf, kind="stable")
        at = np.empty(n, dtype=np.int64)  # the bin of each place in increasing order
        for b, places in enumerate(np.array_split(np.arange(n), n_bins)):
            at[places] = b
        # rows of equal confidence share the bin of the first of them, so that no bin edge
        # splits a tie by the rows' order (tree probabilities tie often)
        ordered = conf[order]
        bins = np.empty(n, dtype=np.int64)
        bins[order] = at[np.searchsorted(ordered, ordered, side="left")]
    else:  # bins (k/B, (k+1)/B], the first closed at 0
        bins = np.clip(np.ceil(conf * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    gap = np.bincount(bins, weights=correct - conf, minlength=n_bins)
    return float(np.sum(np.abs(gap)) / n) if n else np.nan


@documents_ci_options
def probability_quality(
    proba: Any, y: Any, *, n_bins: int = 10, classes: Any = None, ci: float | None = None,
    ci_method: str = "bca", n_boot: int = 2000, ci_seed: int = 0,
    ci_resample: str = "stratified",
) -> xr.Dataset:
    """Log loss, Brier score with Murphy's decomposition, ECE and one-vs-rest AUC.

    For probabilities p_i (rows i = 1..N, classes c) and labels y_i:

    * log loss = -(1/N) sum_i log p_i(y_i) (``sklearn.metrics.log_loss``, which clips
      probabilities to [eps, 1 - eps] with eps = 2.2e-16, float64's machine epsilon, as the
      probabilities are read as float64): a true-class probability of 0, infinite loss by
      the definition, costs its row -log(eps) = 36.04 instead, one row of it outweighing
      the rest of most test sets; read it next to the Brier score, which is bounded;
    * Brier score BS = (1/N) sum_i sum_c (p_ic - I(y_i = c))^2 (Brier 1950, multi-class);
      Murphy's partition BS = REL - RES + UNC over the K distinct forecast vectors f_k used
      on N_k rows with observed class frequencies o_k and overall frequencies o:
      REL = (1/N) sum_k N_k ||f_k - o_k||^2, RES = (1/N) sum_k N_k ||o_k - o||^2,
      UNC = sum_c o_c (1 - o_c) (exact, as forecasts are grouped by identical vectors);
    * ECE = sum_b (n_b / N) |acc_b - conf_b| over bins of the confidence max_c p_ic, with
      acc_b the share of rows in bin b whose argmax is right: ``ece_width`` with B equal-width
      bins (k/B, (k+1)/B], ``ece_count`` with B bins of (nearly) equal row counts (Naeini et
      al. 2015; Guo et al. 2017), rows of equal confidence kept in one bin (that of the first
      of them in increasing order: the ECE depends on the rows, not on their order);
    * ``auc_ovr``: macro average over classes of the one-vs-rest ROC AUC
      (``sklearn.metrics.roc_auc_score(multi_class="ovr")``; for 2 classes the AUC of class
      1); NaN when some class never occurs in ``y``, with the variable's ``description``
      naming those classes.

    Parameters
    ----------
    proba : array-like or DataArray, (..., sample, class)
        Class probabilities; leading dims (``alpha``, ``fold``, ...) give one value each.
    y : array-like, (sample,)
        True class codes (or labels with ``classes``). A DataArray ``y`` is paired with the
        rows of a DataArray ``proba`` by their ``sample`` labels (reordered when in another
        order, refused when different), not by position.
    n_bins : int, default 10
        Number of ECE bins.
    classes : array-like, optional
        Original labels of the class columns. Where ``proba`` carries a ``class``
        coordinate holding the same labels in another order, the call is refused (the
        columns would be read under the wrong labels).
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every measure but the binned ECEs and ``brier_uncertainty`` (the reasons are
        in ``params``): the stratified bootstrap of the test rows, as
        :func:`treelab.analysis.diagnose` draws it (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``log_loss``, ``brier``, ``brier_reliability``, ``brier_resolution``,
        ``brier_uncertainty``, ``ece_width``, ``ece_count``, ``auc_ovr`` over the leading dims;
        with ``ci`` their ``_lower`` and ``_upper`` limits.

    References
    ----------
    Brier (1950); Murphy (1973); Naeini et al. (2015); Guo et al. (2017).
    """
    from treelab.analysis._measure_intervals import ci_options, ci_params, row_intervals
    from treelab.analysis.intervals import no_interval_reasons

    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    arr, lead, coords = split_input(proba, "proba", (_dims.SAMPLE, _dims.CLASS))
    arr = check_proba(arr, "proba")
    n, n_c = arr.shape[-2:]
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y)
    if y_arr.ndim != 1 or y_arr.size != n:
        raise ValueError(f"y must be (sample,) with {n} rows, got shape {y_arr.shape}")
    if isinstance(y, xr.DataArray) and y.dims == (_dims.SAMPLE,):
        # paired with proba's rows by label, never by position (docs/measures/correctness.md)
        y_arr = align_to(y_arr, index_coords(y), coords, "y", "proba", (_dims.SAMPLE,))
    # classes= against the class coordinate: one check for every probability measure
    check_class_coord(classes, coords, "proba")
    codes = encode_labels(y_arr, "y", classes=classes, n_classes=n_c)
    if n < 1 or n_c < 2:
        raise ValueError(f"proba needs at least one row and two classes, got {arr.shape}")
    if not np.allclose(arr.sum(axis=-1), 1.0, atol=1e-6):
        raise ValueError("proba rows must sum to 1")
    flat = arr.reshape(-1, n, n_c)
    lead = tuple(lead)
    variables = _quality_vars(flat, codes, n_bins, lead, arr.shape[:-2], classes)
    params: dict[str, Any] = {"n_bins": int(n_bins), "n_classes": n_c}
    if options is not None:
        reasons = no_interval_reasons(options.resample)
        skip = {name: reasons[name] for name in ("brier_uncertainty", "ece_width", "ece_count")
                if name in reasons}
        limits, skipped = row_intervals(
            variables, lambda rows: _quality_vars(flat[:, rows], codes[rows], n_bins, lead,
                                                  arr.shape[:-2]),
            n, options, strata=codes, no_interval=skip)
        variables = {**variables, **limits}
        params["ci"] = ci_params(options, skipped, classes=True)
    coords = {k: v for k, v in coords.items() if k in lead}
    return build(variables, function="probability_quality", params=params, coords=coords)


def _names(codes: np.ndarray, classes: Any) -> list:
    """The labels of class columns ``codes`` (the codes themselves without ``classes``)."""
    if classes is None:
        return codes.tolist()
    return [np.asarray(classes)[c].item() for c in codes]


_AUC_DEFINED = "NaN where some class has no row in y (its one-vs-rest AUC is undefined)"


def _quality_vars(flat: np.ndarray, codes: np.ndarray, n_bins: int, lead: tuple,
                  shape: tuple, classes: Any = None) -> dict[str, Var]:
    """Variables of :func:`probability_quality` from probabilities (batch, sample, class);
    ``classes`` (the columns' labels, if given) name the classes without rows in the NaN
    ``auc_ovr``'s description."""
    n_c = flat.shape[-1]
    out = np.full((flat.shape[0], 8), np.nan)
    labels = np.arange(n_c)
    missing = np.setdiff1d(labels, codes)
    every_class = missing.size == 0
    for b, p in enumerate(flat):
        out[b, 0] = log_loss(codes, p, labels=labels)
        out[b, 1:5] = brier_decomposition(p, codes)
        conf = p.max(axis=1)
        correct = (np.argmax(p, axis=1) == codes).astype(np.float64)
        out[b, 5] = _ece(conf, correct, n_bins, equal_count=False)
        out[b, 6] = _ece(conf, correct, n_bins, equal_count=True)
        if every_class:
            out[b, 7] = (roc_auc_score(codes, p[:, 1]) if n_c == 2 else
                         roc_auc_score(codes, p, multi_class="ovr", labels=labels))
    spec = [
        ("log_loss", "log loss", CITE_LOGLOSS),
        ("brier", "multi-class Brier score", CITE_BRIER),
        ("brier_reliability", "Brier reliability REL (Murphy)", CITE_MURPHY),
        ("brier_resolution", "Brier resolution RES (Murphy)", CITE_MURPHY),
        ("brier_uncertainty", "Brier uncertainty UNC (Murphy)", CITE_MURPHY),
        ("ece_width", "expected calibration error, equal-width bins", CITE_ECE),
        ("ece_count", "expected calibration error, equal-count bins", CITE_ECE),
        ("auc_ovr", "one-vs-rest ROC AUC, macro average", CITE_AUC),
    ]
    why = {"auc_ovr": _AUC_DEFINED if every_class else
           f"NaN: class(es) {_names(missing, classes)} have no row in y, and a class's "
           "one-vs-rest AUC needs rows of the class and of the others"}
    return {
        key: Var(lead, out[:, i].reshape(shape), text, cite=cite, description=why.get(key, ""))
        for i, (key, text, cite) in enumerate(spec)
    }
