"""Regression ensembles read through the one member-outputs place: scikit-learn's forests,
bagging (each member on its own columns), voting (its weights), lists of regressors, treelab
regressors by duck type, raw outputs; the checks made once before any member predicts; and the
classification measures refusing regressors and real-valued outputs."""

from __future__ import annotations

import naive_regression as naive
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.datasets import make_friedman1
from sklearn.ensemble import (
    BaggingRegressor,
    ExtraTreesRegressor,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    VotingRegressor,
)
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.tree import DecisionTreeRegressor

from treelab import analysis as A


@pytest.fixture(scope="module")
def data():
    X, y = make_friedman1(160, noise=1.0, random_state=0)
    return X[:100], y[:100], X[100:], y[100:]


@pytest.mark.parametrize("cls", [RandomForestRegressor, ExtraTreesRegressor])
def test_forest_members_are_the_trees_predictions(data, cls):
    X, y, Xt, yt = data
    model = cls(n_estimators=7, random_state=0).fit(X, y)
    out = A.regression_outputs(model, Xt)
    assert out.dims == ("tree", "sample") and out.dtype == np.float64
    by_hand = np.stack([t.predict(Xt) for t in model.estimators_])
    np.testing.assert_array_equal(out.values, by_hand)
    np.testing.assert_allclose(out.mean("tree"), model.predict(Xt), rtol=1e-12)
    same = A.member_outputs(model, Xt)  # member_outputs dispatches on a regressor
    np.testing.assert_array_equal(same.values, by_hand)


def test_bagging_members_predict_on_their_own_columns(data):
    X, y, Xt, yt = data
    model = BaggingRegressor(DecisionTreeRegressor(), n_estimators=6, max_features=0.5,
                             random_state=0).fit(X, y)
    assert any(len(f) < X.shape[1] for f in model.estimators_features_)
    by_hand = np.stack([m.predict(Xt[:, f]) for m, f in
                        zip(model.estimators_, model.estimators_features_, strict=True)])
    out = A.regression_outputs(model, Xt)
    np.testing.assert_array_equal(out.values, by_hand)
    ds = A.ambiguity(model, Xt, yt)
    ens, avg, amb = naive.ambiguity(by_hand.tolist(), yt.tolist())
    np.testing.assert_allclose(ds.sample_ambiguity, amb, rtol=1e-10)
    np.testing.assert_allclose(ds.sample_ensemble_mse, (model.predict(Xt) - yt) ** 2,
                               rtol=1e-10)
    # from a DataFrame with the fit's column names: the same outputs
    cols = [f"x{j}" for j in range(X.shape[1])]
    model_df = BaggingRegressor(DecisionTreeRegressor(), n_estimators=6, max_features=0.5,
                                random_state=0).fit(pd.DataFrame(X, columns=cols), y)
    out_df = A.regression_outputs(model_df, pd.DataFrame(Xt, columns=cols))
    np.testing.assert_array_equal(out_df.values, by_hand)


def test_voting_weights_and_lists(data):
    X, y, Xt, yt = data
    members = [("lr", LinearRegression()), ("ridge", Ridge(alpha=5.0)),
               ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]
    model = VotingRegressor(members, weights=[1, 2, 3]).fit(X, y)
    out = A.regression_outputs(model, Xt)
    by_hand = np.stack([m.predict(Xt) for m in model.estimators_])
    np.testing.assert_array_equal(out.values, by_hand)
    np.testing.assert_allclose(out.attrs["weights"], [1 / 6, 2 / 6, 3 / 6])
    ds = A.ambiguity(model, Xt, yt)
    ens, avg, amb = naive.ambiguity(by_hand.tolist(), yt.tolist(), [1, 2, 3])
    np.testing.assert_allclose(ds.sample_ambiguity, amb, rtol=1e-10)
    np.testing.assert_allclose(ds.sample_ensemble_mse, (model.predict(Xt) - yt) ** 2,
                               rtol=1e-10)
    # Breiman's bound reads the same weighted average: its forest is the model's predict
    bound = A.breiman_regression_bound(model, Xt, yt)
    assert float(bound.forest_mse) == pytest.approx(np.mean((model.predict(Xt) - yt) ** 2),
                                                    rel=1e-10)
    assert float(A.diagnose(model, Xt, yt).finite_forest_bound) == pytest.approx(
        float(bound.finite_forest_bound), rel=1e-12)
    # the decompositions over training sets average members equally: weights are refused
    with pytest.raises(ValueError, match=r"models\[0\] averages its members with unequal "
                                         r"weights"):
        A.bias_variance_diversity_regression([model, model], yt, X=Xt)
    pool = list(model.estimators_)  # a list: equal weights
    ds_pool = A.ambiguity(pool, Xt, yt)
    ens, avg, amb = naive.ambiguity(by_hand.tolist(), yt.tolist())
    np.testing.assert_allclose(ds_pool.sample_ambiguity, amb, rtol=1e-10)
    assert list(A.regression_outputs(pool, Xt).member.values) == [
        "LinearRegression", "Ridge", "DecisionTreeRegressor"]


