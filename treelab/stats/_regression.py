"""Least-squares fit of the error ratio on the error correlation (Ali & Pazzani 1995)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.stats
import xarray as xr

from treelab.analysis._cite import CITE_ALI_PAZZANI
from treelab.analysis._dataset import Var
from treelab.stats._common import RESAMPLING_DIMS, build

__all__ = ["fit_error_ratio"]

_CITE_FISHER = "Fisher (1921) z transform of the correlation coefficient"


def _as_dataarray(value: Any, name: str) -> xr.DataArray:
    if isinstance(value, xr.Dataset):
        raise TypeError(f"{name} must be an array or DataArray, got a Dataset (pick a variable)")
    if isinstance(value, xr.DataArray):
        da = value
    else:
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric array-like: {exc}") from None
        da = xr.DataArray(arr.ravel(), dims=("point",))
    if da.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold numbers, got dtype {da.dtype}")
    return da.astype(np.float64)


def _ols(x: np.ndarray, y: np.ndarray, level: float) -> dict[str, float]:
    """OLS of y on x with statsmodels, plus Pearson r and its Fisher-z interval."""
    import statsmodels.api as sm

    n = x.size
    if np.ptp(y) == 0:
        # a constant response: the fit is that flat line exactly (no residual, so a slope
        # standard error of 0), and r, r^2 and the slope's t are 0 / 0; statsmodels' float
        # noise made them r^2 = -inf and p = 0.91
        return {"slope": 0.0, "intercept": float(y[0]), "r": np.nan, "r_squared": np.nan,
                "r_low": np.nan, "r_high": np.nan, "p_value": np.nan, "slope_stderr": 0.0,
                "n": n}
    model = sm.OLS(y, sm.add_constant(x, has_constant="add")).fit()
    intercept, slope = (float(v) for v in model.params)
    r2 = float(model.rsquared)
    r = float(np.sign(slope) * np.sqrt(max(r2, 0.0)))
    if n > 3 and np.isfinite(r) and abs(r) < 1:
        z = np.arctanh(r)
        half = scipy.stats.norm.isf((1.0 - level) / 2.0) / np.sqrt(n - 3.0)
        lo, hi = float(np.tanh(z - half)), float(np.tanh(z + half))
    elif np.isfinite(r) and abs(r) == 1:
        lo = hi = r
    else:
        lo = hi = np.nan
    with np.errstate(all="ignore"):
        p_value = float(model.pvalues[1]) if n > 2 else np.nan
        stderr = float(model.bse[1]) if n > 2 else np.nan
    return {"slope": slope, "intercept": intercept, "r": r, "r_squared": r2, "r_low": lo,
            "r_high": hi, "p_value": p_value, "slope_stderr": stderr, "n": n}


def fit_error_ratio(
    phi_e: Any,
    error_ratio: Any,
    *,
    groupby: str | None = None,
    confidence: float = 0.95,
    average_over: tuple[str, ...] = RESAMPLING_DIMS,
) -> xr.Dataset:
    """Least-squares fit of the error ratio E_r on the error correlation phi_e, with r^2.

    Fits E_r = intercept + slope * phi_e by ordinary least squares (statsmodels ``OLS``) over
    the points (one per data set, usually), and reports

    * r^2 (``rsquared``) and Pearson's r = sign(slope) sqrt(r^2);
    * the p-value of the slope's t test (H0: slope = 0, which is H0: r = 0), n - 2 df;
    * a ``confidence`` interval for r by Fisher's z transform: z = atanh(r),
      tanh(z -+ z_{(1 + confidence) / 2} / sqrt(n - 3)) (needs n > 3 points).

    Ali & Pazzani (1995) relate the two across data sets: E_r grows with phi_e, so ensembles
    whose members make different errors reduce error the most. (Compare a fit with the values
    the study prints for its own data sets and combination functions, not with a range quoted
    second-hand.)

    Points where either value is NaN (E_r is NaN where the single model makes no error) are
    left out; ``n`` counts the points used. A constant E_r over the points is fitted exactly by
    slope 0 and that value as intercept (``slope_stderr`` 0); r, r^2, the interval and the
    p-value are then 0 / 0 and NaN. A constant phi_e is refused (the slope is undefined).

    Parameters
    ----------
    phi_e : array-like or DataArray
        Error correlation per point (e.g. ``result.phi_e``).
    error_ratio : array-like or DataArray
        Error ratio E_e / E_s per point, paired with ``phi_e`` by coordinate: DataArrays must
        have the same dims and the same coordinate labels (in any order), arrays the same
        shape; anything else is a ``ValueError``, never an outer product or a silent
        inner join.
    groupby : str, optional
        A dim of the inputs; one fit per coordinate (e.g. ``"ensemble"`` for one fit per
        combination function). Default: one fit over all points.
    confidence : float, default 0.95
        Level of the interval for r.
    average_over : tuple of str, default ("repeat", "fold")
        Dims of the inputs averaged over first, so that each data set is one point.

    Returns
    -------
    xarray.Dataset
        ``slope``, ``intercept``, ``r``, ``r_squared``, ``r_low``, ``r_high``, ``p_value``,
        ``slope_stderr`` and ``n``; scalars, or over ``groupby``.

    References
    ----------
    Ali & Pazzani (1995), section 5.1 (E_r against phi_e); Fisher (1921).

    Examples
    --------
    >>> fit = fit_error_ratio([0.1, 0.2, 0.3, 0.4, 0.5], [0.52, 0.61, 0.69, 0.82, 0.9])
    >>> round(float(fit.slope), 2), round(float(fit.r_squared), 3)
    (0.97, 0.994)
    """
    x = _as_dataarray(phi_e, "phi_e")
    y = _as_dataarray(error_ratio, "error_ratio")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) \
            or not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if isinstance(average_over, str) or not all(isinstance(d, str) for d in average_over):
        raise TypeError(f"average_over must be a tuple of dim names, got {average_over!r}")
    if not isinstance(phi_e, xr.DataArray) and not isinstance(error_ratio, xr.DataArray) \
            and np.shape(phi_e) != np.shape(error_ratio):
        raise ValueError(f"phi_e and error_ratio must have the same shape; got "
                         f"{np.shape(phi_e)} and {np.shape(error_ratio)}")
    if groupby is not None and not isinstance(groupby, str):
        raise TypeError(f"groupby must be a dim name or None, got {groupby!r}")
    x = x.mean([d for d in average_over if d in x.dims])
    y = y.mean([d for d in average_over if d in y.dims])
    if set(x.dims) != set(y.dims):
        # broadcasting different dims would pair every phi_e with every E_r (an outer product)
        raise ValueError(f"phi_e and error_ratio must have the same dims (after averaging over "
                         f"{list(average_over)}); got {tuple(x.dims)} and {tuple(y.dims)}")
    for dim in x.dims:
        if dim in x.indexes and dim in y.indexes:
            only_x = x.indexes[dim].difference(y.indexes[dim])
            only_y = y.indexes[dim].difference(x.indexes[dim])
            if only_x.size or only_y.size:
                raise ValueError(f"phi_e and error_ratio must have the same {dim!r} labels; "
                                 f"only in phi_e: {only_x.tolist()}, only in error_ratio: "
                                 f"{only_y.tolist()}")
    try:
        # pairs by label: the same labels in another order are the same points
        x, y = xr.align(x, y, join="inner")
        x, y = xr.broadcast(x, y)
    except ValueError as exc:
        raise ValueError(f"phi_e and error_ratio do not align: {exc}") from None
    if groupby is not None and groupby not in x.dims:
        raise ValueError(f"groupby={groupby!r} is not a dim of the inputs {tuple(x.dims)}")
    groups = [None] if groupby is None else list(range(x.sizes[groupby]))
    fits = []
    for g in groups:
        xs = x if g is None else x.isel({groupby: g})
        ys = y if g is None else y.isel({groupby: g})
        xv, yv = np.ravel(xs.values), np.ravel(ys.transpose(*xs.dims).values)
        keep = np.isfinite(xv) & np.isfinite(yv)
        if keep.sum() < 3:
            where = "" if g is None else f" for {groupby}={x[groupby].values[g]!r}"
            raise ValueError(f"fit_error_ratio needs at least 3 points with finite phi_e and "
                             f"error_ratio{where}; got {int(keep.sum())}")
        if np.ptp(xv[keep]) == 0:
            raise ValueError("phi_e is constant over the points: the slope is undefined")
        fits.append(_ols(xv[keep], yv[keep], float(confidence)))
    dims: tuple[str, ...] = () if groupby is None else (groupby,)

    def col(key: str) -> np.ndarray:
        values = np.array([f[key] for f in fits])
        return values[0] if groupby is None else values

    cite = f"{CITE_ALI_PAZZANI}, section 5.1 (E_r against phi_e, Figure 1)"
    level = f"{100 * confidence:g}%"
    variables = {
        "slope": Var(dims, col("slope"), "OLS slope of E_r on phi_e", units="", cite=cite),
        "intercept": Var(dims, col("intercept"), "OLS intercept", units="", cite=cite),
        "r": Var(dims, col("r"), "Pearson correlation r of phi_e and E_r",
                 valid_range=(-1.0, 1.0), cite=cite),
        "r_squared": Var(dims, col("r_squared"), "coefficient of determination r^2",
                         valid_range=(0.0, 1.0), cite=cite),
        "r_low": Var(dims, col("r_low"), f"lower end of the {level} Fisher-z interval for r",
                     valid_range=(-1.0, 1.0), cite=_CITE_FISHER),
        "r_high": Var(dims, col("r_high"), f"upper end of the {level} Fisher-z interval for r",
                      valid_range=(-1.0, 1.0), cite=_CITE_FISHER),
        "p_value": Var(dims, col("p_value"), "p-value of the slope (H0: slope = 0)",
                       valid_range=(0.0, 1.0), cite=cite),
        "slope_stderr": Var(dims, col("slope_stderr"), "standard error of the slope",
                            units="", cite=cite),
        "n": Var(dims, col("n"), "number of points fitted", units="", cite=cite),
    }
    coords = {} if groupby is None else {groupby: x[groupby].values}
    params = {"groupby": groupby, "confidence": float(confidence),
              "average_over": list(average_over)}
    return build(variables, function="fit_error_ratio", params=params, coords=coords,
                 cite=[_CITE_FISHER])

