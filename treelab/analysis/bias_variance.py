"""Bias-variance decomposition of probability estimates (Fan et al. 2005)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_FAN
from treelab.analysis._dataset import (
    Var,
    align_to,
    as_array,
    check_proba,
    encode_labels,
    to_dataset,
)

__all__ = ["bias_variance"]


def bias_variance(probas: Any, target: Any, *, classes: Any = None) -> xr.Dataset:
    """Decompose the squared loss of probability estimates into bias and variance.

    The method is trained on K training sets and predicts the same test rows, giving K
    probability vectors p_k(x) per row. With target tau(x):

    * main prediction p_m(x) = mean_k p_k(x);
    * bias(x) = sum_c (tau_c(x) - p_m,c(x))^2;
    * variance(x) = mean_k sum_c (p_k,c(x) - p_m,c(x))^2;
    * loss(x) = mean_k sum_c (tau_c(x) - p_k,c(x))^2 = bias(x) + variance(x).

    ``loss`` is computed directly from its definition, so the identity is a check, not a
    construction.

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
        ``bias``, ``variance``, ``loss`` (means over rows), their per-row versions
        ``sample_bias``, ``sample_variance``, ``sample_loss`` (dim sample) and
        ``main_prediction`` (sample, class).

    References
    ----------
    Fan, Greengrass, McCloskey, Yu & Drummey (2005), section 4.
    """
    p, coords = as_array(probas, "probas", (_dims.REPEAT, _dims.SAMPLE, _dims.CLASS))
    p = check_proba(p, "probas")
    n_repeat, n_samples, n_classes = p.shape
    if n_repeat < 1:
        raise ValueError("probas needs at least one repeat")
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
        "sample_bias": Var(samples, bias, "bias per row", valid_range=rng, cite=CITE_FAN),
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
