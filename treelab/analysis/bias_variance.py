"""Bias-variance decomposition of probability estimates (Fan et al. 2005)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_FAN
from treelab.analysis._dataset import Var, to_dataset
from treelab.analysis._inputs import align_to, as_array, check_proba, encode_labels

__all__ = ["bias_variance"]


def bias_variance(probas: Any, target: Any, *, classes: Any = None) -> xr.Dataset:
    """Decompose the squared loss of probability estimates into bias and variance.

    The method is trained on K training sets and predicts the same test rows, giving K
    probability vectors p_k(x) per row. With target tau(x):

    * main prediction p_m(x) = mean_k p_k(x);
    * bias(x) = sum_c (tau_c(x) - p_m,c(x))^2;
    * variance(x) = mean_k sum_c (p_k,c(x) - p_m,c(x))^2;
    * loss(x) = mean_k sum_c (tau_c(x) - p_k,c(x))^2 = bias(x) + variance(x);
    * bias_unbiased(x) = bias(x) - variance(x) / (K - 1).

    ``loss`` is computed directly from its definition, so the identity is a check, not a
    construction.

    ``bias`` is Fan et al.'s plug-in definition: it squares the distance to the mean of only K
    draws, so it carries part of the variance. For one class c of one row, let the K
    estimates p_k,c be independent with mean mu_c and variance s_c^2 (over training sets).
    Then p_m,c has mean mu_c and variance s_c^2 / K, so

        E[(tau_c - p_m,c)^2] = (tau_c - mu_c)^2 + s_c^2 / K,

    and the plug-in variance v_c = mean_k (p_k,c - p_m,c)^2 has E[v_c] = (K - 1) / K s_c^2.
    Hence (tau_c - p_m,c)^2 - v_c / (K - 1) has expectation (tau_c - mu_c)^2, the bias of an
    infinite number of training sets; summed over the classes this is ``bias_unbiased``.
    It needs K >= 2 (NaN for K = 1) and, being an unbiased estimate of a small quantity, can
    be negative for a row. ``bias`` approaches it as K grows (their gap is variance / (K - 1)):
    compare methods on ``bias_unbiased`` when their variances differ a lot and K is small.

    Parameters
    ----------
    probas : array-like or DataArray, (repeat, sample, class)
        Probability estimates of the K repeats.
    target : array-like or DataArray, (sample, class) or (sample,)
        True probabilities when known, or any target distribution (e.g. the empirical class
        frequency of a bin of rows); a 1-D array of class codes (or of original labels, with
        ``classes``) becomes the one-hot observed label.
    classes : array-like, optional
        Original labels of the columns, for a 1-D ``target`` of labels (strings, objects).

    Returns
    -------
    xarray.Dataset
        ``bias``, ``variance``, ``loss``, ``bias_unbiased`` (means over rows), their per-row
        versions ``sample_bias``, ``sample_variance``, ``sample_loss``,
        ``sample_bias_unbiased`` (dim sample) and ``main_prediction`` (sample, class).

    References
    ----------
    Fan, Greengrass, McCloskey, Yu & Drummey (2005), section 4 (the plug-in bias and
    variance); the correction is the usual one of the sample variance (Bessel's).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[[0.6, 0.4]], [[0.8, 0.2]]])  # K = 2 sets, one row, two classes
    >>> ds = bias_variance(p, np.array([[0.7, 0.3]]))
    >>> round(float(ds.bias), 6), round(float(ds.variance), 6), round(float(ds.bias_unbiased), 6)
    (0.0, 0.02, -0.02)
    """
    p, coords = as_array(probas, "probas", (_dims.REPEAT, _dims.SAMPLE, _dims.CLASS))
    p = check_proba(p, "probas")
    n_repeat, n_samples, n_classes = p.shape
    if n_repeat < 1:
        raise ValueError("probas needs at least one repeat")
    if n_samples < 1:
        raise ValueError("probas has no row (sample): bias and variance average over rows")
    if np.ndim(target) == 1:
        labels, t_coords = as_array(target, "target", (_dims.SAMPLE,), labels=True)
        labels = align_to(labels, t_coords, coords, "target", "probas", (_dims.SAMPLE,))
        if classes is not None and len(classes) != n_classes:
            raise ValueError(f"classes has {len(classes)} labels but probas has {n_classes} "
                             "columns")
        codes = encode_labels(labels, "target", classes=classes, n_classes=n_classes)
        tau = np.zeros((labels.shape[0], n_classes))
        tau[np.arange(labels.shape[0]), codes] = 1.0
    else:
        tau, t_coords = as_array(target, "target", (_dims.SAMPLE, _dims.CLASS))
        tau = align_to(tau, t_coords, coords, "target", "probas", (_dims.SAMPLE, _dims.CLASS))
        tau = check_proba(tau, "target")
    if tau.shape != (n_samples, n_classes):
        raise ValueError(
            f"target has shape {tau.shape}, expected ({n_samples}, {n_classes}) to match probas"
        )
    main = p.mean(axis=0)
    bias = np.sum((tau - main) ** 2, axis=1)
    variance = np.mean(np.sum((p - main[None]) ** 2, axis=2), axis=0)
    loss = np.mean(np.sum((tau[None] - p) ** 2, axis=2), axis=0)
    # Bessel's correction of the variance the plug-in bias carries (derivation above)
    unbiased = bias - variance / (n_repeat - 1) if n_repeat > 1 else np.full_like(bias, np.nan)
    mean = (lambda a: float(a.mean())) if n_samples else (lambda a: np.nan)
    samples = (_dims.SAMPLE,)
    rng = (0.0, 2.0)
    variables = {
        "bias": Var(
            (), mean(bias), "mean bias of probability estimates", valid_range=rng, cite=CITE_FAN
        ),
        "variance": Var(
            (),
            mean(variance),
            "mean variance of probability estimates",
            valid_range=rng,
            cite=CITE_FAN,
        ),
        "loss": Var(
            (),
            mean(loss),
            "mean squared loss of probability estimates",
            valid_range=rng,
            cite=CITE_FAN,
            description="loss = bias + variance",
        ),
        "bias_unbiased": Var(
            (),
            mean(unbiased),
            "mean bias of probability estimates, unbiased estimator",
            valid_range=(-2.0, 2.0),
            cite=CITE_FAN,
            description="bias - variance / (K - 1): the plug-in bias less the share of "
            "variance it carries; NaN for K = 1",
        ),
        "sample_bias": Var(samples, bias, "bias per row", valid_range=rng, cite=CITE_FAN),
        "sample_bias_unbiased": Var(
            samples, unbiased, "unbiased bias per row", valid_range=(-2.0, 2.0), cite=CITE_FAN
        ),
        "sample_variance": Var(
            samples, variance, "variance per row", valid_range=rng, cite=CITE_FAN
        ),
        "sample_loss": Var(samples, loss, "squared loss per row", valid_range=rng, cite=CITE_FAN),
        "main_prediction": Var(
            (_dims.SAMPLE, _dims.CLASS),
            main,
            "main prediction p_m (mean over repeats)",
            valid_range=(0.0, 1.0),
            cite=CITE_FAN,
        ),
    }
    coords = {**t_coords, **coords}
    coords.pop(_dims.REPEAT, None)
    return to_dataset(
        variables,
        function="bias_variance",
        params={"n_repeat": n_repeat, "target": "labels" if np.ndim(target) == 1 else "proba"},
        coords=coords,
    )
