"""Fan et al. Table 2's adult row: UCI's own train/test split and the counts of correct rows."""

import numpy as np
import pytest
import scipy.stats

from treelab import DecisionTree
from treelab.reproduce.fan2005 import ADULT_TEST, ADULT_TRAIN, adult_split, adult_table2


def test_the_bundle_keeps_ucis_adult_split_in_order():
    X_train, y_train, X_test, y_test = adult_split()
    assert (len(X_train), len(X_test)) == (ADULT_TRAIN, ADULT_TEST) == (32561, 16281)
    # the last row of UCI's adult.data and the first and last rows of adult.test, as printed
    # in UCI's own files
    assert X_train.iloc[-1][["age", "fnlwgt", "capital-gain"]].tolist() == [52, 287927, 15024]
    assert X_test.iloc[0][["age", "fnlwgt", "education-num"]].tolist() == [25, 226802, 7]
    assert X_test.iloc[-1][["age", "fnlwgt", "hours-per-week"]].tolist() == [35, 182148, 60]
    # adult.test: 3,846 rows above 50K, 12,435 at or below (UCI's documentation)
    assert sorted(np.unique(y_test, return_counts=True)[1].tolist()) == [3846, 12435]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Table 2 in ci mode (5 trees, the first 2,000 rows of each part) and its folder."""
    root = tmp_path_factory.mktemp("adult")
    return adult_table2(root, "ci"), root


def test_correct_counts_match_a_direct_fit(table):
    t, _ = table
    X_train, y_train, X_test, y_test = adult_split(2000)
    assert set(t["test_rows"]) == {2000}
    for col, params in (("unpruned", {}), ("pruned", {"prune": "pessimistic"})):
        est = DecisionTree(random_state=0, **params).fit(X_train, y_train)
        assert t.loc[col, "correct"] == int(np.sum(est.predict(X_test) == y_test))
    assert np.allclose(t["accuracy_pct"].astype(float),
                       100 * t["correct"].astype(float) / 2000)


def test_mcnemar_is_the_exact_binomial_test_on_the_discordant_rows(table):
    t, root = table
    folder = next(root.glob("table2_adult_*"))
    _, _, _, y_test = adult_split(2000)
    ref = t["reference"].iloc[0]
    own = {c: np.load(folder / f"{c.replace(' ', '_')}.npz")["own"] for c in
           ("unpruned tree", "pruned tree")}
    ref_ok = own["pruned tree" if ref == "pruned" else "unpruned tree"] == y_test
    rd_ok = np.load(folder / "RD.npz")["average"] == y_test
    b, c = int(np.sum(rd_ok & ~ref_ok)), int(np.sum(~rd_ok & ref_ok))
    expected = scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue
    assert np.isclose(float(t.loc["RD", "mcnemar_p"]), expected)
    # stored predictions are reused: a second call gives the same table
    again = adult_table2(root, "ci")
    assert again.astype(str).equals(t.astype(str))


@pytest.mark.parametrize(("d", "exact"), [(1, 5 / 12), (2, 13 / 24)])
def test_bayes_error_of_the_synthetic_problem_matches_the_integral(d, exact):
    # max_c P(c | x) = max(r, 1 - r)^2 with r the mean of d uniform(0, 1) attributes; for
    # d = 1, 1 - 2 int_{1/2}^1 r^2 dr = 5/12; for d = 2 (r triangular, density 4 (1 - r) above
    # 1/2), 1 - 8 int_{1/2}^1 r^2 (1 - r) dr = 13/24; the estimate's standard error is under
    # 0.12 points
    from treelab.reproduce._fan2005_report import bayes_error

    assert bayes_error(d) == pytest.approx(100 * exact, abs=0.4)