class DuckRegressor:
    """A treelab regressor's contract: fitted, predict and member_predict (tree, sample)."""

    def __init__(self, forest):
        self.forest = forest
        self.n_features_in_ = forest.n_features_in_

    def predict(self, X):
        return self.forest.predict(X)

    def member_predict(self, X):
        return np.stack([t.predict(np.asarray(X, dtype=np.float32)) for t in
                         self.forest.estimators_])


def test_treelab_regressor_by_duck_type(data):
    X, y, Xt, yt = data
    rf = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    duck = DuckRegressor(rf)
    np.testing.assert_array_equal(A.regression_outputs(duck, Xt).values,
                                  A.regression_outputs(rf, Xt).values)
    ds = A.diagnose(duck, Xt, yt)
    assert float(ds.mse) == pytest.approx(mean_squared_error(yt, rf.predict(Xt)), rel=1e-12)
    with pytest.raises(ValueError, match="X has 3 features"):
        A.ambiguity(duck, Xt[:, :3], yt)


def test_a_model_that_does_not_average_its_members_is_refused(data):
    X, y, Xt, yt = data
    gb = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="does not predict the plain average"):
        A.ambiguity(gb, Xt, yt)

    class Skewed(DuckRegressor):
        def predict(self, X):
            return super().predict(X) + 1.0

    rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="do not average to its predict"):
        A.diagnose(Skewed(rf), Xt, yt)
    with pytest.raises(TypeError, match="a single model"):
        A.ambiguity(DecisionTreeRegressor().fit(X, y), Xt, yt)
    with pytest.raises(TypeError, match="not fitted"):
        A.ambiguity(RandomForestRegressor(), Xt, yt)


def test_dataframe_with_permuted_columns_refused(data):
    X, y, Xt, yt = data
    cols = [f"x{j}" for j in range(X.shape[1])]
    rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(pd.DataFrame(X, columns=cols),
                                                                   y)
    Xt_df = pd.DataFrame(Xt, columns=cols)
    A.ambiguity(rf, Xt_df, yt)  # the fit's order passes
    with pytest.raises(ValueError, match="in another order"):
        A.ambiguity(rf, Xt_df[cols[::-1]], yt)
    with pytest.raises(ValueError, match="in another order"):
        A.regression_outputs(rf, Xt_df[cols[::-1]])


def test_y_checks_once(data):
    X, y, Xt, yt = data
    rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    bad = yt.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="y holds NaN"):
        A.ambiguity(rf, Xt, bad)
    with pytest.raises(ValueError, match="one value per row"):
        A.ambiguity(rf, Xt, yt[:, None])
    with pytest.raises(ValueError, match="y has 59 values but X has 60 rows"):
        A.ambiguity(rf, Xt, yt[:-1])
    with pytest.raises(TypeError, match="real numbers"):
        A.ambiguity(rf, Xt, yt.astype(str))
    with pytest.raises(TypeError, match="y is required"):
        A.ambiguity(rf, Xt)


def test_raw_outputs_refused_with_wrong_dims_naming_the_argument():
    with pytest.raises(ValueError, match="model_or_outputs must be 2-d"):
        A.ambiguity(np.zeros((2, 3, 4)), y=np.zeros(3))
    da = xr.DataArray(np.zeros((3, 2)), dims=("sample", "class"))
    with pytest.raises(ValueError, match="model_or_outputs has a 'class' dim"):
        A.ambiguity(da, y=np.zeros(3))
    with pytest.raises(ValueError, match="model_or_outputs has 3 samples but y has 2"):
        A.ambiguity(np.zeros((2, 3)), y=np.zeros(2))


