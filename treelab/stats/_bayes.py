"""Bayesian comparisons of two methods with a region of practical equivalence (rope).

* :func:`bayesian_signed_rank`: two methods over several data sets, the Bayesian signed-rank
  test (Benavoli, Corani, Demsar & Zaffalon 2017), a Dirichlet-process posterior of the
  differences with a prior pseudo-observation at 0;
* :func:`bayesian_correlated_t`: two methods on one data set from (repeated) cross-validation,
  the correlated Bayesian t test (Corani & Benavoli 2015), a Student posterior of the mean
  difference with Nadeau and Bengio's correlation rho = n_test / n_total.

Both answer the question a p-value does not: how probable is it that ``a`` is practically
better than ``b``, practically equivalent to it (the difference lies inside the rope), or
practically worse. They take the runner's results like the other tests of
:mod:`treelab.stats` and return the posterior probabilities with the posterior samples that
:func:`treelab.plot.posterior_simplex` and :func:`treelab.plot.posterior_t` draw.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.stats
import xarray as xr

from treelab.analysis._dataset import Var
from treelab.stats._common import build, check_flag, value_table
from treelab.stats._paired import _outer, _paired_differences
from treelab.stats._ties import row_tolerance, snap_rows

__all__ = ["bayesian_correlated_t", "bayesian_signed_rank"]

CITE_SIGNED_RANK = (
    "Benavoli, Corani, Demsar & Zaffalon (2017), Time for a change: a tutorial for comparing "
    "multiple classifiers through Bayesian analysis, JMLR 18(77)"
)
CITE_CORRELATED_T = (
    "Corani & Benavoli (2015), A Bayesian approach for comparing cross-validated algorithms "
    "on multiple data sets, Machine Learning 100; Nadeau & Bengio (2003), Machine Learning 52"
)
#: The three regions of a posterior, in the order of the ``region`` dim.
REGIONS = ("a_better", "rope", "b_better")
DRAW = "draw"
REGION = "region"


def check_rope(rope: Any) -> float:
    """The half-width of the region of practical equivalence: a number >= 0."""
    if isinstance(rope, bool) or not isinstance(rope, numbers.Real):
        raise TypeError(f"rope must be a non-negative number (the half-width of the region of "
                        f"practical equivalence, in the measure's units), got {rope!r}")
    rope = float(rope)
    if not (np.isfinite(rope) and rope >= 0.0):
        raise ValueError(f"rope must be a finite number >= 0, got {rope}")
    return rope


def _check_count(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int >= {low}, got {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value}")
    return int(value)


def _check_seed(random_state: Any) -> int:
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) \
            or int(random_state) < 0:
        raise TypeError(f"random_state must be a non-negative int (the posterior samples are "
                        f"seeded so that a result can be reproduced), got {random_state!r}")
    return int(random_state)


def signed_rank_posterior(
    diff: np.ndarray, rope: float, *, prior: float, n_samples: int, rng: np.random.Generator
) -> np.ndarray:
    """Posterior samples (n_samples, 3) of (P(d < -rope), P(|d| <= rope), P(d > rope)).

    Benavoli et al. (2017), section 4.2: the differences z_1..z_n and a pseudo-observation
    z_0 = 0 of weight ``prior`` get Dirichlet(prior, 1, ..., 1) weights w; a posterior sample
    of the three regions' probabilities is

        theta_right = sum_i sum_j w_i w_j I(z_i + z_j > 2 rope),
        theta_left  = sum_i sum_j w_i w_j I(z_i + z_j < -2 rope),
        theta_rope  = sum_i sum_j w_i w_j I(-2 rope <= z_i + z_j <= 2 rope)
                    = 1 - theta_left - theta_right,

    over the Walsh averages (z_i + z_j) / 2 (i = j included). The rope is the closed interval
    [-2 rope, 2 rope] of the paper's definition: a sum exactly on a bound is in the rope, and
    with ``rope = 0`` theta_rope is the weight of the sums that are exactly 0 (ties). baycomp
    counts a sum on a bound half left or right instead, which with ``rope = 0`` splits every
    tie between the two methods and leaves the rope empty.
    """
    z = np.concatenate([[0.0], diff])
    sums = z[:, None] + z[None, :]
    right = (sums > 2 * rope).astype(np.float64)
    left = (sums < -2 * rope).astype(np.float64)
    alpha = np.ones(z.size)
    alpha[0] = prior
    w = rng.dirichlet(alpha, size=n_samples)
    p_right = np.einsum("si,ij,sj->s", w, right, w, optimize=True)
    p_left = np.einsum("si,ij,sj->s", w, left, w, optimize=True)
    return np.stack([p_left, 1.0 - p_left - p_right, p_right], axis=1)


def _probability_vars(samples: np.ndarray, dims: tuple[str, ...], cite: str,
                      what: str) -> dict[str, Var]:
    """P(a better), P(rope), P(b better) from region samples (..., draw, region) for the
    signed-rank test: the share of draws in which the region is the most probable one, a draw
    whose largest probability is shared (up to float rounding) counted in equal parts to the
    regions that share it."""
    flat = samples.reshape(-1, samples.shape[-1])
    # argmax would hand a tie to the first region, "a better": a tie is no win for either
    top = flat.max(axis=-1, keepdims=True)
    tied = (flat >= top - row_tolerance(flat)[:, None]).astype(np.float64)
    parts = (tied / tied.sum(axis=-1, keepdims=True)).reshape(samples.shape)
    share = [parts[..., r].mean(axis=-1) for r in range(3)]
    names = ("p_a_better", "p_rope", "p_b_better")
    labels = ("posterior probability that a is practically better than b",
              "posterior probability that a and b are practically equivalent",
              "posterior probability that b is practically better than a")
    return {n: Var(dims, s, label, valid_range=(0.0, 1.0), cite=cite, description=what)
            for n, s, label in zip(names, share, labels, strict=True)}


def bayesian_signed_rank(
    results: xr.Dataset | xr.DataArray,
    a: Any,
    b: Any,
    *,
    rope: float,
    prior: float = 0.5,
    n_samples: int = 50_000,
    random_state: int = 0,
    dim_dataset: str = "dataset",
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> xr.Dataset:
    """Bayesian signed-rank test of ``a`` against ``b`` over data sets (Benavoli et al. 2017).

    The values are averaged over ``repeat`` and ``fold`` (one per data set and method, as for
    :func:`treelab.stats.friedman`), and the differences z_i = value(a) - value(b) over the n
    data sets are modelled by a Dirichlet process whose base measure is a point mass at 0 of
    strength ``prior`` (the pseudo-observation that makes the test conservative). A posterior
    draw gives Dirichlet(prior, 1, ..., 1) weights w to (0, z_1, ..., z_n) and the
    probabilities of the three regions

        theta_left  = sum_{i,j} w_i w_j I(z_i + z_j < -2 rope),
        theta_right = sum_{i,j} w_i w_j I(z_i + z_j > 2 rope),
        theta_rope  = 1 - theta_left - theta_right

    (Walsh averages, i = j included). The rope is closed, as in the paper: a Walsh sum
    exactly on a bound (+-2 rope) is in the rope, and values of a and b that differ only by
    floating-point rounding (see :func:`treelab.stats.friedman`) are equal, so their difference
    is 0. The reported posterior probability of a region is the share of draws in which it is
    the most probable of the three, as in baycomp's ``SignedRankTest.probs``; a draw in which
    two or three regions are equally probable counts in equal parts to each of them (not as
    a win of the first). With errors (lower is better) "a better" is the left region,
    z < -rope; with ``greater_is_better`` it is the right one.

    Assumptions: the data sets are independent draws from one population of problems, and
    the differences are exchangeable; no distribution is assumed (a nonparametric test). Use
    it to compare two methods over many data sets (it replaces the Wilcoxon signed-rank test
    over data sets); on one data set use :func:`bayesian_correlated_t`.

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        Values with dims ``dim_dataset`` and ``dim_method`` (and optionally ``repeat``,
        ``fold``, ``alpha``: see :func:`treelab.stats.friedman`), e.g. the result of
        :func:`treelab.experiment.run`.
    a, b : coordinate values
        The two methods.
    rope : float
        Half-width of the region of practical equivalence, in the measure's units (0.01: one
        percentage point of error). 0 gives no rope: theta_rope is then the weight of the
        Walsh sums that are exactly 0 (ties), so two methods with equal values on every data
        set get P(rope) = 1.
    prior : float, default 0.5
        Strength of the prior pseudo-observation at 0 (baycomp's default; Benavoli et al.
        use 0.5 or 1).
    n_samples : int, default 50000
        Posterior draws.
    random_state : int, default 0
        Seed of the draws: the same seed gives the same samples.
    dim_dataset, dim_method, var : str
        The data-set dim, the method dim and the variable taken from a Dataset.
    greater_is_better : bool, default False
        True for accuracies: "a better" is then z > rope.

    Returns
    -------
    xarray.Dataset
        ``p_a_better``, ``p_rope``, ``p_b_better`` (scalars, summing to 1),
        ``samples`` (draw, region) with regions ``a_better``, ``rope``, ``b_better`` (the
        draws of theta: points of the simplex :func:`treelab.plot.posterior_simplex` draws),
        ``difference`` (dataset: value(a) - value(b)), ``mean_difference``, ``n_datasets``.

    References
    ----------
    Benavoli, Corani, Demsar & Zaffalon (2017), JMLR 18(77), section 4.2; baycomp's
    ``SignedRankTest``.

    Examples
    --------
    >>> import xarray as xr
    >>> errors = xr.DataArray([[0.10, 0.15], [0.20, 0.26], [0.30, 0.32], [0.12, 0.20]],
    ...                       dims=("dataset", "ensemble"),
    ...                       coords={"ensemble": ["A", "B"]})
    >>> res = bayesian_signed_rank(errors, "A", "B", rope=0.01, n_samples=2000)
    >>> bool(res.p_a_better > 0.5)
    True
    """
    rope = check_rope(rope)
    if isinstance(prior, bool) or not isinstance(prior, numbers.Real) or not prior > 0:
        raise ValueError(f"prior must be a number > 0 (the weight of the pseudo-observation "
                         f"at 0), got {prior!r}")
    n_samples = _check_count(n_samples, "n_samples", 1)
    seed = _check_seed(random_state)
    greater_is_better = check_flag(greater_is_better, "greater_is_better")
    table, datasets, methods, dropped = value_table(
        results, var=var, dim_dataset=dim_dataset, dim_method=dim_method, name="results")
    found = []
    for name, value in (("a", a), ("b", b)):
        where = [i for i, m in enumerate(methods) if m == value]
        if not where:
            raise ValueError(f"{name}={value!r} is not a method of {dim_method!r} with values "
                             f"({methods.tolist()}; without any value: {dropped})")
        found.append(where[0])
    if found[0] == found[1]:
        raise ValueError(f"a and b must be two different methods; got {a!r} twice")
    pair = snap_rows(table[:, found])  # float-noise ties exact: a difference of 0
    diff = pair[:, 0] - pair[:, 1]
    if diff.size < 2:
        raise ValueError(f"results must hold at least 2 data sets along {dim_dataset!r}, got "
                         f"{diff.size}")
    # the posterior is of value(a) - value(b); for errors "a better" is the left region
    oriented = -diff if greater_is_better else diff
    samples = signed_rank_posterior(oriented, rope, prior=float(prior), n_samples=n_samples,
                                    rng=np.random.default_rng(seed))
    cite = CITE_SIGNED_RANK
    what = ("share of posterior draws in which the region is the most probable of the three "
            "(baycomp's SignedRankTest.probs)")
    variables = _probability_vars(samples, (), cite, what)
    variables.update({
        "samples": Var((DRAW, REGION), samples, "posterior draws of the probabilities of the "
                       "regions (a better, rope, b better)", valid_range=(0.0, 1.0), cite=cite),
        "difference": Var((dim_dataset,), diff, "value(a) - value(b) per data set", units="",
                          cite=cite),
        "mean_difference": Var((), float(diff.mean()), "mean over data sets of value(a) - "
                               "value(b)", units="", cite=cite),
        "n_datasets": Var((), diff.size, "number of data sets n", units="", cite=cite),
    })
    params = {"a": a, "b": b, "rope": rope, "prior": float(prior), "n_samples": n_samples,
              "random_state": seed, "dim_dataset": dim_dataset, "dim_method": dim_method,
              "var": var, "greater_is_better": greater_is_better, "dropped_methods": dropped}
    coords = {dim_dataset: datasets, REGION: np.array(REGIONS)}
    return build(variables, function="bayesian_signed_rank", params=params, coords=coords)


def correlated_t_posterior(diff: np.ndarray, rho: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Location, scale and degrees of freedom of the correlated t posterior over the last axis.

    Corani & Benavoli (2015), eq. 7-8 with the noninformative prior: mu | d ~ Student(n - 1,
    d_bar, sqrt((1/n + rho / (1 - rho)) s^2)), s^2 the sample variance (ddof 1) of the n
    differences and rho the correlation of two resamples' differences.
    """
    n = diff.shape[-1]
    mean = diff.mean(axis=-1)
    var = diff.var(axis=-1, ddof=1)
    scale = np.sqrt((1.0 / n + rho / (1.0 - rho)) * var)
    return mean, scale, n - 1


