"""Pairwise and non-pairwise diversity measures of Kuncheva & Whitaker (2003).

Every measure starts from the oracle outputs o_ti = I(f_t(x_i) = y_i). Pairwise counts come
from one matrix product per batch: N11 = O O^T, and with n_t = sum_i o_ti the other three
cells follow, N10 = n_t - N11, N01 = n_k - N11, N00 = N - n_t - n_k + N11; no Python loop
over pairs. Cohen's kappa between labels needs the label agreement counts, which as a matrix
product would take one product per class; a compiled kernel counts them for any number of
classes at the cost of about half of one product
(:mod:`treelab.engine.kernels._agreement`).
Non-pairwise measures need only l_i, the number of members correct on row i.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._batch import batched_labels, build
from treelab.analysis._dataset import Var
from treelab.analysis._measure_intervals import (
    batch_intervals,
    ci_options,
    documents_ci_options,
    too_large,
)
from treelab.engine.kernels._agreement import label_agreement

__all__ = ["nonpairwise_diversity", "pairwise_diversity"]

CITE_KW = (
    "Kuncheva & Whitaker (2003), Measures of diversity in classifier ensembles and their "
    "relationship with the ensemble accuracy, Machine Learning 51"
)
CITE_COHEN = "Cohen (1960), A coefficient of agreement for nominal scales, Educ. Psychol. Meas. 20"
CITE_MD = "Margineantu & Dietterich (1997), Pruning adaptive boosting, ICML"
CITE_PK = (
    "Partridge & Krzanowski (1997), Software diversity: practical statistics for its "
    "measurement and exploitation, Information and Software Technology 39"
)

_PAIR = (_dims.TREE, _dims.TREE_OTHER)
_SIGNED = (-1.0, 1.0)
_UNIT = (0.0, 1.0)


def _gram(a: np.ndarray) -> np.ndarray:
    """a a^T per batch, exact for 0/1 entries (float32 is exact below 2^24 rows)."""
    dtype = np.float32 if a.shape[-1] < 2**24 else np.float64
    a = a.astype(dtype)
    return np.matmul(a, a.transpose(0, 2, 1)).astype(np.float64)


def _pair_mean(m: np.ndarray) -> np.ndarray:
    """Mean over distinct pairs t < k where defined (NaN where no pair is)."""
    n_trees = m.shape[-1]
    if n_trees < 2:
        return np.full(m.shape[0], np.nan)
    iu = np.triu_indices(n_trees, 1)
    vals = m[:, iu[0], iu[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN batch -> NaN, documented
        return np.nanmean(vals, axis=1)


def pairwise_stats(labels: np.ndarray, y: np.ndarray, n_classes: int) -> dict[str, np.ndarray]:
    """Pairwise matrices (batch, tree, tree_other) from checked codes (batch, tree, sample)."""
    n = labels.shape[-1]
    oracle = labels == y[:, None, :]
    n11 = _gram(oracle)
    n_t = oracle.sum(axis=2).astype(np.float64)
    # exact counts: int32 partial sums hold up to 2^31 rows; uint8 codes for up to 256 classes
    codes = np.ascontiguousarray(labels, dtype=np.uint8 if n_classes <= 256 else np.int64)
    agree = np.stack([label_agreement(lab) for lab in codes]).astype(np.float64)
    a, b = n_t[:, :, None], n_t[:, None, :]
    n10, n01 = a - n11, b - n11
    n00 = n - a - b + n11
    with np.errstate(divide="ignore", invalid="ignore"):
        num = n11 * n00 - n01 * n10
        q = num / (n11 * n00 + n01 * n10)
        rho = num / np.sqrt(a * (n - a) * b * (n - b))
        share = np.stack([(labels == c).mean(axis=2) for c in range(n_classes)], axis=2)
        p_e = np.matmul(share, share.transpose(0, 2, 1))
        kappa = (agree / n - p_e) / (1.0 - p_e)
    kappa[np.isclose(p_e, 1.0, rtol=0.0, atol=1e-12)] = np.nan
    err = 1.0 - n_t / n
    return {
        "q_statistic": q,
        "correlation": rho,
        "disagreement": (n01 + n10) / n,
        "double_fault": n00 / n,
        "kappa": kappa,
        "pair_error": (err[:, :, None] + err[:, None, :]) / 2.0,
        "member_error": err,
    }


#: Largest size of the six (..., tree, tree_other) float64 pair variables built by
#: :func:`pairwise_diversity` (512 MiB: about 3,300 trees for one ensemble); above it the
#: matrices are left out (``pair_matrix=None``) or refused (``pair_matrix=True``).
MAX_PAIR_MATRIX_BYTES = 2**29


def pair_matrix_bytes(n_batch: int, n_trees: int) -> int:
    """Bytes of the six float64 pair variables of :func:`pairwise_diversity`."""
    return 6 * 8 * int(n_batch) * int(n_trees) ** 2


def pairwise_means(labels: np.ndarray, y: np.ndarray, n_classes: int) -> dict[str, np.ndarray]:
    """The ``mean_*`` pair averages (batch,) and ``member_error`` (batch, tree) streaming over
    the pairs, without the (tree, tree_other) matrices: memory linear in the tree count.

    Disagreement and double fault need no pairs at all: with l_i members right on row i and
    w_i = T - l_i wrong, sum over pairs t < k of N^01 + N^10 is sum_i l_i w_i and of N^00 is
    sum_i w_i (w_i - 1) / 2 (integers, divided once by N T (T - 1) / 2). Q, rho and kappa take
    the pair counts N^11 and the label agreements, which a compiled kernel counts pair by pair
    with a few popcounts on bit sets of the rows (64 a word: the rows each member gets right,
    and one set per bit of the class codes) and turns into the sums of the three measures
    over the pairs where each is defined
    (:func:`treelab.engine.kernels._agreement.pair_mean_sums`, the formulas of
    :func:`pairwise_stats`); each mean is that sum divided by the number of those pairs (NaN
    if none), as ``np.nanmean`` over the matrices.
    """
    from treelab.engine.kernels._agreement import pack_rows, pair_mean_sums

    n_batch, n_trees, n = labels.shape
    n_pairs = n_trees * (n_trees - 1) // 2
    out = {key: np.full(n_batch, np.nan) for key in
           ("q_statistic", "correlation", "disagreement", "double_fault", "kappa")}
    out["member_error"] = np.empty((n_batch, n_trees))
    for j in range(n_batch):
        lab, truth = labels[j], y[j]
        oracle = lab == truth[None, :]
        n_t = oracle.sum(axis=1).astype(np.float64)
        out["member_error"][j] = 1.0 - n_t / n
        if n_pairs == 0:
            continue
        right = oracle.sum(axis=0).astype(np.int64)  # l_i
        wrong = n_trees - right
        out["disagreement"][j] = int(np.sum(right * wrong)) / (n * n_pairs)
        out["double_fault"][j] = int(np.sum(wrong * (wrong - 1) // 2)) / (n * n_pairs)
        share = np.stack([(lab == c).mean(axis=1) for c in range(n_classes)], axis=1)
        n_planes = max(1, int(n_classes - 1).bit_length())
        planes = np.stack([pack_rows(((lab >> p) & 1).astype(bool)) for p in range(n_planes)],
                          axis=1)
        sums, counts = pair_mean_sums(pack_rows(oracle), planes, n, n_t,
                                      np.ascontiguousarray(share))
        for m, key in enumerate(("q_statistic", "correlation", "kappa")):
            if counts[m]:
                out[key][j] = sums[m] / counts[m]
    return out


@documents_ci_options
def pairwise_diversity(
    member_labels: Any, y: Any, *, n_classes: int | None = None, classes: Any = None,
    X: Any = None, pair_matrix: bool | None = None, ci: float | None = None,
    ci_method: str = "bca", n_boot: int = 2000, ci_seed: int = 0,
    ci_resample: str = "stratified",
) -> xr.Dataset:
    """Pairwise diversity: Q statistic, correlation, disagreement, double fault, kappa.

    For members t and k, with N^ab the number of rows where t is correct (a = 1) or wrong
    (a = 0) and k is correct (b = 1) or wrong (b = 0), N = N^11 + N^10 + N^01 + N^00:

    * Q_tk = (N^11 N^00 - N^01 N^10) / (N^11 N^00 + N^01 N^10) (Yule's Q);
    * rho_tk = (N^11 N^00 - N^01 N^10) / sqrt((N^11+N^10)(N^01+N^00)(N^11+N^01)(N^10+N^00));
    * disagreement D_tk = (N^01 + N^10) / N;
    * double fault DF_tk = N^00 / N;
    * Cohen's kappa between the members' *labels* (not oracle outputs),
      kappa_tk = (p_o - p_e) / (1 - p_e), p_o = mean_i I(f_t(x_i) = f_k(x_i)),
      p_e = sum_c p_t(c) p_k(c) with p_t(c) the share of rows member t labels c
      (Margineantu & Dietterich 1997, for kappa-error diagrams).

    The diagonal holds the same formulas for t = k (Q = rho = kappa = 1 where defined, D = 0,
    DF = e_t). Undefined ratios (0 / 0, e.g. Q for a member right on every row) are NaN. The
    ``mean_*`` variables average over the T (T - 1) / 2 distinct pairs t < k where the measure
    is defined (NaN with fewer than two members), Kuncheva & Whitaker's averaged measures.

    ``pair_error`` (e_t + e_k) / 2 and ``kappa`` give the kappa-error diagram: one point per
    pair t < k (:func:`treelab.plot.kappa_error_diagram`).

    Parameters
    ----------
    member_labels : array-like or DataArray, (..., tree, sample)
        Class codes predicted by every member; leading dims (``alpha``, ``fold``, ...)
        broadcast (NumPy leading dims are named ``dim_0``, ...).
    y : array-like or DataArray, (sample,) or (..., sample)
        True class codes, shared or per leading index.
    n_classes : int, optional
        Number of classes (default: largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.
    X : array-like, (sample, feature), optional
        With a model (or a list of models) as ``member_labels``: the rows its members
        predict (:func:`treelab.analysis.member_outputs`); its classes need no ``classes=``.
    pair_matrix : bool, optional
        Whether to build the (..., tree, tree_other) matrices, whose memory grows with the
        square of the tree count. None (default): build them when the six take at most
        ``MAX_PAIR_MATRIX_BYTES`` (512 MiB, about 3,300 trees of one ensemble), else return
        the means only (attr ``pair_matrix`` says why). True: build them, refused above that
        bound. False: the means only, computed streaming over pairs in memory linear in the
        tree count (10,000 trees x 1,000 rows: benchmarks/README.md); they equal the means
        of the matrices up to the order of floating-point sums (relative 1e-12).
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every number, per pair for the matrices (their replicates take n_boot x T^2 x 8
        bytes each: above 256 MiB in all they get none, the reason in ``params``; y must be
        one set of rows for all leading dims): the stratified bootstrap of the test rows, as
        :func:`treelab.analysis.diagnose` draws it (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``q_statistic``, ``correlation``, ``disagreement``, ``double_fault``, ``kappa`` and
        ``pair_error`` over (..., tree, tree_other) (when built, see ``pair_matrix``);
        ``member_error`` over (..., tree); ``mean_q_statistic``, ``mean_correlation``,
        ``mean_disagreement``, ``mean_double_fault``, ``mean_kappa`` over the leading dims;
        with ``ci`` their ``_lower`` and ``_upper`` limits.

    References
    ----------
    Kuncheva & Whitaker (2003), section 3.1; Cohen (1960); Margineantu & Dietterich (1997).

    Examples
    --------
    >>> from treelab.analysis import pairwise_diversity
    >>> ds = pairwise_diversity([[0, 0, 1, 1], [0, 1, 1, 0]], [0, 0, 1, 1])
    >>> float(ds.mean_disagreement), float(ds.mean_double_fault)
    (0.5, 0.0)
    """
    if pair_matrix is not None and not isinstance(pair_matrix, bool | np.bool_):
        raise TypeError(f"pair_matrix must be True, False or None, got {pair_matrix!r}")
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    b = batched_labels(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    n_batch, n_trees = b.labels.shape[0], b.labels.shape[1]
    size = pair_matrix_bytes(n_batch, n_trees)
    if pair_matrix and size > MAX_PAIR_MATRIX_BYTES:
        raise ValueError(
            f"pair_matrix=True: the (tree, tree_other) matrices of {n_trees} trees"
            f"{f' x {n_batch} ensembles' if n_batch > 1 else ''} take {size / 2**30:.1f} GiB, "
            f"above the bound of {MAX_PAIR_MATRIX_BYTES / 2**20:.0f} MiB "
            "(treelab.analysis.kuncheva.MAX_PAIR_MATRIX_BYTES): pass pair_matrix=False for the "
            "mean measures, computed streaming over pairs, or select fewer trees")
    names = {
        "q_statistic": ("Q statistic", _SIGNED, CITE_KW),
        "correlation": ("correlation coefficient rho of oracle outputs", _SIGNED, CITE_KW),
        "disagreement": ("disagreement measure", _UNIT, CITE_KW),
        "double_fault": ("double-fault measure", _UNIT, CITE_KW),
        "kappa": ("Cohen's kappa between member labels", None, CITE_COHEN),
    }
    build_matrix = size <= MAX_PAIR_MATRIX_BYTES if pair_matrix is None else bool(pair_matrix)
    variables = _pair_vars(b.labels, b.y, b.n_classes, names, build_matrix)
    params: dict[str, Any] = {"n_classes": b.n_classes}
    if options is not None:
        skip = too_large(variables, (*names, "pair_error"), n_batch * n_trees**2, options,
                         b.y.shape[-1])
        variables, params["ci"] = batch_intervals(
            variables, lambda rows: _pair_vars(b.labels[..., rows], b.y[:, rows], b.n_classes,
                                               names, build_matrix, skip),
            b.y, options, no_interval=skip)
    coords = dict(b.coords)
    if _dims.TREE in coords:
        coords[_dims.TREE_OTHER] = coords[_dims.TREE]
    out = build(variables, b.lead_dims, b.lead_shape, function="pairwise_diversity",
                params=params, coords=coords)
    if not build_matrix:
        out.attrs["pair_matrix"] = (
            "not built: pair_matrix=False" if pair_matrix is False else
            f"not built: {size / 2**30:.1f} GiB above MAX_PAIR_MATRIX_BYTES; pass "
            "pair_matrix=True to a smaller selection of trees")
    return out


#: Where each pairwise measure is undefined (NaN), stated in the variables' descriptions.
PAIR_NAN = {
    "q_statistic": "NaN (0 / 0) for a pair with a member right on every row or wrong on every row",
    "correlation": "NaN (0 / 0) for a pair with a member right on every row or wrong on every row",
    "disagreement": "",
    "double_fault": "",
    "kappa": "NaN (0 / 0) where p_e = 1: both members give the same single class on every row",
}
_MEAN_NAN = ("the mean over the distinct pairs where the measure is defined; NaN with one "
             "member or where it is defined for no pair")


def _pair_vars(labels: np.ndarray, y: np.ndarray, n_classes: int, names: dict,
               build_matrix: bool, skip: Any = ()) -> dict[str, Var]:
    """Variables of :func:`pairwise_diversity` from checked codes (batch, tree, sample);
    the names in ``skip`` are left out (a replicate needs only those with an interval)."""
    variables = {}
    if build_matrix:
        st = pairwise_stats(labels, y, n_classes)
        for key, (long_name, rng, cite) in names.items():
            variables[key] = Var(_PAIR, st[key], long_name, valid_range=rng, cite=cite,
                                 description=PAIR_NAN[key])
        means = {key: _pair_mean(st[key]) for key in names}
    else:
        st = means = pairwise_means(labels, y, n_classes)
    how = "" if build_matrix else "; streaming over pairs, without the pair matrices"
    for key, (long_name, rng, cite) in names.items():
        why = f"{_MEAN_NAN} ({PAIR_NAN[key]})" if PAIR_NAN[key] else _MEAN_NAN
        variables[f"mean_{key}"] = Var(
            (), means[key], f"{long_name}, mean over distinct pairs",
            valid_range=rng, cite=cite, description=why + how,
        )
    if build_matrix:
        variables["pair_error"] = Var(_PAIR, st["pair_error"],
                                      "mean error (e_t + e_k) / 2 of a pair",
                                      valid_range=_UNIT, cite=CITE_MD)
    variables["member_error"] = Var((_dims.TREE,), st["member_error"], "member error rate e_t",
                                    valid_range=_UNIT, cite=CITE_KW)
    return {k: v for k, v in variables.items() if k not in skip}


def nonpairwise_stats(labels: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Non-pairwise measures (batch,) from checked codes (batch, tree, sample)."""
    n_batch, n_trees, n = labels.shape
    big_l = float(n_trees)
    correct = np.count_nonzero(labels == y[:, None, :], axis=1)  # l_i, (batch, sample)
    lc = correct.astype(np.float64)
    p_bar = lc.sum(axis=1) / (n * big_l)
    fails = n_trees - correct
    p_i = np.zeros((n_batch, n_trees + 1))
    np.add.at(p_i, (np.arange(n_batch)[:, None], fails), 1.0)
    p_i /= n
    i = np.arange(n_trees + 1, dtype=np.float64)
    nan = np.full(n_batch, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        kw = np.mean(lc * (big_l - lc), axis=1) / big_l**2
        if n_trees > 1:
            entropy = np.mean(np.minimum(lc, big_l - lc), axis=1) / (big_l - np.ceil(big_l / 2))
            kappa = 1.0 - np.sum(lc * (big_l - lc), axis=1) / big_l / (
                n * (big_l - 1) * p_bar * (1 - p_bar)
            )
            kappa[(p_bar == 0) | (p_bar == 1)] = np.nan
            p1 = p_i @ (i / big_l)
            p2 = p_i @ (i * (i - 1) / (big_l * (big_l - 1)))
            gd = np.where(p1 > 0, 1.0 - p2 / p1, np.nan)
            cfd_sum = p_i[:, 1:] @ ((big_l - i[1:]) / (big_l - 1))
            cfd = np.where(p_i[:, 0] < 1.0, cfd_sum / (1.0 - p_i[:, 0]), 0.0)
        else:
            entropy = kappa = gd = cfd = nan
    difficulty = np.var(lc / big_l, axis=1)
    return {
        "entropy": entropy,
        "kw_variance": kw,
        "interrater_kappa": kappa,
        "difficulty": difficulty,
        "generalized_diversity": gd,
        "coincident_failure_diversity": cfd,
        "mean_member_accuracy": p_bar,
        "failure_distribution": p_i,
    }


@documents_ci_options
def nonpairwise_diversity(
    member_labels: Any, y: Any, *, n_classes: int | None = None, classes: Any = None,
    X: Any = None, ci: float | None = None, ci_method: str = "bca", n_boot: int = 2000,
    ci_seed: int = 0, ci_resample: str = "stratified",
) -> xr.Dataset:
    """Non-pairwise diversity: E, KW variance, interrater kappa, theta, GD and CFD.

    With L members, N rows, l_i the number of members correct on row i and p_bar =
    sum_i l_i / (N L) the mean member accuracy (Kuncheva & Whitaker 2003, section 3.2):

    * entropy E = (1/N) sum_i min(l_i, L - l_i) / (L - ceil(L/2));
    * Kohavi-Wolpert variance KW = (1 / (N L^2)) sum_i l_i (L - l_i);
    * interrater agreement kappa = 1 - ((1/L) sum_i l_i (L - l_i)) / (N (L-1) p_bar (1-p_bar));
    * difficulty theta = the variance over rows of l_i / L (population variance);
    * with p_j the share of rows on which exactly j members fail,
      p(1) = sum_j (j/L) p_j and p(2) = sum_j j (j-1) / (L (L-1)) p_j:
      generalized diversity GD = 1 - p(2) / p(1) (Partridge & Krzanowski 1997);
    * coincident failure diversity CFD = 0 if p_0 = 1, else
      (1 / (1 - p_0)) sum_{j=1}^{L} (L - j) / (L - 1) p_j.

    Kuncheva & Whitaker's identities hold: KW = (L - 1) / (2L) * D_av (mean disagreement) and
    kappa = 1 - L / ((L - 1) p_bar (1 - p_bar)) * KW. With one member E, kappa, GD and CFD are
    NaN; kappa is NaN when p_bar is 0 or 1, GD when no member ever fails.

    Parameters
    ----------
    member_labels : array-like or DataArray, (..., tree, sample)
        Class codes predicted by every member; leading dims broadcast.
    y : array-like or DataArray, (sample,) or (..., sample)
        True class codes.
    n_classes : int, optional
        Number of classes (default: largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.
    X : array-like, (sample, feature), optional
        With a model (or a list of models) as ``member_labels``: the rows its members
        predict (:func:`treelab.analysis.member_outputs`); its classes need no ``classes=``.
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every number (y must be one set of rows for all leading dims): the stratified
        bootstrap of the test rows, as :func:`treelab.analysis.diagnose` draws it
        (docs/measures/uncertainty.md); recorded in ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``entropy``, ``kw_variance``, ``interrater_kappa``, ``difficulty``,
        ``generalized_diversity``, ``coincident_failure_diversity``, ``mean_member_accuracy``
        over the leading dims; with ``ci`` their ``_lower`` and ``_upper`` limits.

    References
    ----------
    Kuncheva & Whitaker (2003), section 3.2; Partridge & Krzanowski (1997).

    Examples
    --------
    >>> from treelab.analysis import nonpairwise_diversity
    >>> ds = nonpairwise_diversity([[0, 0, 1, 1], [0, 1, 1, 0]], [0, 0, 1, 1])
    >>> float(ds.kw_variance), float(ds.entropy)
    (0.125, 0.5)
    """
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    b = batched_labels(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    variables = _nonpairwise_vars(b.labels, b.y)
    params: dict[str, Any] = {"n_classes": b.n_classes}
    if options is not None:
        variables, params["ci"] = batch_intervals(
            variables, lambda rows: _nonpairwise_vars(b.labels[..., rows], b.y[:, rows]),
            b.y, options)
    return build(variables, b.lead_dims, b.lead_shape, function="nonpairwise_diversity",
                 params=params, coords=b.coords)


#: Where each non-pairwise measure is undefined (NaN), stated in the variables' descriptions.
NONPAIR_NAN = {
    "entropy": "NaN with one member (L - ceil(L/2) = 0)",
    "interrater_kappa": ("NaN with one member, or where p_bar is 0 or 1 (every member wrong, "
                         "or right, on every row)"),
    "generalized_diversity": "NaN with one member, or where no member ever fails (p(1) = 0)",
    "coincident_failure_diversity": "NaN with one member; 0 where no member ever fails",
}


def _nonpairwise_vars(labels: np.ndarray, y: np.ndarray) -> dict[str, Var]:
    """Variables of :func:`nonpairwise_diversity` from checked codes (batch, tree, sample)."""
    st = nonpairwise_stats(labels, y)
    spec = {
        "entropy": ("entropy measure E", _UNIT, CITE_KW),
        "kw_variance": ("Kohavi-Wolpert variance", (0.0, 0.25), CITE_KW),
        "interrater_kappa": ("interrater agreement kappa", None, CITE_KW),
        "difficulty": ("measure of difficulty theta", (0.0, 0.25), CITE_KW),
        "generalized_diversity": ("generalized diversity GD", _UNIT, CITE_PK),
        "coincident_failure_diversity": ("coincident failure diversity CFD", _UNIT, CITE_PK),
        "mean_member_accuracy": ("mean member accuracy p_bar", _UNIT, CITE_KW),
    }
    return {
        key: Var((), st[key], long_name, valid_range=rng, cite=cite,
                 description=NONPAIR_NAN.get(key, ""))
        for key, (long_name, rng, cite) in spec.items()
    }