def test_classification_measures_refuse_regressors_and_real_outputs(data):
    X, y, Xt, yt = data
    rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    real = np.random.default_rng(0).normal(size=(4, 60))
    # before: member_outputs and diagnose took each distinct real value for a class
    with pytest.raises(ValueError, match="regression measures"):
        A.member_outputs(real)
    with pytest.raises(ValueError, match="regression measures"):
        A.diagnose(real, None, yt, combine="vote")
    for measure in (A.errors, A.error_correlation, A.strength_correlation,
                    A.pairwise_diversity):
        with pytest.raises(ValueError, match="member_labels .*regression measures"):
            measure(real, yt)
        with pytest.raises(TypeError, match="is a regressor.*regression measures"):
            measure(rf, yt, X=Xt)
    with pytest.raises(ValueError, match="bias_variance_diversity_regression"):
        A.bias_variance_diversity(real[None], yt)
    with pytest.raises(ValueError, match="regression loss"):
        A.bias_variance_diversity(real[None], yt, loss="poisson")
    with pytest.raises(ValueError, match="kind='proba' is for classifiers"):
        A.member_outputs(rf, Xt, kind="proba")
    with pytest.raises(TypeError, match="options of a classifier"):
        A.diagnose(rf, Xt, yt, single=0.3)  # ci= is a regressor's option too


def test_an_unfitted_treelab_classifier_is_still_called_unfitted(data):
    # it has member_predict and no classes_ yet: it was read as a regressor
    import treelab

    X, y, Xt, yt = data
    with pytest.raises(TypeError, match=r"not fitted \(no classes_\)"):
        A.diagnose(treelab.VRTrees(n_estimators=3), Xt, yt > yt.mean())


def test_regression_measures_refuse_classifiers(data):
    X, y, Xt, yt = data
    clf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y > y.mean())
    with pytest.raises(TypeError, match="is a classifier.*classification measures"):
        A.ambiguity(clf, Xt, yt)
    proba = A.member_outputs(clf, Xt)
    with pytest.raises(ValueError, match="'class' dim"):
        A.ambiguity(proba, y=yt)


def test_diagnose_regressor(data):
    X, y, Xt, yt = data
    rf = RandomForestRegressor(n_estimators=6, random_state=0).fit(X, y)
    ds = A.diagnose(rf, Xt, yt, X_train=X, y_train=y)
    pred = rf.predict(Xt)
    assert float(ds.mse) == pytest.approx(mean_squared_error(yt, pred), rel=1e-12)
    assert float(ds.r2) == pytest.approx(r2_score(yt, pred), rel=1e-12)
    assert float(ds.ensemble_mse) == pytest.approx(float(ds.mse), rel=1e-10)
    assert abs(float(ds.ensemble_mse - ds.average_member_mse + ds.ambiguity)) < 1e-10
    assert ds.member_mse.dims == ("tree",) and str(ds.ensemble.values) == \
        "RandomForestRegressor"
    # out of bag: the forest's error is that of scikit-learn's oob_prediction_
    oob_rf = RandomForestRegressor(n_estimators=25, oob_score=True, random_state=0).fit(X, y)
    ds = A.diagnose_regression(oob_rf, Xt, yt, X_train=X, y_train=y)
    seen = ~np.isnan(oob_rf.oob_prediction_)
    assert float(ds.oob_forest_mse) == pytest.approx(
        np.mean((y[seen] - oob_rf.oob_prediction_[seen]) ** 2), rel=1e-10)
    assert int(ds.oob_n_rows) == seen.sum()
    # the out-of-bag bound against the loops on the in-bag mask
    from treelab.analysis.oob import sklearn_in_bag

    f = np.stack([t.predict(X.astype(np.float32)) for t in oob_rf.estimators_])
    ref = naive.breiman(f.tolist(), y.tolist(), (sklearn_in_bag(oob_rf, 100) == 0).tolist())
    assert float(ds.oob_rho_bar) == pytest.approx(ref["rho_bar"], rel=1e-10)
    # the same rows in another order: each tree's root (mean target, weight) refuses them
    perm = np.random.default_rng(3).permutation(100)
    with pytest.raises(ValueError, match=r"estimators_\[0\]: its root's mean target and "
                                         r"weight .* not the training targets"):
        A.diagnose_regression(oob_rf, Xt, yt, X_train=X[perm], y_train=y[perm])


