"""The studies' figures, drawn with :mod:`treelab.plot` from the grids' results (PNG)."""

from __future__ import annotations

from pathlib import Path

import xarray as xr

__all__ = ["alipazzani1995", "gashler2008", "liu2008", "rotation"]


def _save(fig_or_ax, folder: Path, name: str) -> list[Path]:
    import matplotlib.pyplot as plt

    from treelab import plot

    written = plot.savefig(fig_or_ax, folder / name, width="double")
    plt.close("all")
    return written


def _critical_difference(result: xr.Dataset, folder: Path, name: str) -> list[Path]:
    """The critical-difference diagram of the mean errors over the folds, ties that differ
    only in float noise made exact first (the same values the study's tables rank)."""
    from treelab import plot, stats
    from treelab.reproduce._verdicts import snap_ties

    err = result["ensemble_error"]
    err = err.isel(alpha=0, drop=True) if "alpha" in err.dims else err
    means = err.mean([d for d in err.dims if d not in ("dataset", "ensemble")])
    table = snap_ties(means.transpose("dataset", "ensemble").to_pandas())
    snapped = xr.DataArray(table.to_numpy(), dims=("dataset", "ensemble"),
                           coords={"dataset": table.index, "ensemble": table.columns},
                           name="ensemble_error")
    return _save(plot.critical_difference(stats.nemenyi(snapped)), folder, name)


def liu2008(results: dict[str, xr.Dataset], folder: Path) -> list[Path]:
    """The error spectrum per data set; the critical-difference diagram of Table 3."""
    from treelab import plot

    out = []
    spec = results.get("spectrum", results.get("spectrum_quick"))
    if spec is not None:
        out += _save(plot.spectrum(spec, col="dataset"), folder, "spectrum.png")
    if "table3" in results:
        out += _critical_difference(results["table3"], folder, "table3_ranks.png")
    return out


def alipazzani1995(results: dict[str, xr.Dataset], folder: Path) -> list[Path]:
    """E_r against phi_e (Figure 1's points), one OLS line per combination function, as the
    study fits them (over all the points: the page's "r^2, all points")."""
    from treelab import analysis, plot

    if "figure1" not in results:
        return []
    means = results["figure1"].mean(["repeat", "fold"])
    means["error_ratio"] = analysis.error_ratio(means.ensemble_error, means.single_error)
    stacked = means[["phi_e", "error_ratio"]].stack(point=["dataset", "train_size"])
    return _save(plot.error_ratio_vs_phi(stacked.reset_index("point"), fit="hue"), folder,
                 "error_ratio_vs_phi.png")


def gashler2008(results: dict[str, xr.Dataset], folder: Path) -> list[Path]:
    """Accuracy against irrelevant attributes on vowel (Figure 5's data set) and wine; ranks
    of Table 1."""
    from treelab import plot

    out = []
    for grid, dataset, name in (("irrelevant_vowel", "vowel", "irrelevant_attributes_vowel.png"),
                                ("irrelevant", "wine", "irrelevant_attributes.png")):
        irr = results.get(grid, results.get(f"{grid}_quick"))
        if irr is not None:
            out += _save(plot.irrelevant_attributes(irr, dataset=dataset), folder, name)
    grid = next((g for g in ("bundle", "gashler", "gashler_quick") if g in results), None)
    if grid is not None:
        out += _critical_difference(results[grid], folder, "ranks.png")
    return out


def rotation(results: dict[str, xr.Dataset], folder: Path) -> list[Path]:
    """Accuracy against irrelevant attributes (``plot.irrelevant_attributes``' default), one
    figure per data set, for the first three data sets."""
    from treelab import plot

    ds = results["rotation"]
    out = []
    for name in ds.dataset.values[:3]:
        out += _save(plot.irrelevant_attributes(ds, dataset=str(name)), folder,
                     f"irrelevant_{str(name).replace(' ', '_')}.png")
    return out
