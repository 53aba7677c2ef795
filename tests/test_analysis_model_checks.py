"""One place checks every model, its rows X and its labels y before any measure reads it
(issue 39, items 2, 7, 8, 9, 10, 11, 16 and 20): the width of X against the model and every
member, its column names as scikit-learn's ``predict`` checks them, what kind of model it is,
missing labels and labels of another type, and diagnose's ``single=`` and ``thresholds=``.

Every entry point that takes a model with ``X`` must refuse the same inputs, so each check is
run through all of them."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import (
    BaggingClassifier,
    ExtraTreesClassifier,
    IsolationForest,
    RandomForestClassifier,
    RandomForestRegressor,
    StackingClassifier,
    VotingClassifier,
)
from sklearn.model_selection import GridSearchCV
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier, OutputCodeClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import treelab
from treelab import analysis as A

NAMES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    return X[order], y[order]


def _entry_points():
    """Every public measure that reads a model on X, as f(model, X, y)."""
    return {
        "diagnose": lambda m, X, y: A.diagnose(m, X, y),
        "member_outputs": lambda m, X, y: A.member_outputs(m, X),
        "errors": lambda m, X, y: A.errors(m, y, X=X),
        "error_correlation": lambda m, X, y: A.error_correlation(m, y, X=X),
        "error_arrangement": lambda m, X, y: A.error_arrangement(m, y, X=X),
        "pairwise_diversity": lambda m, X, y: A.pairwise_diversity(m, y, X=X),
        "nonpairwise_diversity": lambda m, X, y: A.nonpairwise_diversity(m, y, X=X),
        "margins": lambda m, X, y: A.margins(m, y, X=X),
        "strength_correlation": lambda m, X, y: A.strength_correlation(m, y, X=X),
    }


ENTRY = _entry_points()


# ------------------------------------------------------------------ width (items 2 and 8)
@pytest.fixture(scope="module")
def wide_bag(iris):
    X, y = iris
    X30 = np.hstack([X] * 8)[:, :30] + np.random.default_rng(1).normal(0, 0.01, (len(y), 30))
    bag = BaggingClassifier(n_estimators=6, max_features=0.5, random_state=0).fit(X30, y)
    return bag, X30, y


@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_bagging_with_too_few_columns_is_refused_by_every_measure(wide_bag, entry):
    # was IndexError: index 20 is out of bounds, from deep inside the bagging reader
    bag, X30, y = wide_bag
    with pytest.raises(ValueError, match="X has 3 features, but BaggingClassifier is "
                                         "expecting 30"):
        ENTRY[entry](bag, X30[:, :3], y)


@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_bagging_with_too_many_columns_is_refused_by_every_measure(wide_bag, entry):
    # was accepted (members read their own columns of the first 30); bag.predict refuses it
    bag, X30, y = wide_bag
    X60 = np.hstack([X30, X30])
    with pytest.raises(ValueError, match="BaggingClassifier"):
        bag.predict(X60)
    with pytest.raises(ValueError, match="X has 60 features"):
        ENTRY[entry](bag, X60, y)


def test_bagging_members_are_checked_against_their_columns(wide_bag):
    # a model without n_features_in_ (older or hand-built) still has its members' columns
    bag, X30, y = wide_bag
    import copy

    odd = copy.copy(bag)
    del odd.n_features_in_
    with pytest.raises(ValueError, match="reads column"):
        A.member_outputs(odd, X30[:, :10])


@pytest.mark.parametrize("width", [3, 8])
def test_voting_and_pool_widths_are_checked_per_member(iris, width):
    X, y = iris
    trees = [DecisionTreeClassifier(max_depth=d, random_state=0).fit(X, y) for d in (1, 2)]
    Xw = np.hstack([X, X])[:, :width]
    with pytest.raises(ValueError, match=f"X has {width} features, but pool\\[0\\]"):
        A.diagnose(trees, Xw, y, combine="vote")
    vote = VotingClassifier([("a", DecisionTreeClassifier(random_state=0)),
                             ("b", DecisionTreeClassifier(max_depth=2, random_state=0))]
                            ).fit(X, y)
    with pytest.raises(ValueError, match=f"X has {width} features"):
        A.errors(vote, y, X=Xw)


# ------------------------------------------------------------ column names (item 7)
@pytest.fixture(scope="module")
def frame_models(iris):
    X, y = iris
    df = pd.DataFrame(X, columns=NAMES)
    return df, y, {
        "RandomForest": RandomForestClassifier(n_estimators=10, random_state=0).fit(df, y),
        "ExtraTrees": ExtraTreesClassifier(n_estimators=10, random_state=0).fit(df, y),
        "Bagging": BaggingClassifier(n_estimators=10, random_state=0).fit(df, y),
        "Voting": VotingClassifier([("a", DecisionTreeClassifier(random_state=0)),
                                    ("b", DecisionTreeClassifier(max_depth=2, random_state=0))]
                                   ).fit(df, y),
        "VRTrees": treelab.VRTrees(n_estimators=4, random_state=0).fit(df, y),
    }


@pytest.mark.parametrize("kind", ["RandomForest", "ExtraTrees", "Bagging", "Voting", "VRTrees"])
@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_permuted_columns_are_refused_as_predict_refuses_them(frame_models, kind, entry):
    # was: ensemble_error 0.629 for the forest (truth 0.049) with the columns reversed
    df, y, models = frame_models
    model = models[kind]
    rev = df[df.columns[::-1]]
    with pytest.raises(ValueError):
        model.predict(rev)
    with pytest.raises(ValueError, match="feature names"):
        ENTRY[entry](model, rev, y)


@pytest.mark.parametrize("kind", ["RandomForest", "Bagging", "Voting"])
def test_renamed_columns_are_refused_naming_the_names(frame_models, kind):
    df, y, models = frame_models
    renamed = df.rename(columns={"petal_width": "petal_w"})
    with pytest.raises(ValueError, match=r"unseen at fit time \['petal_w'\].*missing "
                                         r"\['petal_width'\]"):
        A.diagnose(models[kind], renamed, y)


def test_reordered_frame_equals_the_original_and_a_numpy_array_warns(frame_models):
    df, y, models = frame_models
    rf = models["RandomForest"]
    ref = A.diagnose(rf, df, y)
    shuffled = df[df.columns[::-1]][rf.feature_names_in_]  # the documented remedy
    assert float(A.diagnose(rf, shuffled, y).ensemble_error) == float(ref.ensemble_error)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        got = A.diagnose(rf, df.to_numpy(), y)
    assert float(got.ensemble_error) == float(ref.ensemble_error)


def test_pool_members_fitted_on_frames_check_names(frame_models):
    df, y, _ = frame_models
    pool = [DecisionTreeClassifier(max_depth=d, random_state=0).fit(df, y) for d in (1, 3)]
    with pytest.raises(ValueError, match=r"pool\[0\].*another order"):
        A.member_outputs(pool, df[df.columns[::-1]])


# ----------------------------------------------------- kinds of model (items 9 and 16)
@pytest.mark.parametrize(("make", "match"), [
    (lambda: OneVsRestClassifier(DecisionTreeClassifier(random_state=0)), "binary questions"),
    (lambda: OneVsOneClassifier(DecisionTreeClassifier(random_state=0)), "binary questions"),
    (lambda: OutputCodeClassifier(DecisionTreeClassifier(random_state=0), random_state=0),
     "binary questions"),
    (lambda: StackingClassifier([("rf", RandomForestClassifier(n_estimators=3,
                                                               random_state=0))]),
     "learned final estimator"),
    (lambda: RandomForestRegressor(n_estimators=3, random_state=0), "is a regressor"),
    (lambda: GridSearchCV(RandomForestClassifier(n_estimators=3, random_state=0),
                          {"max_depth": [2]}, cv=2), "best_estimator_"),
    (lambda: make_pipeline(StandardScaler(),
                           RandomForestClassifier(n_estimators=3, random_state=0)),
     r"pipeline\[-1\]"),
])
@pytest.mark.parametrize("entry", ["diagnose", "member_outputs", "pairwise_diversity", "errors"])
def test_models_that_are_no_ensemble_of_their_classes_are_refused(iris, make, match, entry):
    # OvR was read as an ensemble: phi_e 0.298 from "is class k" answers read as labels
    X, y = iris
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X, y)
    if match == "is a regressor" and entry in ("diagnose", "member_outputs"):
        # these two read a regressor as one: its members' real-valued predictions
        out = ENTRY[entry](model, X, y)
        assert "class" not in out.dims and ("mse" in out if entry == "diagnose" else
                                            out.dims == ("tree", "sample"))
        return
    with pytest.raises(TypeError, match=match):
        ENTRY[entry](model, X, y)


def test_fitted_outlier_detector_is_named_not_called_unfitted(iris):
    X, y = iris
    iso = IsolationForest(n_estimators=5, random_state=0).fit(X)
    with pytest.raises(TypeError, match="IsolationForest is an outlier detector") as info:
        A.diagnose(iso, X, y)
    assert "not fitted" not in str(info.value)
    with pytest.raises(TypeError, match="RandomForestRegressor is a regressor") as info:
        A.errors(RandomForestRegressor(n_estimators=3).fit(X, y), y, X=X)
    assert "not fitted" not in str(info.value)


def test_unfitted_model_is_still_called_unfitted(iris):
    X, y = iris
    with pytest.raises(TypeError, match=r"not fitted \(no classes_\)"):
        A.diagnose(RandomForestClassifier(), X, y)


def test_best_estimator_and_last_step_work_as_the_hints_say(iris):
    X, y = iris
    grid = GridSearchCV(RandomForestClassifier(n_estimators=3, random_state=0),
                        {"max_depth": [2]}, cv=2).fit(X, y)
    pipe = make_pipeline(StandardScaler(),
                         RandomForestClassifier(n_estimators=3, random_state=0)).fit(X, y)
    ds = A.diagnose(grid.best_estimator_, X, y)
    assert float(ds.ensemble_error) == np.mean(grid.predict(X) != y)
    ds = A.diagnose(pipe[-1], pipe[:-1].transform(X), y)
    assert float(ds.ensemble_error) == np.mean(pipe.predict(X) != y)


# ------------------------------------------------------------------ labels (item 10)
@pytest.fixture(scope="module")
def string_forest(iris):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])
    return RandomForestClassifier(n_estimators=5, random_state=0).fit(X, names[y]), X, y


@pytest.mark.parametrize("entry", sorted(set(ENTRY) - {"member_outputs"}))
def test_labels_of_another_type_are_refused(string_forest, entry):
    # was: ensemble_error 1.0 and classes ['setosa', ..., '0', '1', '2'] without a word
    rf, X, y = string_forest
    with pytest.raises(ValueError, match=r"y shares no label with RandomForestClassifier's "
                                         r"classes_.*\['setosa'"):
        ENTRY[entry](rf, X, y)


@pytest.mark.parametrize("entry", sorted(set(ENTRY) - {"member_outputs"}))
def test_missing_labels_are_refused(iris, entry):
    # was: NaN became a class of its own
    X, y = iris
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    y_nan = y.astype(float)
    y_nan[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=r"y holds a missing label .* 2 position\(s\), the "
                                         r"first \[3, 7\]"):
        ENTRY[entry](rf, X, y_nan)
    y_obj = y.astype(object)
    y_obj[5] = None
    with pytest.raises(ValueError, match="missing label"):
        ENTRY[entry](rf, X, y_obj)


def test_missing_labels_are_refused_for_member_outputs_too():
    with pytest.raises(ValueError, match="missing label"):
        A.pairwise_diversity([[0, 1, 1], [1, 1, 0]], [0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="missing label"):
        A.diagnose(np.array([[0, 1, 1], [1, 1, 0]]), None, [0.0, np.nan, 1.0])


@pytest.mark.parametrize("labels", [[3, 7, 10], [1, 2, 3], ["a", "b", "c"]])
def test_raw_probabilities_without_classes_refuse_y_that_is_not_their_codes(iris, labels):
    # was: every row of labels 3, 7, 10 became a class no member knows (ensemble_error 1.0
    # for a forest of error 0.05); with labels 1..3, the rows of label 3 alone (0.95)
    X, y = iris
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    P = A.member_outputs(rf, X).values  # (tree, sample, class): numbers, no labels
    y_labels = np.asarray(labels)[y]
    with pytest.raises(ValueError, match=r"y holds labels .* not codes of the member "
                                         r"probabilities' 3 columns .* pass classes="):
        A.diagnose(P, None, y_labels, combine="average")
    # the columns' labels given: the model's own numbers
    ds = A.diagnose(P, None, y_labels, combine="average", classes=labels)
    assert float(ds.ensemble_error) == np.mean(rf.predict(X) != y)
    # codes need nothing more, and a DataArray's class coordinate names the columns
    assert float(A.diagnose(P, None, y, combine="average").ensemble_error) == \
        np.mean(rf.predict(X) != y)
    da = A.member_outputs(rf, X).assign_coords({"class": labels})
    assert float(A.diagnose(da, None, y_labels, combine="average").ensemble_error) == \
        np.mean(rf.predict(X) != y)


def test_training_rows_are_checked_before_any_work(iris):
    # was: "cannot reshape array of size 500 into shape (1,5,97)" from the out-of-bag pass
    X, y = iris
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X_train has 97 rows but y_train has 150 labels"):
        A.diagnose(rf, X, y, X_train=X[:97], y_train=y)
    with pytest.raises(ValueError, match="X_train has 150 rows but y_train has 149 labels"):
        A.diagnose(rf, X, y, X_train=X, y_train=pd.Series(y[:149]))
    # was: the out-of-bag values left out without a word
    with pytest.raises(ValueError, match="X_train was given without y_train"):
        A.diagnose(rf, X, y, X_train=X)
    with pytest.raises(ValueError, match="y_train was given without X_train"):
        A.diagnose(rf, X, y, y_train=y)


def test_a_single_model_whose_labels_y_does_not_share_is_refused(iris):
    # was: single_error 1.0 and an error ratio from it, for a tree of error 0.04
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, names[y])
    coded = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"y shares no label with the single model "
                                         r"\(DecisionTreeClassifier\)'s classes_"):
        A.diagnose(rf, X, names[y], single=coded)
    own = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, names[y])
    ds = A.diagnose(rf, X, names[y], single=own)
    assert float(ds.single_error) == np.mean(own.predict(X) != names[y])


def test_some_unseen_labels_are_still_classes_of_their_own(iris):
    # a test label the model never saw, beside labels it knows, stays an error of every member
    X, y = iris
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[y < 2], y[y < 2])
    ds = A.diagnose(rf, X, y)
    assert list(ds["class"].values) == [0, 1, 2]
    assert float(ds.class_error.sel({"class": 2})) == 1.0


# --------------------------------------------------------------- single= (item 11)
@pytest.mark.parametrize("single", [-0.5, 1.5, np.inf, -np.inf, np.float64(-1e-9)])
def test_single_error_outside_the_unit_interval_is_refused(iris, single):
    X, y = iris
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"single must be an error rate in \[0, 1\]"):
        A.diagnose(rf, X, y, single=single)


def test_single_error_at_the_bounds_is_accepted(iris):
    X, y = iris
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X[:100], y[:100])
    e_e = float(A.diagnose(rf, X[100:], y[100:]).ensemble_error)
    assert float(A.diagnose(rf, X[100:], y[100:], single=1).error_ratio) == e_e
    with pytest.warns(RuntimeWarning, match="single-model error is 0"):
        assert np.isnan(float(A.diagnose(rf, X[100:], y[100:], single=0.0).error_ratio))
    # NaN: no single-model error (the runner's single = false), so no error ratio
    ds = A.diagnose(rf, X[100:], y[100:], single=np.nan)
    assert np.isnan(float(ds.error_ratio)) and float(ds.ensemble_error) == e_e


# ------------------------------------------------------------- top-K names (item 20)
@pytest.mark.parametrize("thresholds", [("top9",), ("1.0", "top4"), "top4", {"t": "top5"}])
def test_top_k_threshold_above_the_class_count_is_refused(iris, thresholds):
    # was: thresholded_mse 0.0, a number that measures nothing
    X, y = iris
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="of 3 classes; K must be at most the class count"):
        A.diagnose(rf, X, y, thresholds=thresholds)


def test_top_k_up_to_the_class_count_and_the_default_are_kept(iris):
    X, y = iris
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    ds = A.diagnose(rf, X, y, thresholds=("top1", "top3"))
    assert list(ds.threshold.values) == ["top1", "top3"]
    binary = RandomForestClassifier(n_estimators=3, random_state=0).fit(X[y < 2], y[y < 2])
    ds = A.diagnose(binary, X[y < 2], y[y < 2])  # the default's top3 on two classes
    assert float(ds.thresholded_mse.sel(threshold="top3")) == 0.0