def test_diagnose_with_k_models_and_repeated_outputs(data):
    X, y, Xt, yt = data
    est = RandomForestRegressor(n_estimators=4, min_samples_leaf=3)
    out = A.repeated_member_outputs(est, X, y, Xt, 3, random_state=7)
    again = A.repeated_member_outputs(est, X, y, Xt, 3, random_state=7)
    np.testing.assert_array_equal(out.values, again.values)  # seeded: the same outputs
    assert out.dims == ("repeat", "tree", "sample")
    assert not np.array_equal(out.values[0], out.values[1])  # different training sets
    sub = A.repeated_member_outputs(est, X, y, Xt, 2, sampling="subsample", random_state=7)
    assert sub.sizes["repeat"] == 2
    models = [RandomForestRegressor(n_estimators=4, random_state=k).fit(X[k::2], y[k::2])
              for k in range(2)]
    rf = models[0]
    ds = A.diagnose_regression(rf, Xt, yt, models=models)
    f = np.stack([A.regression_outputs(m, Xt).values for m in models])
    bvd = A.bias_variance_diversity_regression(f, yt)
    assert float(ds.bvd_diversity) == float(bvd.diversity)
    assert float(ds.bvd_expected_loss) == pytest.approx(
        float(ds.bvd_bias_with_noise + ds.bvd_average_variance - ds.bvd_diversity), rel=1e-10)
    assert "louppe_mean_rho" in ds and "bvc_covariance" in ds
    with pytest.raises(ValueError, match="different numbers of members"):
        A.diagnose_regression(rf, Xt, yt, models=[models[0],
                                                  RandomForestRegressor(3).fit(X, y)])
    from_outputs = A.diagnose_regression(rf, Xt, yt, models=f)  # outputs given directly
    assert float(from_outputs.bvd_diversity) == float(bvd.diversity)
    via_x = A.bias_variance_diversity_regression(models, yt, X=Xt)
    assert float(via_x.diversity) == float(bvd.diversity)


def test_every_regression_variable_cites_a_paper_or_a_shipped_page(data):
    import re
    from pathlib import Path

    X, y, Xt, yt = data
    models = [RandomForestRegressor(n_estimators=3, random_state=k).fit(X, y) for k in range(2)]
    ds = A.diagnose_regression(models[0], Xt, yt, models=models, X_train=X, y_train=y)
    f = np.stack([A.regression_outputs(m, Xt).values for m in models]) + 20.0
    pois = A.bias_variance_diversity_regression(f, np.round(np.abs(yt)), loss="poisson")
    root = Path(__file__).resolve().parents[1]
    for result in (ds, pois):
        for name, da in [("attrs", result), *result.data_vars.items()]:
            cite = da.attrs.get("cite", "")
            pages = re.findall(r"treelab documentation, [\w/]+ \((docs/[\w/]+\.md)\)", cite)
            assert re.search(r"\(\d{4}\)", cite) or pages, f"{name} names no source: {cite}"
            assert all((root / p).is_file() for p in pages), cite
            if name != "attrs":
                assert da.attrs.get("long_name"), name


def test_diagnose_leaves_out_the_out_of_bag_numbers_of_models_that_do_not_bag(data):
    # extra-trees without bootstrap and voting keep no out-of-bag rows: the diagnosis of the
    # test rows stands without them (it failed whole), as the classifiers' does
    X, y, Xt, yt = data
    for model in (ExtraTreesRegressor(n_estimators=4, random_state=0).fit(X, y),
                  VotingRegressor([("lr", LinearRegression()), ("ridge", Ridge())]).fit(X, y)):
        ds = A.diagnose(model, Xt, yt, X_train=X, y_train=y)
        assert float(ds.mse) == pytest.approx(mean_squared_error(yt, model.predict(Xt)),
                                              rel=1e-12)
        assert not [name for name in ds.data_vars if name.startswith("oob_")]
    bagged = RandomForestRegressor(n_estimators=6, random_state=0).fit(X, y)
    assert "oob_forest_mse" in A.diagnose(bagged, Xt, yt, X_train=X, y_train=y)


@pytest.mark.parametrize("bad", [np.nan, -1, 0.5])
def test_in_bag_must_hold_counts(data, bad):
    # was: negative counts read as in the bag, NaN and fractions as "no out-of-bag row"
    X, y, Xt, yt = data
    f = np.random.default_rng(0).normal(size=(3, y.size)) + y
    bag = np.ones((3, y.size))
    bag[:, ::3] = 0
    A.breiman_regression_bound(f, y=y, in_bag=bag)  # counts pass
    bag[1, 4] = bad
    with pytest.raises(ValueError, match=r"in_bag must hold in-bag counts \(non-negative whole "
                                         r"numbers\) or booleans"):
        A.breiman_regression_bound(f, y=y, in_bag=bag)


