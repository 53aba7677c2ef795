"""Reproduce Ali & Pazzani (1995), error correlation and error reduction, in full mode.

The experiment of notebook 02 in its full mode (the same configuration, so the notebook finds
the cells this script stores): eleven stochastic ID3 trees (beta = 1.25, lookahead), one
ensemble per combination function (uniform voting, distribution summation, likelihood,
Bayesian), 30 trials of 2/3-1/3 holdout, class noise 0, 0.1, 0.2 and 0.3 on the training rows
(the notebook's variants of every data set); tic-tac-toe, MONK's problems 1-3, LED and KRK
(1,000 rows), 2-of-4 (1,000 rows) from the generators and eleven UCI sets of the bundle. Prints
the Markdown tables of docs/reproductions/ali_pazzani1995.md: phi_e and phi* per data set and
variant (uniform voting), the OLS fit of E_r on phi_e per combination function, the same fit of
E_r on the gain ties per decision node (the line of the notebook's right-hand panel) and the
optimal, observed and independent error (uniform voting, no noise). Cells are stored as they
finish; run the same command again to resume.

The study's Table 2 (one tree against eleven on the study's training sizes, the notebook's last
section) is ``benchmarks/reproduce_ali_pazzani.py`` (docs/reproductions/stochastic_id3.md).

Usage::

    python benchmarks/reproduce_error_correlation.py               # full mode, 2 workers
    python benchmarks/reproduce_error_correlation.py --estimate    # projected time
    python benchmarks/reproduce_error_correlation.py --noise 0     # the no-noise variants only

The ensembles have 11 trees (``--trees``, default 11); ``--estimate`` times one cell of each
stratum at 5 and 11 trees (``--estimate-trees``).
"""

from __future__ import annotations

from functools import partial

from _reproduce import (
    NOTEBOOK_OUT,
    estimate_grid,
    markdown,
    parser,
    print_estimates,
    run_grid,
    section,
)

from treelab import analysis, stats
from treelab.datasets import find_uci_root
from treelab.experiment import ExperimentConfig

N_TRIALS, N_ROWS = 30, 1000
NOISE = [0.0, 0.1, 0.2, 0.3]
UCI_NAMES = ["breast-cancer", "vote", "promoters", "hepatitis", "primary-tumor", "zoo",
             "car", "splice", "soybean", "kr-vs-kp", "mushroom"]  # tic-tac-toe: the generator
COMBINATIONS = {"uniform voting": "vote", "distribution summation": "sum",
                "likelihood": "likelihood", "Bayesian": "bayesian"}
SEED = 0
OUT = NOTEBOOK_OUT / "02_error_correlation"


def _datasets() -> list[dict]:
    root = str(find_uci_root())
    return [{"name": "tic-tac-toe", "generator": "tictactoe"},
            {"name": "monks-2", "generator": "monks", "params": {"problem": 2}},
            {"name": "led", "generator": "led", "n_samples": N_ROWS},
            {"name": "krk", "generator": "krk", "n_samples": N_ROWS},
            {"name": "monks-1", "generator": "monks", "params": {"problem": 1}},
            {"name": "monks-3", "generator": "monks", "params": {"problem": 3}},
            {"name": "2-of-4", "generator": "m_of_n", "n_samples": N_ROWS}] + [
        {"name": name, "uci": name, "root": root, "min_class_size": 10} for name in UCI_NAMES]


def stochastic_id3(n: int, noise: list[float] = NOISE) -> ExperimentConfig:
    """The notebook's experiment with ``n`` trees per ensemble (the study's 11)."""
    return ExperimentConfig(
        name="stochastic ID3", datasets=_datasets(),
        ensembles=[{"name": name, "estimator": "StochasticID3",
                    "params": {"n_estimators": n, "beta": 1.25, "combine": combine}}
                   for name, combine in COMBINATIONS.items()],
        transforms=[{"kind": "class_noise", "values": noise}],
        protocol={"name": "holdout", "n_repeats": N_TRIALS, "test_size": 1 / 3},
        seed=SEED, backend="local", on_error="raise")


def tables(result) -> None:
    """The page's tables from the experiment's result (the notebook's analysis)."""
    # as the notebook: one point per data set and variant, errors averaged over the trials,
    # E_r of the means
    means = result.mean(["repeat", "fold"])
    means["error_ratio"] = analysis.error_ratio(means.ensemble_error, means.single_error)
    vote = means.sel(ensemble="uniform voting")
    table = vote[["single_error", "ensemble_error", "error_ratio", "phi_e", "phi_star",
                  "phi_gap", "mean_g"]].to_dataframe().drop(columns="ensemble")
    section(f"Uniform voting: errors, E_r and error correlation per data set and class noise "
            f"(means over {N_TRIALS} trials; mean_g: gain ties per decision node)",
            markdown(table, digits=3))
    columns = ["r_squared", "slope", "intercept", "r", "r_low", "r_high", "p_value", "n"]
    for x, what in (("phi_e", "phi_e"), ("mean_g", "the gain ties per decision node g")):
        fits = stats.fit_error_ratio(means[x], means.error_ratio, groupby="ensemble")
        section(f"OLS of E_r on {what}, one line per combination function (points: data set "
                "x class noise; r_low, r_high: 95% interval for r)",
                markdown(fits[columns].to_pandas(), digits=3))
    arrangement = vote[["optimal_error", "observed_error", "independent_error"]]
    frame = arrangement.sel(noise=0.0).to_dataframe().drop(columns=["ensemble", "noise"])
    section("Uniform voting, no noise: optimal, observed and independent error (means over the "
            "trials)", markdown(frame, digits=3))


def main(argv=None) -> None:
    ap = parser(__doc__, OUT)
    ap.set_defaults(trees=11, estimate_trees=(5, 11))
    ap.add_argument("--noise", type=float, nargs="+", default=NOISE,
                    help="class-noise variants to run (default: the notebook's 0 0.1 0.2 0.3)")
    args = ap.parse_args(argv)
    if args.estimate:
        print_estimates([estimate_grid("stochastic ID3 (runner)",
                                       partial(stochastic_id3, noise=args.noise), args)], args)
        return
    # no ensemble here has an alpha: drop the runner's alpha dim (a single NaN coordinate)
    result = run_grid(stochastic_id3(args.trees, args.noise), args.out / "stochastic_id3",
                      args).isel(alpha=0, drop=True)
    tables(result)


if __name__ == "__main__":
    main()
