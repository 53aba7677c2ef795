"""Keeping the attributes a random forest ranks most important (Liu et al. 2008, Table 5)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from treelab.datasets import LabeledData, forest_importance, keep_important
from treelab.experiment import ExperimentConfig, expand
from treelab.experiment.data import train_test
from treelab.experiment.seeds import cell_seed


def _signal_data(n=400, seed=0):
    """Three informative columns (0, 2, 5) among eight; three classes, NaN in a noise one."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 8))
    score = X[:, 0] + X[:, 2] + X[:, 5]
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    X[rng.random(n) < 0.05, 7] = np.nan
    return LabeledData(X=X, y=np.array(["a", "b", "c"])[y], feature_types=("continuous",) * 8)


def test_keeps_the_informative_columns_as_an_independent_forest_ranks_them():
    data = _signal_data()
    kept = keep_important(data, 3 / 8, n_estimators=50, random_state=0)
    assert kept.tolist() == [0, 2, 5]
    # scikit-learn's forest (impurity importance, another measure) ranks the same three first
    X = np.nan_to_num(data.X, nan=-1.0)
    mdi = RandomForestClassifier(100, random_state=0).fit(X, data.y).feature_importances_
    assert sorted(np.argsort(-mdi)[:3].tolist()) == kept.tolist()
    imp = forest_importance(data, n_estimators=50, random_state=0)
    assert imp.shape == (8,) and np.all(imp[[0, 2, 5]] > imp[[1, 3, 4, 6, 7]].max())


def test_half_rounds_up_fraction_one_keeps_all_and_seed_fixes_the_choice():
    data = _signal_data()
    assert keep_important(data, 1.0).tolist() == list(range(8))
    assert len(keep_important(data.take(np.arange(300)), 0.5, n_estimators=10,
                              random_state=1)) == 4
    odd = LabeledData(X=data.X[:, :7], y=data.y, feature_types=("continuous",) * 7)
    assert len(keep_important(odd, 0.5, n_estimators=10, random_state=1)) == 4
    a = forest_importance(data, n_estimators=10, random_state=3)
    np.testing.assert_array_equal(a, forest_importance(data, n_estimators=10, random_state=3))
    for bad in (0.0, 1.5, True, "0.5"):
        with pytest.raises(ValueError, match="fraction"):
            keep_important(data, bad)


def _config(values):
    return ExperimentConfig(
        name="t5", datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 5}}],
        transforms=[{"kind": "important_attributes", "values": values}],
        protocol={"name": "stratified_kfold", "n_splits": 3}, seed=4)


def test_runner_ranks_on_the_training_fold_and_keeps_those_columns_in_the_test_rows():
    cells = expand(_config([1.0, 0.5]))
    full = {c.coords["fold"]: c for c in cells if c.coords["attribute_fraction"] == 1.0}
    half = [c for c in cells if c.coords["attribute_fraction"] == 0.5]
    assert len(half) == 3
    chosen = []
    for cell in half:
        train, test = train_test(cell.spec)
        clean_train, clean_test = train_test(full[cell.coords["fold"]].spec)
        assert train.n_features == 7 and test.n_features == 7  # wine: 13 attributes
        # which of the 13 columns survived, read off the values
        cols = [next(j for j in range(13) if np.array_equal(clean_train.X[:, j], train.X[:, k]))
                for k in range(7)]
        np.testing.assert_array_equal(test.X, clean_test.X[:, cols])
        assert train.feature_names == tuple(clean_train.feature_names[j] for j in cols)
        # the top seven of the importance computed directly on the training rows alone
        imp = forest_importance(clean_train.X, clean_train.y, random_state=cell_seed(
            4, "important_attributes", "wine", 0.5, cell.coords["repeat"], cell.coords["fold"]))
        top = np.sort(np.lexsort((np.arange(13), -imp))[:7])
        assert cols == top.tolist()
        chosen.append(cols)
    assert all(len(c) == 7 for c in chosen)


def test_config_refuses_fractions_outside_0_1():
    with pytest.raises(ValueError, match="fractions"):
        _config([0.0])
