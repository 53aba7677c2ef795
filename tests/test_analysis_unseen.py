"""A test row whose class the model never saw is an error of every member, in every measure.

Independent check: the same member outputs given to a model that lists the class but never
predicts it (a probability column of zeros) must give the same measures.
"""

import naive_analysis as naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_analysis_diagnose import StandIn

from treelab.analysis import (
    diagnose,
    error_arrangement,
    error_correlation,
    errors,
    strength_correlation,
    thresholded_mse,
    topk_error,
)

SAME = ("ensemble_error", "mean_member_error", "member_error", "phi_e", "phi_star",
        "strength", "correlation", "observed_error", "optimal_error")


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    member_p = rng.dirichlet(np.ones(2), (5, 30))
    y = rng.choice(np.array(["a", "b", "z"]), 30, p=[0.45, 0.4, 0.15])
    return member_p, y


@pytest.mark.parametrize("combine", ["average", "vote"])
def test_diagnose_counts_unseen_rows(combine):
    member_p, y = _problem()
    assert np.any(y == "z")
    th = ("1.0", "top1", "top2")  # top3 is v = 0 with three listed classes: no cost in ref
    got = diagnose(StandIn(member_p, ["a", "b"], combine), None, y, k=(1, 2), thresholds=th)
    padded = np.concatenate([member_p, np.zeros(member_p.shape[:2] + (1,))], axis=2)
    ref = diagnose(StandIn(padded, ["a", "b", "z"], combine), None, y, k=(1, 2), thresholds=th)
    for name in SAME:
        np.testing.assert_allclose(got[name].values, ref[name].values, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(got.thresholded_mse.values, ref.thresholded_mse.values)
    np.testing.assert_allclose(got.topk_error.values, ref.topk_error.values)
    # every member errs on every z row
    unseen = np.mean(y == "z")
    assert np.all(got.member_error.values >= unseen)
    assert float(got.ensemble_error) >= unseen


def test_member_measures_with_classes():
    y = np.array(["a", "b", "z", "a"], dtype=object)
    L = np.array([["a", "b", "a", "a"], ["b", "b", "b", "a"]], dtype=object)
    ds = errors(L, y, classes=["a", "b"])
    np.testing.assert_allclose(ds.member_error.values, [1 / 4, 2 / 4])
    assert float(ds.ensemble_error) == pytest.approx(1 / 4)  # ties -> "a"; row 2 (z) lost
    # z is a class of its own: members 0 and 1 err differently on row 2
    assert float(error_correlation(L, y, classes=["a", "b"]).phi_e) == 0.0
    st = strength_correlation(L, y, classes=["a", "b"])
    assert float(st.margin[2]) == pytest.approx(0 - 1 / 2)  # no vote for z, rival "a" or "b"
    arr = error_arrangement(L, y, classes=["a", "b"])
    # the z row is lost under independence whatever the members do
    assert float(arr.independent_error) >= 1 / 4


def test_probability_measures_with_classes():
    P = np.array([[0.7, 0.3], [0.4, 0.6], [0.5, 0.5]])
    y = np.array(["a", "b", "z"])
    mse = thresholded_mse(P, y, thresholds=("1.0", "top1", "top3"), classes=["a", "b"])
    # the z row costs 1 at every threshold, even top3 (v = 0 for two classes)
    np.testing.assert_allclose(mse.values, [(0.3**2 + 0.4**2 + 1) / 3, 1 / 3, 1 / 3])
    top = topk_error(P, y, k=(1, 2, 3), classes=["a", "b"])
    np.testing.assert_allclose(top.values, [1 / 3, 1 / 3, 1 / 3])


def test_experiment_runner_scores_unseen_rows(tmp_path):
    from treelab.experiment import ExperimentConfig, run

    # 12 training rows of ten digits: most draws miss a digit
    config = ExperimentConfig(
        name="unseen",
        datasets=[{"name": "led", "generator": "led", "params": {"noise": 0.0}}],
        ensembles=[{"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 3}}],
        protocol={"name": "draws", "n_repeats": 3, "n_train": 12, "n_test": 200},
        seed=4,
        backend="serial",
        out=str(tmp_path / "u"),
    )
    ds = run(config, progress=False)
    unseen = ds.n_test_unseen.values.ravel()
    assert np.all(ds.n_test.values.ravel() == 200)  # no row left out
    assert unseen.max() > 0
    # every unseen row is an error of the ensemble and of every member
    share = unseen / 200
    assert np.all(ds.ensemble_error.values.ravel() >= share - 1e-12)
    assert np.all(ds.mean_member_error.values.ravel() >= share - 1e-12)


def test_independent_error_gives_no_votes_to_an_unseen_class():
    # every member votes "a" on every row: it never erred on class a, and its wrong votes are
    # all for a, so under independence its wrong votes on class a split uniformly over the
    # classes it can vote: b alone, not the unseen z. Each member then votes a with 1/3 and
    # b with 2/3 on both classes; a loses unless it gets 2 or 3 of the 3 votes (a tie cannot
    # happen), b loses unless it gets 2 or 3 (7/27 either way), and the z rows are lost.
    y = np.array(["a", "a", "b", "b", "z", "z"], dtype=object)
    L = np.full((3, 6), "a", dtype=object)
    ds = error_arrangement(L, y, classes=["a", "b"])
    lose = 1 - (3 * (1 / 3) ** 2 * (2 / 3) + (1 / 3) ** 3)  # 20/27
    assert float(ds.independent_error) == pytest.approx((lose + lose + 1) / 3)  # 67/81


def test_independent_error_with_one_seen_class():
    # a member that can vote only a never errs on class a: the z rows alone are lost
    y = np.array(["a", "a", "a", "z"], dtype=object)
    L = np.full((3, 4), "a", dtype=object)
    ds = error_arrangement(L, y, classes=["a"])
    assert float(ds.independent_error) == pytest.approx(1 / 4)


@settings(max_examples=60, deadline=None)
@given(naive.member_problem(max_trees=4, max_samples=8, max_classes=4), st.data())
def test_independent_error_with_unseen_classes_matches_bruteforce(problem, data):
    L, y, C = problem
    n_known = data.draw(st.integers(1, C))
    L = L % n_known  # members vote only the classes they saw
    names = np.array([f"c{k}" for k in range(C)], dtype=object)
    ds = error_arrangement(names[L], names[y], classes=names[:n_known])
    brute = naive.independent_vote_error_bruteforce(L.tolist(), y.tolist(), C, n_known)
    assert float(ds.independent_error) == pytest.approx(brute, abs=1e-12)
