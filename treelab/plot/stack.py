"""Stack single results (one ensemble, one alpha each) into the shape the figures take."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims

__all__ = ["stack_results"]

#: Stand-in for alpha = NaN while stacking (pandas indexes do not unstack NaN labels).
_NO_ALPHA = -1.0


def _scalar(ds: xr.Dataset, dim: str, i: int) -> Any:
    if dim not in ds.coords or ds[dim].ndim != 0:
        raise ValueError(
            f"results[{i}] has no scalar {dim!r} coordinate: diagnose(..., label=...) records "
            f"'ensemble' and 'alpha'; for another Dataset add them with "
            f"ds.assign_coords(ensemble='RF', alpha=float('nan'))")
    return ds[dim].item()


def stack_results(results: Sequence[xr.Dataset]) -> xr.Dataset:
    """Stack single-ensemble results into one Dataset with dims ``ensemble`` and ``alpha``.

    Each result is one ensemble at one alpha: a :func:`treelab.analysis.diagnose` result
    carries both as scalar coordinates (``ensemble``: its ``label=``, by default the class
    name; ``alpha``: the estimator's alpha, NaN where it has none). The output holds every
    variable over ``ensemble`` (in order of first appearance) and ``alpha`` (ascending, NaN
    last); a combination no result gave is NaN. That is the layout of an experiment result,
    so the output goes straight into :func:`treelab.plot.spectrum`,
    :func:`treelab.plot.strength_correlation` and the other figures.

    Parameters
    ----------
    results : sequence of xarray.Dataset
        Results with scalar ``ensemble`` and ``alpha`` coordinates, no two with the same pair.

    Returns
    -------
    xarray.Dataset

    Examples
    --------
    >>> import treelab
    >>> from treelab.analysis import diagnose
    >>> from treelab.datasets import gaussian_mixture
    >>> train, test = gaussian_mixture(100, random_state=0), gaussian_mixture(100, random_state=1)
    >>> def fit(model):
    ...     return model.fit(train.X, train.y)
    >>> runs = [diagnose(fit(treelab.VRTrees(alpha=a, n_estimators=5, random_state=0)),
    ...                  test.X, test.y, label="Aggregating") for a in (0.0, 0.5, 1.0)]
    >>> runs.append(diagnose(fit(treelab.RandomForest(n_estimators=5, random_state=0)),
    ...                      test.X, test.y, label="RF"))
    >>> grid = stack_results(runs)
    >>> grid.ensemble.values.tolist(), grid.alpha.values.tolist()
    (['Aggregating', 'RF'], [0.0, 0.5, 1.0, nan])
    >>> ax = treelab.plot.spectrum(grid)
    """
    if isinstance(results, xr.Dataset) or not isinstance(results, Sequence) or not results:
        raise TypeError("results must be a non-empty list of Datasets (e.g. diagnose results)")
    keys, parts = [], []
    for i, ds in enumerate(results):
        if not isinstance(ds, xr.Dataset):
            raise TypeError(f"results[{i}] must be an xarray.Dataset, got {type(ds).__name__}")
        name = _scalar(ds, _dims.ENSEMBLE, i)
        alpha = float(_scalar(ds, _dims.ALPHA, i))
        if np.isfinite(alpha) and not 0.0 <= alpha <= 1.0:
            raise ValueError(f"results[{i}] has alpha={alpha}, outside [0, 1]")
        key = (name, alpha if np.isfinite(alpha) else _NO_ALPHA)
        if key in keys:
            raise ValueError(f"results hold ensemble={name!r} at alpha={alpha} twice")
        keys.append(key)
        parts.append(ds.drop_vars([_dims.ENSEMBLE, _dims.ALPHA]))
    # the cell labels are attached after concatenating: concat keeps a coordinate that is equal
    # in every part as a scalar (one ensemble at three alphas), which no index can stack
    cells = xr.concat(parts, dim="_cell", coords="different", compat="equals", join="outer",
                      combine_attrs="override")
    cells = cells.assign_coords({_dims.ENSEMBLE: ("_cell", [k[0] for k in keys]),
                                 _dims.ALPHA: ("_cell", [k[1] for k in keys])})
    grid = cells.set_index(_cell=[_dims.ENSEMBLE, _dims.ALPHA]).unstack("_cell")
    names = list(dict.fromkeys(k[0] for k in keys))
    alphas = sorted({k[1] for k in keys if k[1] != _NO_ALPHA})
    if any(k[1] == _NO_ALPHA for k in keys):
        alphas.append(_NO_ALPHA)
    grid = grid.sel({_dims.ENSEMBLE: names, _dims.ALPHA: alphas})
    alpha_coord = np.where(np.asarray(alphas) == _NO_ALPHA, np.nan, alphas)
    return grid.assign_coords({_dims.ALPHA: alpha_coord})
