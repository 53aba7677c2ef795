"""Errors, error correlation (phi_e, phi*) and error ratio (error arrangements: ``arrangement``).

All measures work on member labels of shape (tree, sample) and true labels (sample,), as class
codes 0..C-1 (or original labels with ``classes=``). Nothing loops over trees or pairs in Python:
pair counts come from per-row (or per-class) vote counts, ``m * (m - 1) / 2``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._batch import member_dataset, member_inputs
from treelab.analysis._cite import (
    CITE_ERRORS,
    CITE_PHI_E,
    CITE_PHI_STAR,
    CITE_RELATION,
)
from treelab.analysis._dataset import Var, to_dataarray, to_dataset, vote_counts
from treelab.analysis._inputs import align_to, as_array, encode_labels
from treelab.analysis._measure_intervals import (
    ci_options,
    ci_params,
    documents_ci_options,
    row_intervals,
)

__all__ = [
    "error_correlation",
    "error_ratio",
    "errors",
    "phi_e_phi_star",
]

_ERR = (0.0, 1.0)


def _member_error(labels: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.count_nonzero(labels != y[None, :], axis=1) / labels.shape[1]


def _vote_labels(votes: np.ndarray) -> np.ndarray:
    # uniform voting on labels alone: one-hot member probabilities make "summed probability"
    # equal to the votes, so the spec's tie-break reduces to the lowest class index.
    return np.argmax(votes, axis=1)


def phi_e_phi_star(
    labels: np.ndarray, y: np.ndarray, n_classes: int, votes: np.ndarray | None = None
) -> tuple[float, float]:
    """phi_e and phi* from checked class codes (NumPy twin of :func:`error_correlation`)."""
    n_trees, n_samples = labels.shape
    if n_trees < 2:
        return np.nan, np.nan
    n_pairs = n_trees * (n_trees - 1) / 2.0
    votes = (vote_counts(labels, n_classes) if votes is None else votes).astype(np.float64)
    votes[np.arange(n_samples), y] = 0.0  # keep wrong classes only
    phi_e = float(np.sum(votes * (votes - 1.0)) / 2.0 / n_samples / n_pairs)

    # q[t, k, l] = p(f_t = l | y = k), estimated on the test rows
    flat = (np.arange(n_trees)[:, None] * n_classes + y[None, :]) * n_classes + labels
    conf = np.bincount(flat.ravel(), minlength=n_trees * n_classes * n_classes)
    conf = conf.reshape(n_trees, n_classes, n_classes).astype(np.float64)
    n_k = np.bincount(y, minlength=n_classes).astype(np.float64)
    q = conf / np.where(n_k > 0, n_k, 1.0)[None, :, None]
    s1 = q.sum(axis=0)
    pair_sum = (s1 * s1 - np.einsum("tkl,tkl->kl", q, q)) / 2.0  # sum over a < b of q_a q_b
    np.fill_diagonal(pair_sum, 0.0)  # l != k: only wrong predictions
    phi_star = float(np.sum((n_k / n_samples) * pair_sum.sum(axis=1)) / n_pairs)
    return phi_e, phi_star


def _relation(phi_e: float, phi_star: float) -> str:
    if np.isnan(phi_e) or np.isnan(phi_star):
        return "undefined"
    if np.isclose(phi_e, phi_star, rtol=1e-9, atol=1e-12):
        return "uncorrelated"
    return "positive" if phi_e > phi_star else "negative"


@documents_ci_options
def errors(
    member_labels: Any,
    y: Any,
    *,
    ensemble_labels: Any = None,
    n_classes: int | None = None,
    classes: Any = None,
    X: Any = None,
    ci: float | None = None,
    ci_method: str = "bca",
    n_boot: int = 2000,
    ci_seed: int = 0,
    ci_resample: str = "stratified",
) -> xr.Dataset:
    """Member errors, their mean and the ensemble error.

    e_t = mean_i I(f_t(x_i) != y_i) for every tree; E_e = mean_i I(F(x_i) != y_i) for the
    ensemble labels ``ensemble_labels`` (sample,), or, when not given, for uniform voting over the
    member labels (most votes; ties to the lower class index: the estimator's rule, most votes
    then larger summed probability then lower index, for one-hot members; see
    docs/measures/correctness.md).

    Parameters
    ----------
    member_labels : array-like or DataArray, (tree, sample)
        Class codes predicted by every member.
    y : array-like or DataArray, (sample,)
        True class codes.
    ensemble_labels : array-like, (sample,), optional
        The ensemble's predictions under its own combination function (default for a model
        given with ``X=``: its own prediction).
    n_classes : int, optional
        Number of classes (default: largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.
    X : array-like, (sample, feature), optional
        With a model (or a list of models) as ``member_labels``: the rows its members
        predict (:func:`treelab.analysis.member_outputs`); its classes need no ``classes=``.
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every number that is not per row: the stratified bootstrap of the test rows, as
        :func:`treelab.analysis.diagnose` draws it (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``member_error`` (tree), ``mean_member_error``, ``ensemble_error``; with ``ci`` their
        ``_lower`` and ``_upper`` limits (the ensemble labels of a row held fixed).
    """
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    if X is not None and ensemble_labels is None:
        # a model's own combination, not uniform voting: read (and checked) once, here
        from treelab.analysis.members import read_members

        got = read_members(member_labels, X, y, need_ensemble=True)
        member_labels, X = got.labels, None
        classes = got.classes if classes is None else classes
        if got.ensemble is not None:
            ensemble_labels = got.ensemble
    inp = member_inputs(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    if ensemble_labels is None:
        ens = _vote_labels(vote_counts(inp.labels, inp.n_classes))
        how = "uniform voting (ties to the lower class index)"
    else:
        ens, ens_coords = as_array(
            ensemble_labels, "ensemble_labels", (_dims.SAMPLE,), labels=True
        )
        ens = align_to(ens, ens_coords, inp.coords, "ensemble_labels", "y", (_dims.SAMPLE,))
        if ens.shape != inp.y.shape:
            raise ValueError(f"ensemble_labels has shape {ens.shape}, y has {inp.y.shape}")
        ens = encode_labels(ens, "ensemble_labels", classes=inp.coords[_dims.CLASS])
        how = "ensemble_labels as given"
    variables = errors_vars(inp.labels, inp.y, ens, how)
    params = {"n_classes": inp.n_classes, "ensemble_labels": ensemble_labels is not None}
    if options is not None:
        limits, skipped = row_intervals(
            variables, lambda rows: errors_vars(inp.labels[:, rows], inp.y[rows], ens[rows], how),
            inp.y.size, options, strata=inp.y)
        variables = {**variables, **limits}
        params["ci"] = ci_params(options, skipped, classes=True)
    return to_dataset(variables, function="errors", params=params, coords=inp.coords)


def errors_vars(labels: np.ndarray, y: np.ndarray, ens: np.ndarray, how: str) -> dict[str, Var]:
    """Variables of :func:`errors` from checked codes and the ensemble's labels."""
    e_t = _member_error(labels, y)
    return {
        "member_error": Var((_dims.TREE,), e_t, "member error rate e_t", valid_range=_ERR,
                            cite=CITE_ERRORS),
        "mean_member_error": Var((), e_t.mean(), "mean member error rate", valid_range=_ERR,
                                 cite=CITE_ERRORS),
        "ensemble_error": Var(
            (), np.mean(ens != y), "ensemble error rate E_e", valid_range=_ERR, description=how,
            cite=CITE_ERRORS,
        ),
    }


@documents_ci_options
def error_correlation(
    member_labels: Any, y: Any, *, n_classes: int | None = None, classes: Any = None,
    X: Any = None, ci: float | None = None, ci_method: str = "bca", n_boot: int = 2000,
    ci_seed: int = 0, ci_resample: str = "stratified",
) -> xr.Dataset:
    """Error correlation phi_e and its independence value phi* (Ali & Pazzani 1995).

    For a pair of members (a, b), p_ab = mean_i I(f_a(x_i) = f_b(x_i) != y_i) is the chance that
    both make the *same* wrong prediction.

    phi_e = 2 / (T (T - 1)) * sum_{a < b} p_ab, the average over unordered pairs. Ali & Pazzani
    print the normaliser as 1 / (T (T - 1)) with the sum over a < b, which halves the average;
    their text defines phi_e as the average over pairs, which is what is computed here.

    phi* = 2 / (T (T - 1)) * sum_{a < b} sum_k p(y = k) sum_{l != k}
    p(f_a = l | y = k) p(f_b = l | y = k): the value of phi_e if, within each true class, members
    erred independently. The source writes the inner terms without conditioning on y = k; its
    stated meaning (independence "for each class") requires it. All probabilities are estimated
    on the given rows; a class absent from ``y`` has p(y = k) = 0.

    With a single tree there are no pairs: phi_e, phi* and phi_gap are NaN and ``relation`` is
    ``"undefined"``.

    Computed without loops over pairs: per row the number of agreeing wrong pairs is
    sum_{l != y_i} m_il (m_il - 1) / 2 with m_il the members voting l; per class the pair sum is
    ((sum_t q_t)^2 - sum_t q_t^2) / 2.

    Parameters
    ----------
    member_labels : array-like or DataArray, (tree, sample)
        Class codes predicted by every member.
    y : array-like or DataArray, (sample,)
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
        every number that is not per row: the stratified bootstrap of the test rows, as
        :func:`treelab.analysis.diagnose` draws it (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``phi_e``, ``phi_star``, ``phi_gap`` (phi_e - phi*) and ``relation``: ``"positive"``
        (phi_e > phi*), ``"uncorrelated"`` (equal within rtol 1e-9) or ``"negative"``; with
        ``ci`` the ``_lower`` and ``_upper`` limits of the first three.

    References
    ----------
    Ali & Pazzani (1995), UCI ICS TR 95-38, section 5.

    Examples
    --------
    Two members that make the same wrong prediction on rows 0 and 2 (of 4):

    >>> from treelab.analysis import error_correlation
    >>> ds = error_correlation([[1, 0, 0, 1], [1, 2, 0, 1]], [0, 0, 1, 1])
    >>> float(ds.phi_e), str(ds.relation.values)
    (0.5, 'positive')
    """
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    return member_dataset(correlation_vars, "error_correlation", member_labels, y,
                          n_classes=n_classes, classes=classes, X=X, ci=options)


def correlation_vars(
    labels: np.ndarray, y: np.ndarray, n_classes: int, votes: np.ndarray | None = None
) -> dict[str, Var]:
    """Variables of :func:`error_correlation` from checked codes (``votes``: (sample, class))."""
    phi_e, phi_star = phi_e_phi_star(labels, y, n_classes, votes)
    note = "NaN for a single tree: no pairs" if labels.shape[0] < 2 else ""
    return {
        "phi_e": Var(
            (),
            phi_e,
            "error correlation phi_e (mean over pairs of the rate of identical errors)",
            valid_range=_ERR,
            cite=CITE_PHI_E,
            description=note,
        ),
        "phi_star": Var(
            (),
            phi_star,
            "phi_e under class-conditionally independent errors (phi*)",
            valid_range=_ERR,
            cite=CITE_PHI_STAR,
            description=note,
        ),
        "phi_gap": Var(
            (), phi_e - phi_star, "phi_e - phi*", valid_range=(-1.0, 1.0), cite=CITE_RELATION
        ),
        "relation": Var(
            (),
            np.array(_relation(phi_e, phi_star)),
            "correlation of member errors relative to independence",
            units="",
            cite=CITE_RELATION,
            description="positive, uncorrelated, negative (or undefined for one tree)",
        ),
    }


def _check_same_labels(e: xr.DataArray, s: xr.DataArray) -> None:
    """Refuse pairs whose shared dims carry different labels: xarray arithmetic would keep
    only the common labels (an inner join) and drop the rest without a word."""
    for dim in set(e.dims) & set(s.dims):
        if dim not in e.indexes or dim not in s.indexes:
            if e.sizes[dim] != s.sizes[dim]:
                raise ValueError(f"ensemble_error and single_error have {e.sizes[dim]} and "
                                 f"{s.sizes[dim]} entries along {dim!r}")
            continue
        a, b = e.indexes[dim], s.indexes[dim]
        if len(a) != len(b) or not a.sort_values().equals(b.sort_values()):
            raise ValueError(
                f"ensemble_error and single_error have different {dim!r} labels (only in "
                f"ensemble_error: {list(a.difference(b))[:5]}, only in single_error: "
                f"{list(b.difference(a))[:5]}); select the common labels first"
            )


def error_ratio(ensemble_error: Any, single_error: Any) -> xr.DataArray:
    """Error ratio E_r = E_e / E_s of an ensemble to its single deterministic model.

    Undefined where E_s = 0: the result is NaN there, with a ``RuntimeWarning``.

    Parameters
    ----------
    ensemble_error : float, array-like or DataArray
        Ensemble error E_e.
    single_error : float, array-like or DataArray
        Error E_s of the single deterministic model of the same family on the same training rows
        (for VR-Trees the alpha = 1 tree). Broadcast against ``ensemble_error`` by xarray rules
        and paired by coordinate; a dim both carry must hold the same labels (in any order),
        else ``ValueError`` (no silent inner join). Its dims must be dims of
        ``ensemble_error`` (one E_s may serve several ensembles, not the reverse).

    Returns
    -------
    xarray.DataArray
        ``error_ratio``.
    """
    e = (
        ensemble_error
        if isinstance(ensemble_error, xr.DataArray)
        else xr.DataArray(np.asarray(ensemble_error, dtype=np.float64))
    )
    s = (
        single_error
        if isinstance(single_error, xr.DataArray)
        else xr.DataArray(np.asarray(single_error, dtype=np.float64))
    )
    for name, val in (("ensemble_error", e), ("single_error", s)):
        if val.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be numeric, got {val.dtype}")
        if bool((val < 0).any()):
            raise ValueError(f"{name} must be non-negative")
    if isinstance(ensemble_error, xr.DataArray) and isinstance(single_error, xr.DataArray):
        extra = [d for d in s.dims if d not in e.dims]
        if extra:
            # broadcasting would pair every E_e with every E_s along those dims
            raise ValueError(f"single_error has dims {extra} that ensemble_error lacks "
                             f"({tuple(e.dims)}); the ratio would be an outer product")
        _check_same_labels(e, s)
    if bool((s == 0).any()):
        warnings.warn(
            "error_ratio: single-model error is 0; the ratio is NaN there",
            RuntimeWarning,
            stacklevel=2,
        )
    ratio = (e / s.where(s != 0)).astype(np.float64)
    coords = {d: ratio[d].values for d in ratio.dims if d in ratio.indexes}
    var = Var(
        tuple(ratio.dims),
        ratio.values,
        "error ratio E_e / E_s",
        valid_range=None,
        cite=CITE_ERRORS,
        description="NaN where the single-model error is 0",
    )
    return to_dataarray(
        "error_ratio", var, function="error_ratio", params={}, coords=coords, check_dims=False
    )