def bayesian_correlated_t(
    results: xr.Dataset | xr.DataArray,
    a: Any,
    b: Any,
    *,
    rope: float,
    test_fraction: float,
    n_samples: int = 50_000,
    random_state: int = 0,
    dim_method: str = "ensemble",
    var: str = "ensemble_error",
    greater_is_better: bool = False,
) -> xr.Dataset:
    """Correlated Bayesian t test of ``a`` against ``b`` per data set (Corani & Benavoli 2015).

    The n paired differences d_j = value(a) - value(b) over the resamples (``repeat`` x
    ``fold``) are modelled as normal with mean mu and a correlation rho between any two of
    them (their training sets overlap); with Nadeau & Bengio's rho = n_test / n_total (the
    ``test_fraction``, 1/k for k-fold cross-validation) and the noninformative prior the
    posterior of mu is Student's t

        mu | d ~ t(df = n - 1, loc = d_bar, scale = sqrt((1/n + rho / (1 - rho)) s^2)),

    with d_bar the mean and s^2 the sample variance (ddof 1) of the differences. The
    probabilities of the regions are that t's mass below -rope, between -rope and rope, and
    above rope (closed form, not sampled); ``samples`` holds seeded draws of mu for plots.
    With errors "a better" is mu < -rope; with ``greater_is_better`` mu > rope. The rope is
    closed, |mu| <= rope, as in :func:`bayesian_signed_rank`. s^2 = 0 makes the posterior a
    point mass at d_bar (its probabilities 0 or 1): identical methods on every resample get
    P(rope) = 1, also with ``rope=0``.

    Assumptions: the differences are normal with equal variance and equal correlation rho;
    rho = n_test / n_total is Nadeau and Bengio's heuristic, not an estimate. Use it on one
    data set from (repeated) cross-validation; over several data sets use
    :func:`bayesian_signed_rank` on the mean differences.

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        Values with dims ``dim_method`` and ``repeat`` and/or ``fold``; every coordinate of
        the other dims (usually ``dataset``) gets its own test.
    a, b : coordinate values
        The two methods.
    rope : float
        Half-width of the region of practical equivalence, in the measure's units.
    test_fraction : float
        n_test / n_total = rho, the share of rows held out per resample (1/k for k-fold).
    n_samples : int, default 50000
        Posterior draws of mu in ``samples``.
    random_state : int, default 0
        Seed of the draws.
    dim_method, var : str
        The method dim and the variable taken from a Dataset.
    greater_is_better : bool, default False
        True for accuracies.

    Returns
    -------
    xarray.Dataset
        Per coordinate of the other dims: ``p_a_better``, ``p_rope``, ``p_b_better``,
        ``mean_difference`` (d_bar, the posterior location), ``scale`` (the posterior scale),
        ``samples`` (..., draw) of mu; scalars ``df`` (n - 1) and ``rho``.

    References
    ----------
    Corani & Benavoli (2015), Machine Learning 100, 285-304; Nadeau & Bengio (2003); Benavoli
    et al. (2017), section 3; baycomp's ``CorrelatedTTest``.

    Examples
    --------
    >>> import xarray as xr
    >>> errors = xr.DataArray([[0.10, 0.12, 0.11, 0.09, 0.10], [0.14, 0.15, 0.13, 0.15, 0.14]],
    ...                       dims=("ensemble", "fold"), coords={"ensemble": ["A", "B"]})
    >>> res = bayesian_correlated_t(errors, "A", "B", rope=0.01, test_fraction=0.2)
    >>> round(float(res.p_a_better), 3)
    0.976
    """
    rope = check_rope(rope)
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, numbers.Real):
        raise TypeError(f"test_fraction must be a number in (0, 1), got {test_fraction!r}")
    rho = float(test_fraction)
    if not 0.0 < rho < 1.0:
        raise ValueError(f"test_fraction must lie in (0, 1) (n_test / n_total), got {rho}")
    n_samples = _check_count(n_samples, "n_samples", 1)
    seed = _check_seed(random_state)
    greater_is_better = check_flag(greater_is_better, "greater_is_better")
    diff = _paired_differences(results, a, b, dim_method=dim_method, var=var)
    dims, coords = _outer(diff)
    d = np.asarray(diff.values, dtype=np.float64)
    if d.shape[-1] < 2:
        raise ValueError(f"results must hold at least 2 resamples per test; got {d.shape[-1]}")
    mean, scale, df = correlated_t_posterior(d, rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        # s^2 = 0: a point mass at d_bar, which lies in the closed rope [-rope, rope] or
        # outside it; halving a mass on a bound left identical methods at rope = 0 with
        # P(rope) = 0 and P(a better) = P(b better) = 1/2
        below = np.where(scale > 0, scipy.stats.t.cdf(-rope, df, mean, scale),
                         (mean < -rope).astype(np.float64))
        above = np.where(scale > 0, scipy.stats.t.sf(rope, df, mean, scale),
                         (mean > rope).astype(np.float64))
    p_better, p_worse = (above, below) if greater_is_better else (below, above)
    rng = np.random.default_rng(seed)
    draws = mean[..., None] + scale[..., None] * rng.standard_t(df, size=(*mean.shape,
                                                                           n_samples))
    cite = CITE_CORRELATED_T
    variables = {
        "p_a_better": Var(dims, p_better, "posterior probability that a is practically "
                          "better than b", valid_range=(0.0, 1.0), cite=cite),
        "p_rope": Var(dims, 1.0 - below - above, "posterior probability that |mu| <= rope",
                      valid_range=(0.0, 1.0), cite=cite),
        "p_b_better": Var(dims, p_worse, "posterior probability that b is practically better "
                          "than a", valid_range=(0.0, 1.0), cite=cite),
        "mean_difference": Var(dims, mean, "mean of value(a) - value(b) (posterior location)",
                               units="", cite=cite),
        "scale": Var(dims, scale, "scale of the Student posterior of mu", units="",
                     cite=cite),
        "samples": Var((*dims, DRAW), draws, "posterior draws of mu, the mean of value(a) - "
                       "value(b)", units="", cite=cite),
        "df": Var((), df, "degrees of freedom n - 1", units="", cite=cite),
        "rho": Var((), rho, "correlation rho = n_test / n_total (Nadeau & Bengio)", units="",
                   cite=cite),
    }
    params = {"a": a, "b": b, "rope": rope, "test_fraction": rho, "n_samples": n_samples,
              "random_state": seed, "dim_method": dim_method, "var": var,
              "greater_is_better": greater_is_better}
    return build(variables, function="bayesian_correlated_t", params=params, coords=coords)