def test_weighted_treelab_regressor_out_of_bag_names_the_way_that_works(data):
    import treelab
    from treelab.analysis.oob import regression_in_bag_counts

    X, y, Xt, yt = data
    sw = np.linspace(0.5, 2.0, y.size)
    model = treelab.BaggedTreesRegressor(n_estimators=4, random_state=0).fit(
        X, y, sample_weight=sw)
    with pytest.raises(ValueError, match=r"pass in_bag=treelab\.analysis\.oob\."
                                         r"regression_in_bag_counts\(model, y_train, "
                                         r"sample_weight=\.\.\.\)"):
        A.diagnose(model, Xt, yt, X_train=X, y_train=y)
    ds = A.breiman_regression_bound(model, X, y, in_bag=regression_in_bag_counts(
        model, y, sample_weight=sw))
    assert np.isfinite(float(ds.forest_mse))


def test_diagnose_records_k_of_models_given_in_another_dim_order():
    """K = 3 training sets given as a DataArray (sample, tree, repeat) over 6 rows: the
    diagnosis records 3 models (not the 6 of its first dim) and the numbers of the outputs."""
    import json

    rng = np.random.default_rng(4)
    rep = xr.DataArray(rng.normal(size=(3, 4, 6)), dims=("repeat", "tree", "sample"))
    y = rng.normal(size=6)
    ds = A.diagnose_regression(rep.values[0], None, y,
                               models=rep.transpose("sample", "tree", "repeat"))
    assert json.loads(ds.attrs["params"])["models"] == 3
    forest = rep.values.mean(axis=1)  # (repeat, sample)
    assert float(ds.bvc_expected_loss) == pytest.approx(float(np.mean((forest - y) ** 2)),
                                                        rel=1e-12)


def test_fitted_models_given_as_outputs_are_pointed_to_a_reader_that_reads_them(data):
    """Louppe's and Ueda & Nakano's decompositions take outputs only: K fitted forests are
    refused with a recipe that reads them (regression_outputs of each, stacked), and the
    recipe gives diagnose_regression's numbers for the same models."""
    X, y, Xt, yt = data
    models = [RandomForestRegressor(n_estimators=3, random_state=k).fit(X[k::2], y[k::2])
              for k in range(2)]
    for measure, args in ((A.louppe_variance, ()), (A.bias_variance_covariance, (yt,))):
        with pytest.raises(TypeError, match=r"regression_outputs\(m, X\)") as info:
            measure(models, *args)
        assert "repeated_member_outputs fits an unfitted estimator" in str(info.value)
    stacked = np.stack([A.regression_outputs(m, Xt) for m in models])
    ds = A.diagnose_regression(models[0], Xt, yt, models=models)
    assert float(A.louppe_variance(stacked).mean_rho) == float(ds.louppe_mean_rho)
    assert float(A.bias_variance_covariance(stacked, yt).covariance) == float(
        ds.bvc_covariance)


def test_diagnose_refuses_one_training_set_naming_models(data):
    X, y, Xt, yt = data
    rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    for models in ([rf], A.repeated_member_outputs(rf, X, y, Xt, 1)):
        with pytest.raises(ValueError, match=r"models holds one training set \(K = 1\)"):
            A.diagnose_regression(rf, Xt, yt, models=models)


def test_diagnose_one_member_leaves_out_breiman_also_out_of_bag(data):
    """A forest of one tree: no pair of members, so neither the test-row nor the out-of-bag
    bound; its error and ambiguity (0) are those of the tree, by scikit-learn's metric."""
    X, y, Xt, yt = data
    rf = RandomForestRegressor(n_estimators=1, random_state=0).fit(X, y)
    for kwargs in ({}, {"X_train": X, "y_train": y}):
        ds = A.diagnose_regression(rf, Xt, yt, **kwargs)
        assert not [k for k in ds.data_vars if "rho" in k or "bound" in k]
        assert float(ds.mse) == pytest.approx(
            mean_squared_error(yt, rf.estimators_[0].predict(Xt.astype(np.float32))),
            rel=1e-12)
        assert float(ds.ambiguity) == 0.0
