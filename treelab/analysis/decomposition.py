"""Bias-variance decompositions of the 0-1 loss and the bias-variance-diversity decomposition.

Both take outputs on the same test rows from K training sets (the ``repeat`` dim of the
K-train-sets protocol, docs/measures/diversity_workbench.md). Every term is computed from its
own definition; that the terms sum to the directly measured expected loss is checked by the
tests, not built in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._batch import batched_labels, build, split_input
from treelab.analysis._dataset import Var, vote_counts
from treelab.analysis._inputs import (
    align_to,
    check_proba,
    check_row_sums,
    encode_labels,
    index_coords,
)
from treelab.analysis.members import infer_classes

__all__ = ["bias_variance_01", "bias_variance_diversity"]

CITE_KOHAVI_WOLPERT = (
    "Kohavi & Wolpert (1996), Bias plus variance decomposition for zero-one loss functions, ICML"
)
CITE_BREIMAN96 = "Breiman (1996), Bias, variance, and arcing classifiers, TR 460, UC Berkeley"
CITE_DOMINGOS = (
    "Domingos (2000), A unified bias-variance decomposition and its applications, ICML"
)
CITE_WOOD = (
    "Wood, Mu, Webb, Reeve, Lujan & Brown (2023), A unified theory of diversity in ensemble "
    "learning, JMLR 24"
)
_METHODS = {"domingos": CITE_DOMINGOS, "kohavi_wolpert": CITE_KOHAVI_WOLPERT,
            "breiman": CITE_BREIMAN96}
_LOSSES = ("squared", "cross_entropy", "zero_one")


def _target_proba(true_proba: Any, y: np.ndarray, n_classes: int) -> np.ndarray:
    """Target distribution per (batch, sample, class): one-hot labels or the given proba."""
    if true_proba is None:
        tau = np.zeros(y.shape + (n_classes,))
        np.put_along_axis(tau, y[..., None], 1.0, axis=-1)
        return tau
    return np.broadcast_to(true_proba, y.shape + (n_classes,))


def _check_true_proba(true_proba: Any, n_samples: int) -> np.ndarray:
    tp, _, _ = split_input(true_proba, "true_proba", (_dims.SAMPLE, _dims.CLASS))
    if tp.ndim != 2 or tp.shape[0] != n_samples:
        raise ValueError(f"true_proba must be (sample, class) with {n_samples} rows, "
                         f"got shape {tp.shape}")
    tp = check_proba(tp, "true_proba")
    if not np.allclose(tp.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("true_proba rows must sum to 1")
    return tp


def bias_variance_01(
    predictions: Any,
    y: Any,
    *,
    method: str = "domingos",
    true_proba: Any = None,
    n_classes: int | None = None,
    classes: Any = None,
) -> xr.Dataset:
    """Bias and variance of the 0-1 loss of predictions from K training sets.

    With P_D(c | x) the share of the K repeats predicting c on row x and P(c | x) the target
    distribution (one-hot at y, or ``true_proba`` when the generator is known), the expected
    loss is loss(x) = 1 - sum_c P_D(c | x) P(c | x), and y*(x) = argmax_c P(c | x) is the Bayes
    prediction (ties to the lowest index, as the main prediction). Per ``method``:

    ``"kohavi_wolpert"`` (Kohavi & Wolpert 1996): bias^2 = 1/2 sum_c (P(c) - P_D(c))^2,
    variance = 1/2 (1 - sum_c P_D(c)^2), noise = 1/2 (1 - sum_c P(c)^2); exactly
    loss = bias^2 + variance + noise.

    ``"breiman"`` (Breiman 1996): the aggregated classifier y_m(x) = argmax_c P_D(c | x);
    noise = 1 - P(y* | x) (the Bayes error); on rows where y_m = y* ("unbiased") variance =
    P(y*) - sum_c P_D(c) P(c) and bias = 0, elsewhere bias takes that value and variance is 0;
    exactly loss = noise + bias + variance.

    ``"domingos"`` (Domingos 2000): main prediction y_m (the mode over repeats),
    bias B = I(y_m != y*), variance V = 1 - P_D(y_m) = E_D[L(y_m, y)], noise N = 1 - P(y*);
    net variance c2 V with c2 = 1 where B = 0 and c2 = -P_D(y = y* | y != y_m) where B = 1;
    noise effect c1 N with c1 N = P_D(y*) N - sum_{c != y*} P_D(c) P(c) (Domingos' c1 =
    P_D(y = y*) - P_D(y != y*) P(y = t | y* != t), written as the joint probability that
    makes Theorem 2 exact). Exactly loss = noise_effect + bias + net_variance; with observed
    labels noise = noise_effect = 0, ``bias`` and ``variance`` are mlxtend's ``avg_bias`` and
    ``avg_var``, and net variance = unbiased minus biased variance.

    Parameters
    ----------
    predictions : array-like or DataArray, (..., repeat, sample)
        Class codes predicted on the same rows by models trained on K training sets; leading
        dims broadcast.
    y : array-like or DataArray, (sample,) or (..., sample)
        True class codes.
    method : {"domingos", "kohavi_wolpert", "breiman"}
        Which decomposition.
    true_proba : array-like, (sample, class), optional
        True class probabilities (known generator); the target becomes this distribution and
        ``y`` is only checked.
    n_classes : int, optional
        Number of classes (default: columns of ``true_proba``, else largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.

    Returns
    -------
    xarray.Dataset
        Means over rows ``loss``, ``bias``, ``variance``, ``noise`` (Domingos also
        ``net_variance`` and ``noise_effect``), per-row ``sample_*`` versions, and
        ``main_prediction`` (sample).

    References
    ----------
    Kohavi & Wolpert (1996); Breiman (1996), section 2; Domingos (2000), Theorems 1-2.

    Examples
    --------
    >>> from treelab.analysis import bias_variance_01
    >>> ds = bias_variance_01([[0, 1], [0, 0], [1, 0]], [0, 1])
    >>> round(float(ds.loss), 4), float(ds.bias), round(float(ds.variance), 4)
    (0.5, 0.5, 0.3333)
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
    tp = None
    if true_proba is not None:
        n_rows = np.shape(predictions)[-1]
        tp = _check_true_proba(true_proba, n_rows)
        if n_classes is None and classes is None:
            n_classes = tp.shape[1]
    b = batched_labels(predictions, y, n_classes=n_classes, classes=classes,
                       member_dim=_dims.REPEAT, name="predictions")
    n_c = b.n_classes
    if tp is not None and tp.shape[1] != n_c:
        raise ValueError(f"true_proba has {tp.shape[1]} classes, expected {n_c}")
    k = b.labels.shape[1]
    p_d = vote_counts(b.labels, n_c) / k  # (batch, sample, class)
    tau = _target_proba(tp, b.y, n_c)
    loss = 1.0 - np.sum(p_d * tau, axis=-1)
    main = np.argmax(p_d, axis=-1)
    best = np.argmax(tau, axis=-1)
    p_best = np.take_along_axis(tau, best[..., None], -1)[..., 0]
    pd_best = np.take_along_axis(p_d, best[..., None], -1)[..., 0]
    pd_main = np.take_along_axis(p_d, main[..., None], -1)[..., 0]
    out: dict[str, np.ndarray] = {"loss": loss}
    cite = _METHODS[method]
    if method == "kohavi_wolpert":
        out["bias"] = 0.5 * np.sum((tau - p_d) ** 2, axis=-1)
        out["variance"] = 0.5 * (1.0 - np.sum(p_d**2, axis=-1))
        out["noise"] = 0.5 * (1.0 - np.sum(tau**2, axis=-1))
    elif method == "breiman":
        excess = p_best - np.sum(p_d * tau, axis=-1)
        unbiased = main == best
        out["bias"] = np.where(unbiased, 0.0, excess)
        out["variance"] = np.where(unbiased, excess, 0.0)
        out["noise"] = 1.0 - p_best
    else:
        biased = main != best
        variance = 1.0 - pd_main
        with np.errstate(divide="ignore", invalid="ignore"):
            c2 = np.where(biased, -pd_best / np.where(variance > 0, variance, 1.0), 1.0)
        noise = 1.0 - p_best
        wrong_agree = np.sum(p_d * tau, axis=-1) - pd_best * p_best
        out["bias"] = biased.astype(np.float64)
        out["variance"] = variance
        out["net_variance"] = c2 * variance
        out["noise"] = noise
        out["noise_effect"] = pd_best * noise - wrong_agree
    long = {
        "loss": "expected 0-1 loss over training sets",
        "bias": "bias",
        "variance": "variance",
        "noise": "noise",
        "net_variance": "net variance (unbiased minus biased variance)",
        "noise_effect": "noise term c1 N of the decomposition",
    }
    variables = {}
    for key, val in out.items():
        variables[key] = Var((), val.mean(axis=-1), f"{long[key]}, mean over rows", cite=cite)
    for key, val in out.items():
        variables[f"sample_{key}"] = Var((_dims.SAMPLE,), val, f"{long[key]} per row", cite=cite)
    variables["main_prediction"] = Var((_dims.SAMPLE,), main, "main prediction (mode)", units="",
                                       cite=cite)
    coords = {key: v for key, v in b.coords.items() if key != _dims.REPEAT}
    return build(variables, b.lead_dims, b.lead_shape, function="bias_variance_01",
                 params={"method": method, "n_repeat": k, "n_classes": n_c,
                         "true_proba": tp is not None}, coords=coords)


def _geo_mean(log_q: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Normalised geometric mean over ``axis`` (log values in) and -log of its normaliser."""
    mean_log = log_q.mean(axis=axis)
    shift = mean_log.max(axis=-1, keepdims=True)
    log_z = np.log(np.sum(np.exp(mean_log - shift), axis=-1)) + shift[..., 0]
    return mean_log - log_z[..., None], -log_z


def bias_variance_diversity(
    member_outputs: Any,
    target: Any,
    *,
    loss: str = "squared",
    n_classes: int | None = None,
    classes: Any = None,
    X: Any = None,
) -> xr.Dataset:
    """The bias-variance-diversity decomposition of Wood et al. (JMLR 2023).

    Member outputs q_i (M members, i = 1..M) from K training sets D; target y* (one-hot at the
    label, or a known class distribution), E_D the mean over training sets, (1/M) sum_i the
    mean over members. Per row, with the ensemble combiner q_bar:

    ``"squared"`` (squared loss over the class vector, arithmetic mean q_bar = (1/M) sum_i q_i):
    expected loss E_D E_y ||y - q_bar||^2 = noise + average bias + average variance -
    diversity, with noise = 1 - sum_c y*_c^2, bias = (1/M) sum_i ||E_D q_i - y*||^2,
    variance = (1/M) sum_i E_D ||q_i - E_D q_i||^2, diversity = E_D (1/M) sum_i ||q_i -
    q_bar||^2.

    ``"cross_entropy"`` (normalised geometric mean q_bar = Z^-1 exp((1/M) sum_i log q_i), the
    KL form): expected loss E_D[-sum_c y*_c log q_bar_c] = noise + bias + variance -
    diversity, with noise = H(y*), member centroids q°_i = Z_i^-1 exp(E_D log q_i),
    bias = (1/M) sum_i KL(y* || q°_i), variance = (1/M) sum_i E_D KL(q°_i || q_i) =
    (1/M) sum_i (-log Z_i), diversity = E_D (1/M) sum_i KL(q_bar || q_i) = E_D[-log Z].
    Needs strictly positive member probabilities (e.g. Laplace estimates).

    ``"zero_one"`` (majority vote q_bar, ties to the lowest class; member labels as outputs):
    the label-dependent effects of Wood et al. section 5, with L(c) = 1 - P(c | x) the
    expected 0-1 loss of label c and q°_i the mode of member i over training sets:
    noise = 1 - max_c P(c), bias = (1/M) sum_i L(q°_i) - noise (bias effect), variance =
    (1/M) sum_i (E_D L(q_i) - L(q°_i)) (variance effect), diversity = E_D[(1/M) sum_i L(q_i)
    - L(q_bar)] (diversity effect). Effects can be negative; the sum is exact.

    Parameters
    ----------
    member_outputs : array-like or DataArray
        (..., repeat, tree, sample, class) member probabilities for ``"squared"`` and
        ``"cross_entropy"``; (..., repeat, tree, sample) member class codes for
        ``"zero_one"``. Leading dims broadcast.
    target : array-like, (sample,) or (sample, class)
        True class codes, or a known target distribution per row.
    loss : {"squared", "cross_entropy", "zero_one"}
        Loss and its combiner.
    n_classes : int, optional
        Number of classes for ``"zero_one"`` with label targets (default: largest code + 1).
    classes : array-like, optional
        Original labels for ``"zero_one"``.
    X : array-like, (sample, feature), optional
        With a list of K fitted models (ensembles, or lists of fitted classifiers; one per
        training set, each with the same number of members) as ``member_outputs``: the test
        rows they predict. Their member probabilities (or labels, for ``"zero_one"``) are read
        by :func:`treelab.analysis.member_outputs` and aligned on the union of their classes
        (``target`` then holds original labels). A single model is one training set (the
        variance is 0).

    Returns
    -------
    xarray.Dataset
        Means over rows ``expected_loss``, ``noise``, ``average_bias``, ``average_variance``,
        ``diversity``, the per-row ``sample_*`` versions, and per member ``member_bias`` and
        ``member_variance`` (tree; means over rows).

    References
    ----------
    Wood, Mu, Webb, Reeve, Lujan & Brown (2023), JMLR 24, Theorems 3-5 and section 5.
    """
    _refuse_regression(member_outputs, loss, X)
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {list(_LOSSES)}, got {loss!r}")
    # a labelled target is paired with the member outputs by its sample labels below
    t_coords = index_coords(target)
    if isinstance(target, xr.DataArray) and target.ndim == 2 and _dims.SAMPLE in target.dims:
        target = target.transpose(_dims.SAMPLE, ...)
    if X is not None:
        from treelab.analysis.members import repeated_outputs

        member_outputs, model_classes = repeated_outputs(
            member_outputs, X, kind="labels" if loss == "zero_one" else "proba")
        classes = model_classes if classes is None else classes
        if loss == "zero_one":
            member_outputs = np.asarray(classes)[member_outputs]
        else:
            t_arr = np.asarray(target.values if isinstance(target, xr.DataArray) else target)
            if t_arr.ndim == 1:  # original labels: one-hot over the models' classes
                codes = encode_labels(t_arr, "target", classes=np.asarray(classes))
                target = np.eye(len(classes))[codes]
    if loss == "zero_one":
        core: tuple[str, ...] = (_dims.REPEAT, _dims.TREE, _dims.SAMPLE)
    else:
        core = (_dims.REPEAT, _dims.TREE, _dims.SAMPLE, _dims.CLASS)
    arr, lead, coords = split_input(member_outputs, "member_outputs", core,
                                    labels=loss == "zero_one")
    n_samples = arr.shape[len(lead) + 2]
    if min(arr.shape[len(lead):len(lead) + 3]) < 1:
        raise ValueError(f"member_outputs needs a repeat, a tree and a sample, got {arr.shape}")
    lead_shape = arr.shape[:len(lead)]
    batch = int(np.prod(lead_shape, dtype=np.int64))
    t_arr = np.asarray(target.values if isinstance(target, xr.DataArray) else target)
    if t_arr.ndim not in (1, 2) or t_arr.shape[0] != n_samples:
        raise ValueError(f"target must be (sample,) or (sample, class) with {n_samples} rows, "
                         f"got shape {t_arr.shape}")
    t_arr = align_to(t_arr, t_coords, coords, "target", "member_outputs",
                     (_dims.SAMPLE, _dims.CLASS)[:t_arr.ndim])
    if loss == "zero_one":
        n_c = n_classes if t_arr.ndim == 1 else t_arr.shape[1]
        if classes is None and t_arr.ndim == 1 and (
                arr.dtype.kind not in "iufb" or t_arr.dtype.kind not in "iufb"):
            classes = infer_classes(None, arr, t_arr, None)  # string or object labels
        if classes is not None and n_c is None:
            n_c = len(classes)
        codes = encode_labels(arr, "member_outputs", classes=classes, n_classes=n_c)
        n_c = n_c if n_c is not None else int(max(codes.max(), t_arr.max())) + 1
    else:
        q, lo = _check_outputs(arr)
        n_c = q.shape[-1]
        if loss == "cross_entropy" and lo <= 0:
            raise ValueError("member_outputs must be > 0 for loss='cross_entropy' "
                             "(use Laplace estimates or clip)")
    if t_arr.ndim == 1:
        tcodes = encode_labels(t_arr, "target", classes=classes if loss == "zero_one" else None,
                               n_classes=n_c)
        tau = np.zeros((n_samples, n_c))
        tau[np.arange(n_samples), tcodes] = 1.0
    else:
        tau = check_proba(t_arr, "target")
        if tau.shape[1] != n_c or not np.allclose(tau.sum(axis=1), 1.0, atol=1e-9):
            raise ValueError(f"target must be (sample, {n_c}) with rows summing to 1")
    if loss == "zero_one":
        codes = codes.reshape((batch,) + codes.shape[len(lead):])
        terms = _zero_one(codes, tau)
    else:
        q = q.reshape((batch,) + q.shape[len(lead):])
        terms = _squared(q, tau) if loss == "squared" else _cross_entropy(q, tau)
    long = {
        "expected_loss": "expected loss of the ensemble over training sets",
        "noise": "noise",
        "average_bias": "average member bias",
        "average_variance": "average member variance",
        "diversity": "diversity",
    }
    variables = {}
    for key, text in long.items():
        variables[key] = Var((), terms[key].mean(axis=-1), f"{text}, mean over rows",
                             cite=CITE_WOOD,
                             description="expected_loss = noise + average_bias + "
                             "average_variance - diversity")
    for key, text in long.items():
        variables[f"sample_{key}"] = Var((_dims.SAMPLE,), terms[key], f"{text} per row",
                                         cite=CITE_WOOD)
    variables["member_bias"] = Var((_dims.TREE,), terms["member_bias"].mean(axis=-1),
                                   "bias of each member, mean over rows", cite=CITE_WOOD)
    variables["member_variance"] = Var((_dims.TREE,), terms["member_variance"].mean(axis=-1),
                                       "variance of each member, mean over rows", cite=CITE_WOOD)
    coords = {key: v for key, v in coords.items() if key not in (_dims.REPEAT, _dims.CLASS)}
    return build(variables, lead, lead_shape, function="bias_variance_diversity",
                 params={"loss": loss, "n_classes": n_c,
                         "target": "labels" if t_arr.ndim == 1 else "proba"}, coords=coords)


def _refuse_regression(member_outputs: Any, loss: str, X: Any) -> None:
    """Point real-valued (repeat, tree, sample) outputs, a regression loss and regressors to
    the regression decomposition instead of a shape error."""
    from treelab.analysis._model_checks import is_regressor_model

    where = ("treelab.analysis.bias_variance_diversity_regression (docs/measures/"
             "regression.md)")
    if loss == "poisson":
        raise ValueError(f"loss='poisson' is a regression loss: use {where}")
    models = member_outputs if isinstance(member_outputs, list | tuple) else [member_outputs]
    if X is not None and any(is_regressor_model(m) for m in models):
        raise TypeError(f"member_outputs holds regressors: use {where}")
    if loss == "zero_one" or X is not None:
        return
    core = (_dims.REPEAT, _dims.TREE, _dims.SAMPLE)
    if isinstance(member_outputs, xr.DataArray):
        regression = _dims.CLASS not in member_outputs.dims and set(core) <= set(
            member_outputs.dims)
    else:
        try:
            arr = np.asarray(member_outputs)
        except ValueError:  # ragged: the reader below reports it
            return
        regression = arr.ndim == 3 and arr.dtype.kind in "fiu"
    if regression:
        raise ValueError(f"member_outputs has dims {core} without {_dims.CLASS!r}: real-valued "
                         f"outputs of a regression go to {where}; loss={loss!r} here needs "
                         "class probabilities (repeat, tree, sample, class)")


def _check_outputs(arr: np.ndarray) -> tuple[np.ndarray, float]:
    """Member probabilities as float64 in [0, 1] whose rows sum to 1, and their minimum.
    Three passes over the (large) array: min and max propagate NaN, an infinity shows as a
    bound outside [0, 1], and the row sums must be 1 (``_inputs.check_row_sums``).
    """
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"member_outputs must hold numbers, got {arr.dtype}")
    q = arr.astype(np.float64, copy=False)
    if q.size == 0:
        return q, 0.0
    lo, hi = float(q.min()), float(q.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError("member_outputs holds NaN or infinite values")
    if lo < 0 or hi > 1 + 1e-9:
        raise ValueError("member_outputs must hold probabilities in [0, 1]")
    # the terms assume distributions: rows of another total shift the variance and the
    # diversity of the cross-entropy form while its expected loss, normalised, stays put
    check_row_sums(q, "member_outputs rows (over the classes)")
    return q, lo


def _squared(q: np.ndarray, tau: np.ndarray) -> dict[str, np.ndarray]:
    """q (batch, repeat, tree, sample, class); tau (sample, class).

    Spreads by sums of squares, E||q - E q||^2 = E||q||^2 - ||E q||^2: one pass over q
    instead of two full-size differences (terms are bounded by 2, so the cancellation costs
    at most a few ulps)."""
    sq = np.einsum("bdmsc,bdmsc->bdms", q, q)  # ||q_i||^2 per member and training set
    q_bar = q.mean(axis=2)  # ensemble, (batch, repeat, sample, class)
    centroid = q.mean(axis=1)  # member means over training sets, (batch, tree, sample, class)
    bar_sq = np.einsum("bdsc,bdsc->bds", q_bar, q_bar)
    expected = np.mean(1.0 - 2.0 * np.einsum("sc,bdsc->bds", tau, q_bar) + bar_sq, axis=1)
    member_bias = np.sum((centroid - tau) ** 2, axis=-1)
    member_var = sq.mean(axis=1) - np.einsum("bmsc,bmsc->bms", centroid, centroid)
    diversity = np.mean(sq.mean(axis=2) - bar_sq, axis=1)
    return {
        "expected_loss": expected,
        "noise": np.broadcast_to(1.0 - np.sum(tau**2, -1), expected.shape),
        "average_bias": member_bias.mean(axis=1),
        "average_variance": member_var.mean(axis=1),
        "diversity": diversity,
        "member_bias": member_bias,
        "member_variance": member_var,
    }


def _xlogx(p: np.ndarray) -> np.ndarray:
    return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def _cross_entropy(q: np.ndarray, tau: np.ndarray) -> dict[str, np.ndarray]:
    log_q = np.log(q)
    log_bar, neg_log_z = _geo_mean(log_q, axis=2)  # (batch, repeat, sample, ...)
    expected = np.mean(-np.sum(tau * log_bar, axis=-1), axis=1)
    log_cent, neg_log_zi = _geo_mean(log_q, axis=1)  # (batch, tree, sample, ...)
    neg_ent = np.sum(_xlogx(tau), axis=-1)
    member_bias = neg_ent - np.sum(tau * log_cent, axis=-1)
    return {
        "expected_loss": expected,
        "noise": np.broadcast_to(-neg_ent, expected.shape),
        "average_bias": member_bias.mean(axis=1),
        "average_variance": neg_log_zi.mean(axis=1),
        "diversity": neg_log_z.mean(axis=1),
        "member_bias": member_bias,
        "member_variance": neg_log_zi,
    }


def _mode(codes: np.ndarray, axis: int, n_classes: int) -> np.ndarray:
    """Most frequent code along ``axis`` (ties to the lowest), from bincount vote counts."""
    moved = np.moveaxis(codes, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    base = (np.arange(flat.shape[0]) * n_classes)[:, None]
    counts = np.bincount((base + flat).ravel(), minlength=flat.shape[0] * n_classes)
    return np.argmax(counts.reshape(-1, n_classes), axis=1).reshape(moved.shape[:-1])


def _zero_one(codes: np.ndarray, tau: np.ndarray) -> dict[str, np.ndarray]:
    """codes (batch, repeat, tree, sample); tau (sample, class)."""
    n_c = tau.shape[1]
    rows = np.arange(tau.shape[0])
    loss_of = 1.0 - tau  # expected 0-1 loss of predicting class c on row i, (sample, class)
    member_loss = loss_of[rows, codes]  # (batch, repeat, tree, sample)
    vote = _mode(codes, axis=2, n_classes=n_c)  # majority vote, (batch, repeat, sample)
    centroid = _mode(codes, axis=1, n_classes=n_c)  # (batch, tree, sample)
    noise = 1.0 - tau.max(axis=1)
    cent_loss = loss_of[rows, centroid]
    member_bias = cent_loss - noise
    member_var = member_loss.mean(axis=1) - cent_loss
    expected = loss_of[rows, vote].mean(axis=1)
    diversity = np.mean(member_loss.mean(axis=2) - loss_of[rows, vote], axis=1)
    return {
        "expected_loss": expected,
        "noise": np.broadcast_to(noise, expected.shape),
        "average_bias": member_bias.mean(axis=1),
        "average_variance": member_var.mean(axis=1),
        "diversity": diversity,
        "member_bias": member_bias,
        "member_variance": member_var,
    }
