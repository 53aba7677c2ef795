"""The bias-variance-diversity decomposition of a regression ensemble (Wood et al. 2023) for
the squared and the Poisson loss, and the K-training-sets protocol that feeds it
(:func:`repeated_member_outputs`).

Member outputs have dims (repeat, tree, sample): M members trained on each of K training
sets, predicting the same test rows. Every term is computed from its own definition; that
the terms sum to the directly measured loss is checked by the tests, not built in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import Var, to_dataset
from treelab.analysis._regression_members import (
    check_outputs,
    stack_repeats,
    tree_sample_coords,
    values_on,
)

__all__ = ["bias_variance_diversity", "check_values", "repeated_member_outputs"]

CITE_WOOD_REGRESSION = (
    "Wood, Mu, Webb, Reeve, Lujan & Brown (2023), A unified theory of diversity in ensemble "
    "learning, JMLR 24(359): the squared-loss and Bregman-divergence (Poisson) "
    "bias-variance-diversity decompositions"
)
CITE_KROGH_VEDELSBY = ("Krogh & Vedelsby (1995), Neural network ensembles, cross validation, "
                       "and active learning, NIPS 7")
CITE_UEDA_NAKANO = ("Ueda & Nakano (1996), Generalization error of ensemble estimators, "
                    "ICNN, eq. (9)")
CITE_LOUPPE = ("Louppe (2014), Understanding random forests: from theory to practice, PhD "
               "thesis, University of Liege, section 4.2.2 (Theorem 4.3)")
_LOSSES = ("squared", "poisson")
_REPEAT_DIMS = (_dims.REPEAT, _dims.TREE, _dims.SAMPLE)


def check_values(outputs: Any, target: Any, name: str, target_name: str | None
                 ) -> tuple[np.ndarray, np.ndarray | None, dict]:
    """Member outputs (repeat, tree, sample) and a target (sample,), both finite float64,
    with a message naming the argument that is wrong, and the ``tree`` and ``sample`` labels
    the outputs carry (a result's per-row values keep them)."""
    if isinstance(outputs, list | tuple) and outputs and not np.isscalar(outputs[0]) and (
            hasattr(outputs[0], "predict") or hasattr(outputs[0], "estimators_")):
        raise TypeError(f"{name} must be member outputs (repeat, tree, sample); of K fitted "
                        "models, numpy.stack([treelab.analysis.regression_outputs(m, X) for m "
                        "in models]) (bias_variance_diversity_regression and "
                        "diagnose_regression(models=) also take the models with X); "
                        "repeated_member_outputs fits an unfitted estimator on K training "
                        "sets")
    f, coords = check_outputs(outputs, name, _REPEAT_DIMS)
    coords = tree_sample_coords(coords)
    if target is None:
        return f, None, coords
    t = values_on(target, target_name, coords, name)
    if t.dtype.kind not in "fiub":
        raise TypeError(f"{target_name} must hold real numbers, got dtype {t.dtype}")
    t = t.astype(np.float64)
    if t.shape[0] != f.shape[2]:
        raise ValueError(f"{target_name} has {t.shape[0]} values but {name} has "
                         f"{f.shape[2]} samples")
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{target_name} holds NaN or infinite values")
    return f, t, coords


def _poisson_divergence(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """D(a, b) = a log(a / b) - a + b, the Bregman divergence of phi(u) = u log u - u (half
    the Poisson deviance), with 0 log 0 = 0; b > 0."""
    safe = np.where(a > 0, a, 1.0)
    return np.where(a > 0, a * (np.log(safe) - np.log(b)), 0.0) - a + b


def bias_variance_diversity(outputs: Any, y: Any, *, loss: str = "squared",
                            target: Any = None, X: Any = None) -> xr.Dataset:
    """Bias-variance-diversity decomposition of a regression ensemble (Wood et al. 2023).

    Member outputs f_i (i = 1..M) from K training sets D, E_D the mean over training sets,
    y the observed value on each row and y* the target the terms are measured against: the
    true function E[y|x] (``target=``) when known, else y itself. A loss that is a Bregman
    divergence D_phi(y, f) has a centroid combiner f_bar, with phi'(f_bar) = (1/M) sum_i
    phi'(f_i), member centroids f°_i with phi'(f°_i) = E_D phi'(f_i), and per row, exactly,

        E_D D(y, f_bar) = noise + noise_cross + average_bias + average_variance - diversity

    with average_bias = (1/M) sum_i D(y*, f°_i), average_variance = (1/M) sum_i
    E_D D(f°_i, f_i), diversity = E_D (1/M) sum_i D(f_bar, f_i), noise = D(y, y*) and
    noise_cross = (y - y*)(phi'(y*) - E_D phi'(f_bar)) (zero in expectation over y given x;
    on a finite test set it is what the observed y adds beyond its noise).

    ``loss="squared"``: D(y, f) = (y - f)^2, f_bar and f°_i are arithmetic means.

    ``loss="poisson"``: D(y, f) = y log(y / f) - y + f (half the Poisson deviance; y >= 0,
    f > 0), f_bar and f°_i are geometric means. A forest averages arithmetically: its loss
    E_D D(y, a) with a = (1/M) sum_i f_i differs from the geometric ensemble's by the
    ``non_centroid`` term E_D[y log(f_bar / a) + a - f_bar], reported apart with
    ``expected_loss_arithmetic`` measured directly. It has either sign: >= 0 where y = 0
    (a >= f_bar), negative where y lies well above both means, whose larger a is then the
    closer (y = 10, members 1 and 9: -3.11).

    Without ``target`` the noise cannot be told apart: y* = y, and the bias against y
    (which holds the noise) is reported as ``bias_with_noise``, never as ``average_bias``.

    Parameters
    ----------
    outputs : array-like or DataArray, (repeat, tree, sample), or list of fitted models
        Member outputs of models trained on K training sets (:func:`repeated_member_outputs`),
        or K fitted regression ensembles with ``X=`` (each with the same number of members).
    y : array-like, (sample,)
        Observed values on the test rows.
    loss : {"squared", "poisson"}
        The loss and its centroid combiner.
    target : array-like, (sample,), optional
        The true function E[y|x] on the test rows (a generator's, e.g. Friedman #1's);
        > 0 for the Poisson loss.
    X : array-like, (sample, feature), optional
        The test rows, when ``outputs`` is a list of fitted models.

    Returns
    -------
    xarray.Dataset
        Means over rows ``expected_loss``, ``noise`` and ``noise_cross`` (with ``target``),
        ``average_bias`` (with ``target``) or ``bias_with_noise`` (without),
        ``average_variance``, ``diversity``, ``expected_target_loss`` (E_D D(y*, f_bar), with
        ``target``), for Poisson ``expected_loss_arithmetic`` and ``non_centroid``; per-row
        ``sample_*`` versions; ``member_bias`` (or ``member_bias_with_noise``) and
        ``member_variance`` (tree). Attr ``noise`` says how the noise is reported.

    References
    ----------
    Wood, Mu, Webb, Reeve, Lujan & Brown (2023), A unified theory of diversity in ensemble
    learning, JMLR 24(359): squared loss (arithmetic mean) and Bregman divergences (centroid
    combiners; the Poisson loss and its geometric mean).

    Examples
    --------
    >>> from treelab.analysis.regression import bias_variance_diversity
    >>> out = [[[1.0, 2.0], [3.0, 2.0]], [[2.0, 2.0], [2.0, 4.0]]]
    >>> ds = bias_variance_diversity(out, [2.0, 3.0])
    >>> float(ds.expected_loss), float(ds.bias_with_noise), float(ds.diversity)
    (0.25, 0.375, 0.5)
    """
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {list(_LOSSES)}, got {loss!r}")
    if X is not None:
        outputs = stack_repeats(outputs, X)
    f, y_arr, coords = check_values(outputs, y, "outputs", "y")
    t = None if target is None else check_values(outputs, target, "outputs", "target")[1]
    if loss == "poisson":
        if f.min() <= 0:
            raise ValueError("outputs must be > 0 for loss='poisson' (the log of a member's "
                             "prediction is taken)")
        if y_arr.min() < 0:
            raise ValueError("y must be >= 0 for loss='poisson' (counts)")
        if t is not None and t.min() <= 0:
            raise ValueError("target must be > 0 for loss='poisson'")
        terms = _poisson(f, y_arr, t)
    else:
        terms = _squared(f, y_arr, t)
    return _build(terms, loss, t is not None, f.shape, coords)


def _squared(f: np.ndarray, y: np.ndarray, t: np.ndarray | None) -> dict[str, np.ndarray]:
    """f (repeat, tree, sample); y, t (sample,). D(a, b) = (a - b)^2, phi'(u) = 2u."""
    star = y if t is None else t
    f_bar = f.mean(axis=1)  # (repeat, sample)
    centroid = f.mean(axis=0)  # (tree, sample)
    terms = {
        "expected_loss": np.mean((y - f_bar) ** 2, axis=0),
        "member_bias": (centroid - star) ** 2,
        "member_variance": np.mean((f - centroid) ** 2, axis=0),
        "diversity": np.mean((f - f_bar[:, None, :]) ** 2, axis=(0, 1)),
    }
    if t is not None:
        terms["noise"] = (y - t) ** 2
        terms["noise_cross"] = 2.0 * (y - t) * (t - f_bar.mean(axis=0))
        terms["expected_target_loss"] = np.mean((t - f_bar) ** 2, axis=0)
    return terms


def _poisson(f: np.ndarray, y: np.ndarray, t: np.ndarray | None) -> dict[str, np.ndarray]:
    """f (repeat, tree, sample) > 0; y >= 0, t > 0 (sample,). phi'(u) = log u."""
    star = y if t is None else t
    log_f = np.log(f)
    log_bar = log_f.mean(axis=1)  # log of the geometric ensemble, (repeat, sample)
    g = np.exp(log_bar)
    log_cent = log_f.mean(axis=0)
    centroid = np.exp(log_cent)  # geometric mean over training sets, (tree, sample)
    arith = f.mean(axis=1)
    # D(a, b) = a (log a - log b) - a + b between positive outputs, from logs taken once and
    # in place: the full-size arrays' allocations and the log are the cost
    variance = np.subtract(log_cent, log_f)
    variance *= centroid
    variance -= centroid
    variance += f
    diversity = np.subtract(log_bar[:, None, :], log_f, out=log_f)
    diversity *= g[:, None, :]
    diversity -= g[:, None, :]
    diversity += f
    terms = {
        "expected_loss": np.mean(_poisson_divergence(y, g), axis=0),
        "member_bias": _poisson_divergence(star, centroid),
        "member_variance": variance.mean(axis=0),
        "diversity": diversity.mean(axis=(0, 1)),
        "expected_loss_arithmetic": np.mean(_poisson_divergence(y, arith), axis=0),
        "non_centroid": np.mean(y * (log_bar - np.log(arith)) + arith - g, axis=0),
    }
    if t is not None:
        terms["noise"] = _poisson_divergence(y, t)
        terms["noise_cross"] = (y - t) * (np.log(t) - log_bar.mean(axis=0))
        terms["expected_target_loss"] = np.mean(_poisson_divergence(t, g), axis=0)
    return terms


_TEXT = {
    "expected_loss": "expected loss of the (centroid-combined) ensemble over training sets",
    "noise": "noise D(y, E[y|x])",
    "noise_cross": "noise cross term (y - y*)(phi'(y*) - E_D phi'(f_bar)), zero in expectation",
    "average_bias": "average member bias against E[y|x]",
    "bias_with_noise": "average member bias against the observed y (holds the noise)",
    "average_variance": "average member variance",
    "diversity": "diversity",
    "expected_target_loss": "expected loss of the ensemble against E[y|x]",
    "expected_loss_arithmetic": "expected loss of the arithmetic-mean ensemble",
    "non_centroid": "loss of the arithmetic-mean ensemble less that of the geometric "
                    "(centroid) mean, of either sign",
}


def _build(terms: dict[str, np.ndarray], loss: str, has_target: bool, shape: tuple,
           coords: dict) -> xr.Dataset:
    bias = "average_bias" if has_target else "bias_with_noise"
    terms = dict(terms)
    member_bias = terms.pop("member_bias")
    member_var = terms.pop("member_variance")
    terms[bias] = member_bias.mean(axis=0)
    terms["average_variance"] = member_var.mean(axis=0)
    order = ["expected_loss", "noise", "noise_cross", bias, "average_variance", "diversity",
             "expected_target_loss", "expected_loss_arithmetic", "non_centroid"]
    desc = ("expected_loss = " + ("noise + noise_cross + " if has_target else "") + bias
            + " + average_variance - diversity")
    if loss == "poisson":
        desc += "; expected_loss_arithmetic = expected_loss + non_centroid"
    units = "squared units of y" if loss == "squared" else "1"
    cite = CITE_WOOD_REGRESSION
    variables = {}
    for key in [k for k in order if k in terms]:
        variables[key] = Var((), terms[key].mean(), f"{_TEXT[key]}, mean over rows", units,
                             cite=cite, description=desc)
    for key in [k for k in order if k in terms]:
        variables[f"sample_{key}"] = Var((_dims.SAMPLE,), terms[key], f"{_TEXT[key]} per row",
                                         units, cite=cite)
    variables["member_" + ("bias" if has_target else "bias_with_noise")] = Var(
        (_dims.TREE,), member_bias.mean(axis=1), "bias of each member, mean over rows", units,
        cite=cite)
    variables["member_variance"] = Var((_dims.TREE,), member_var.mean(axis=1),
                                       "variance of each member, mean over rows", units,
                                       cite=cite)
    ds = to_dataset(variables, function="regression.bias_variance_diversity",
                    params={"loss": loss, "target": has_target, "n_repeat": shape[0],
                            "n_trees": shape[1]}, coords=coords)
    ds.attrs["noise"] = ("reported apart: noise and noise_cross against the given target"
                         if has_target else "no target given: the noise is inside "
                         "bias_with_noise (pass target= to report it apart)")
    return ds


def repeated_member_outputs(estimator: Any, X: Any, y: Any, X_test: Any,
                            n_repeats: int = 5, *, sampling: str = "bootstrap",
                            train_fraction: float = 0.5, random_state: int = 0
                            ) -> xr.DataArray:
    """Member outputs (repeat, tree, sample) of ``estimator`` fitted on K training sets drawn
    from (``X``, ``y``), on the rows ``X_test``: the input of the decompositions over
    training sets.

    Training set k is a bootstrap sample of the rows (``sampling="bootstrap"``) or a
    subsample without replacement of ``train_fraction`` of them (``"subsample"``), drawn from
    ``numpy.random.default_rng(random_state)``; each fit is a ``sklearn.base.clone`` of
    ``estimator`` with ``random_state`` set to a seed drawn from the same generator (where
    the estimator has that parameter), so equal arguments give equal outputs.

    Parameters
    ----------
    estimator : unfitted regression ensemble
        Anything :func:`treelab.analysis.regression_outputs` reads once fitted.
    X, y : array-like
        The pool of training rows and their values.
    X_test : array-like, (sample, feature)
        The rows every fitted model predicts.
    n_repeats : int, default 5
        K, the number of training sets.
    sampling : {"bootstrap", "subsample"}
        How each training set is drawn.
    train_fraction : float, default 0.5
        Share of the rows in a subsample.
    random_state : int, default 0
        Seed of the draws.

    Returns
    -------
    xarray.DataArray
        ``member_predictions`` (repeat, tree, sample).

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> from treelab.analysis import repeated_member_outputs
    >>> X, y = make_friedman1(80, random_state=0)
    >>> out = repeated_member_outputs(RandomForestRegressor(n_estimators=3), X, y, X[:5], 2)
    >>> out.sizes
    Frozen({'repeat': 2, 'tree': 3, 'sample': 5})
    """
    from sklearn.base import clone

    if sampling not in ("bootstrap", "subsample"):
        raise ValueError(f"sampling must be 'bootstrap' or 'subsample', got {sampling!r}")
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, int | np.integer) or \
            n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}")
    if not 0 < train_fraction <= 1:
        raise ValueError(f"train_fraction must be in (0, 1], got {train_fraction!r}")
    from treelab.analysis._model_checks import check_y_values

    n = int(np.shape(X)[0])
    check_y_values(y, n)
    rng = np.random.default_rng(random_state)
    take = (lambda idx: X.iloc[idx]) if hasattr(X, "iloc") else (lambda idx: np.asarray(X)[idx])
    y_arr = np.asarray(y)
    models = []
    for _ in range(int(n_repeats)):
        if sampling == "bootstrap":
            rows = rng.integers(0, n, size=n)
        else:
            rows = rng.choice(n, size=max(1, int(round(train_fraction * n))), replace=False)
        seed = int(rng.integers(0, np.iinfo(np.int32).max))
        model = clone(estimator)
        if "random_state" in model.get_params():
            model.set_params(random_state=seed)
        models.append(model.fit(take(rows), y_arr[rows]))
    values = stack_repeats(models, X_test)
    var = Var(_REPEAT_DIMS, values, "member predictions", units="units of y",
              description="member i of the model fitted on training set k")
    ds = to_dataset({"member_predictions": var}, function="repeated_member_outputs",
                    params={"estimator": type(estimator).__name__, "n_repeats": n_repeats,
                            "sampling": sampling, "train_fraction": train_fraction,
                            "random_state": random_state}, coords={})
    out = ds["member_predictions"]
    out.attrs = {**ds.attrs, **out.attrs}
    return out
