"""Thresholded / exact MSE, top-k error, reliability and profit against naive references."""

import naive_analysis as naive
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelab.analysis import (
    bias_variance,
    cost_sensitive_profit,
    cost_thresholds,
    exact_mse,
    reliability,
    thresholded_mse,
    topk_error,
)

FAST = settings(max_examples=150, deadline=None)
NAMES = ("1.0", "top1", "top2", "top3", "top4", "bayes")


@FAST
@given(naive.proba_problem(), st.data())
def test_thresholded_mse_matches_naive(problem, data):
    P, y = problem
    v = data.draw(hnp.arrays(np.float64, len(y), elements=st.floats(0, 1.5)))
    out = thresholded_mse(P, y, thresholds=(*NAMES, v))
    assert out.dims == ("threshold",)
    assert list(out.threshold.values) == [*NAMES, "custom"]
    for name in NAMES:
        ref = naive.thresholded_mse_any_c(P.tolist(), y.tolist(), name)
        assert float(out.sel(threshold=name)) == pytest.approx(ref, abs=1e-12)
    ref = naive.thresholded_mse(P.tolist(), y.tolist(), v.tolist())
    assert float(out.sel(threshold="custom")) == pytest.approx(ref, abs=1e-12)


@FAST
@given(naive.proba_problem())
def test_topk_matches_naive(problem):
    P, y = problem
    out = topk_error(P, y, k=(1, 2, 3, 6))
    for k in (1, 2, 3, 6):
        assert float(out.sel(k=k)) == pytest.approx(naive.topk_error(P.tolist(), y.tolist(), k))
    # top-1 error is the error of argmax prediction (ties to the lower index)
    assert float(out.sel(k=1)) == pytest.approx(np.mean(np.argmax(P, axis=1) != y))


@FAST
@given(naive.proba_problem(), naive.proba_problem())
def test_exact_mse_matches_naive(p1, p2):
    P, Q = p1[0], p2[0]
    n = min(len(P), len(Q))
    C = min(P.shape[1], Q.shape[1])
    P, Q = _renormalised(P[:n, :C]), _renormalised(Q[:n, :C])
    assert float(exact_mse(P, Q)) == pytest.approx(naive.exact_mse(P.tolist(), Q.tolist()))


def _renormalised(P):
    """Rows scaled to sum to 1 (uniform where a row is all zero)."""
    tot = P.sum(axis=-1, keepdims=True)
    return np.where(tot > 0, P / np.where(tot > 0, tot, 1.0), 1.0 / P.shape[-1])


@FAST
@given(naive.proba_problem(), st.integers(1, 6))
def test_reliability_uniform_matches_naive(problem, bins):
    P, y = problem
    ds = reliability(P, y, bins=bins)
    mean_p, freq, count = naive.reliability_uniform(P.tolist(), y.tolist(), bins)
    np.testing.assert_allclose(ds.mean_predicted.values, mean_p, atol=1e-12)
    np.testing.assert_allclose(ds.observed_frequency.values, freq, atol=1e-12)
    np.testing.assert_array_equal(ds["count"].values, count)
    assert ds.mean_predicted.dims == ("class", "bin")


@FAST
@given(naive.proba_problem(), st.integers(1, 5))
def test_reliability_quantile_counts(problem, bins):
    P, y = problem
    ds = reliability(P, y, bins=bins, strategy="quantile")
    assert np.all(ds["count"].sum("bin").values == len(y))
    empty = ds["count"].values == 0
    assert np.all(np.isnan(ds.mean_predicted.values[empty]))
    # every value lies within its bin's edges
    lo, hi = ds.bin_lower.values, ds.bin_upper.values
    m = ds.mean_predicted.values
    ok = ~empty
    assert np.all(m[ok] >= lo[ok] - 1e-12) and np.all(m[ok] <= hi[ok] + 1e-12)


@FAST
@given(naive.proba_problem(max_classes=3), st.data())
def test_profit_matches_naive(problem, data):
    P, y = problem
    n, C = P.shape
    benefit = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 200)))
    cost = data.draw(st.floats(0, 100))
    pos = data.draw(st.integers(0, C - 1))
    out = cost_sensitive_profit(P, y, benefit=benefit, cost=cost, positive=pos)
    ref = naive.profit(P.tolist(), y.tolist(), benefit.tolist(), [cost] * n, pos)
    assert float(out) == pytest.approx(ref, abs=1e-9)


def test_correct_prediction_costs_nothing_for_every_threshold():
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.5, 0.4], [0.0, 0.0, 1.0]])
    y = np.array([0, 1, 2])
    out = thresholded_mse(P, y, thresholds=("top1", "top2", "top3", "bayes", 0.3))
    np.testing.assert_array_equal(out.values, 0.0)
    one = thresholded_mse(P, y, thresholds="1.0")
    assert float(one.squeeze()) == pytest.approx(np.mean([0.3**2, 0.5**2, 0.0]))


@FAST
@given(naive.proba_problem())
def test_certain_correct_prediction_is_zero_for_every_threshold(problem):
    _, y = problem
    C = int(y.max()) + 1
    onehot = np.eye(C)[y]
    out = thresholded_mse(onehot, y, thresholds=(*NAMES, 0.7, np.full(len(y), 0.2)))
    np.testing.assert_array_equal(out.values, 0.0)


def test_thresholded_mse_hand_example():
    P = np.array([[0.6, 0.3, 0.1]])
    y = np.array([1])
    out = thresholded_mse(P, y, thresholds={"v": 0.6, "t2": "top2", "one": "1.0"})
    assert float(out.sel(threshold="v")) == pytest.approx((1 - 0.3 / 0.6) ** 2)
    assert float(out.sel(threshold="t2")) == 0.0
    assert float(out.sel(threshold="one")) == pytest.approx(0.7**2)


def test_cost_sensitive_profit_hand_example():
    # fraud: challenge when P(fraud) * amount > 90; +amount - 90 if fraud, -90 otherwise
    P = np.array([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8], [0.99, 0.01]])
    y = np.array([1, 0, 0, 1])
    amount = np.array([200.0, 2000.0, 50.0, 100.0])
    out = cost_sensitive_profit(P, y, benefit=amount, cost=90.0)
    # acts on row 0 (100 > 90, fraud: +110) and row 1 (200 > 90, legit: -90)
    assert float(out) == pytest.approx(20.0)
    assert out.attrs["n_actions"] == 2
    assert out.attrs["oracle_profit"] == pytest.approx(110 + 10)
    labelled = cost_sensitive_profit(
        P,
        np.array(["f", "ok", "ok", "f"]),
        benefit=amount,
        cost=90.0,
        positive="f",
        classes=["ok", "f"],
    )
    assert float(labelled) == pytest.approx(20.0)


def test_bias_variance_identity_and_naive():
    rng = np.random.default_rng(3)
    for K, n, C in [(1, 5, 2), (7, 20, 3), (30, 50, 4)]:
        probas = rng.dirichlet(np.ones(C), size=(K, n))
        target = rng.dirichlet(np.ones(C), size=n)
        ds = bias_variance(probas, target)
        np.testing.assert_allclose(
            ds.sample_bias + ds.sample_variance, ds.sample_loss, rtol=0, atol=1e-12
        )
        assert abs(float(ds.bias + ds.variance - ds.loss)) < 1e-12
        b, v, l_ = naive.bias_variance(probas.tolist(), target.tolist())
        np.testing.assert_allclose(ds.sample_bias, b, atol=1e-12)
        np.testing.assert_allclose(ds.sample_variance, v, atol=1e-12)
        np.testing.assert_allclose(ds.sample_loss, l_, atol=1e-12)


@FAST
@given(hnp.arrays(np.float64, (4, 6, 3), elements=st.floats(0, 1)), st.data())
def test_bias_variance_identity_property(raw, data):
    probas = _renormalised(raw)
    y = data.draw(hnp.arrays(np.int64, 6, elements=st.integers(0, 2)))
    ds = bias_variance(probas, y)  # one-hot target
    np.testing.assert_allclose(
        ds.sample_bias + ds.sample_variance, ds.sample_loss, rtol=0, atol=1e-12
    )


def test_bias_variance_zero_variance():
    p = np.tile(np.array([[0.2, 0.8], [0.5, 0.5]]), (5, 1, 1))
    ds = bias_variance(p, np.array([1, 0]))
    assert float(ds.variance) == 0
    assert float(ds.bias) == pytest.approx((0.2**2 * 2 + 0.5**2 * 2) / 2)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: thresholded_mse(np.ones(3), [0, 0, 0]), ValueError, "proba"),
        (lambda: thresholded_mse(np.full((2, 2), 0.5), [0, 0, 0]), ValueError, "samples"),
        (lambda: thresholded_mse(np.full((2, 2), 0.5), [0, 2]), ValueError, "y"),
        (
            lambda: thresholded_mse(np.full((2, 2), 0.5), [0, 1], thresholds="top"),
            ValueError,
            "unknown",
        ),
        (
            lambda: thresholded_mse(np.full((2, 2), 0.5), [0, 1], thresholds=("top0",)),
            ValueError,
            "unknown",
        ),
        (lambda: thresholded_mse(np.full((2, 2), 1.5), [0, 1]), ValueError, "proba"),
        (
            lambda: thresholded_mse(np.full((2, 2), 0.5), [0, 1], thresholds=[np.ones(3)]),
            ValueError,
            "shape",
        ),
        (lambda: exact_mse(np.full((2, 2), 0.5), np.full((2, 3), 0.5)), ValueError, "true_proba"),
        (lambda: topk_error(np.full((2, 2), 0.5), [0, 1], k=0), ValueError, "k"),
        (lambda: reliability(np.full((2, 2), 0.5), [0, 1], bins=0), ValueError, "bins"),
        (lambda: reliability(np.full((2, 2), 0.5), [0, 1], strategy="x"), ValueError, "strategy"),
        (lambda: bias_variance(np.full((2, 2), 0.5), np.full((2, 2), 0.5)), ValueError, "probas"),
        (
            lambda: bias_variance(np.full((1, 2, 2), 0.5), np.full((3, 2), 0.5)),
            ValueError,
            "target",
        ),
        (
            lambda: cost_sensitive_profit(np.full((2, 2), 0.5), [0, 1], benefit=[1, 2, 3], cost=1),
            ValueError,
            "benefit",
        ),
        (
            lambda: cost_sensitive_profit(
                np.full((2, 2), 0.5), [0, 1], benefit=1, cost=1, positive=2
            ),
            ValueError,
            "positive",
        ),
        (
            lambda: thresholded_mse(xr.DataArray(np.full((2, 2), 0.5), dims=["a", "b"]), [0, 1]),
            ValueError,
            "proba",
        ),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_dataarray_inputs_transposed():
    P = np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    y = np.array([0, 0, 1])
    da = xr.DataArray(P.T, dims=["class", "sample"])
    np.testing.assert_allclose(topk_error(da, y).values, topk_error(P, y).values)
    assert float(topk_error(P, y, k=1).sel(k=1)) == pytest.approx(2 / 3)


def test_bayes_threshold_three_classes_is_the_zero_one_decision():
    P = np.array([[0.5, 0.3, 0.2], [0.3, 0.45, 0.25], [0.2, 0.4, 0.4]])
    y = np.array([0, 0, 2])
    out = thresholded_mse(P, y, thresholds="bayes").item()
    # row 0 right (0.5 beats 0.3); row 1 wrong: 0.3 against v = 0.45; row 2 tied: distance 0
    assert out == pytest.approx(((1 - 0.3 / 0.45) ** 2) / 3)


def test_scalar_and_list_thresholds():
    P = np.array([[0.6, 0.4], [0.2, 0.8], [0.5, 0.5]])
    y = np.array([1, 1, 0])
    scalar = thresholded_mse(P, y, thresholds=0.5)
    assert scalar.dims == ("threshold",) and scalar.threshold.values.tolist() == ["0.5"]
    assert scalar.item() == pytest.approx(((1 - 0.4 / 0.5) ** 2) / 3)
    rows = [0.9, 0.5, 0.25]
    listed = thresholded_mse(P, y, thresholds=rows)
    assert listed.threshold.values.tolist() == ["custom"]
    ref = naive.thresholded_mse(P.tolist(), y.tolist(), rows)
    assert listed.item() == pytest.approx(ref)
    with pytest.raises(ValueError, match="custom"):
        thresholded_mse(P, y, thresholds=[0.5, 0.5])


@FAST
@given(naive.proba_problem(), st.data())
def test_cost_thresholds_match_naive(problem, data):
    P, y = problem
    n = len(y)
    a = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 500)))
    c = data.draw(st.floats(0, 200))
    pos = int(y[0])
    v = cost_thresholds(y, benefit=a, cost=c, positive=pos)
    ref = naive.cost_thresholds(y.tolist(), a.tolist(), [c] * n, pos)
    np.testing.assert_allclose(v, ref, atol=1e-12)
    out = thresholded_mse(P, y, thresholds={"cost": v})
    assert out.item() == pytest.approx(naive.thresholded_mse(P.tolist(), y.tolist(), ref))


def test_cost_thresholds_refuse_a_positive_class_y_never_holds():
    # text labels with the default positive=1 (or a code out of range) made every row
    # negative: fraud rows got 1 - 10 / 100 = 0.9 where their threshold is 10 / 100 = 0.1
    y = np.array(["fraud", "legit"])
    np.testing.assert_allclose(
        cost_thresholds(y, benefit=100.0, cost=10.0, positive="fraud"), [0.1, 0.9])
    with pytest.raises(ValueError, match=r"positive=1 is not a label of y .*'fraud', 'legit'"):
        cost_thresholds(y, benefit=100.0, cost=10.0)
    with pytest.raises(ValueError, match="positive=5 is not a label of y"):
        cost_thresholds([0, 1, 1], benefit=100.0, cost=10.0, positive=5)
    # with classes= a y without positive rows is read: every row is negative
    np.testing.assert_allclose(cost_thresholds(["legit", "legit"], benefit=100.0, cost=10.0,
                                               positive="fraud", classes=["fraud", "legit"]),
                               [0.9, 0.9])
    with pytest.raises(ValueError, match="positive"):
        cost_thresholds(["legit"], benefit=100.0, cost=10.0, positive="fruad",
                        classes=["fraud", "legit"])


def test_profit_reads_positive_by_the_class_coordinate_as_it_reads_y():
    # columns labelled 1, 0 (y read by those labels): positive=0 was taken as column 0, the
    # class labelled 1, giving 17.0 from 3 actions; the class labelled 0 is column 1, so by
    # hand P(0 | x) * 10 = 8, 1, 7 against the cost 1 acts on rows 0 and 2: 9 - 1 = 8
    P = np.array([[0.2, 0.8], [0.9, 0.1], [0.3, 0.7]])
    da = xr.DataArray(P, dims=("sample", "class"), coords={"class": [1, 0]})
    out = cost_sensitive_profit(da, [0, 1, 1], benefit=10.0, cost=1.0, positive=0)
    assert float(out) == 8.0 and out.attrs["n_actions"] == 2
    text = da.assign_coords({"class": ["yes", "no"]})
    out = cost_sensitive_profit(text, ["no", "yes", "no"], benefit=10.0, cost=1.0,
                                positive="no")  # acts on rows 0 and 2, both "no": 9 + 9
    assert float(out) == 18.0 and out.attrs["n_actions"] == 2
    with pytest.raises(ValueError, match="positive"):  # a code where y holds labels
        cost_sensitive_profit(da.assign_coords({"class": [3, 7]}), [3, 7, 7], benefit=10.0,
                              cost=1.0, positive=1)


def test_topk_thresholds_count_ties_for_the_true_class_and_topk_error_does_not():
    # the docstrings: a class tied with the K-th highest reaches the top-K threshold (ISE 0),
    # while topk_error ranks it after a lower class index of equal probability
    P = np.array([[0.5, 0.5, 0.0], [0.4, 0.3, 0.3], [0.2, 0.4, 0.4]])
    y = [1, 2, 2]
    np.testing.assert_allclose(thresholded_mse(P, y, thresholds=["top1", "top2"]).values,
                               [(1 - 0.3 / 0.4) ** 2 / 3, 0.0], rtol=0, atol=1e-15)
    # ranks: row 0 class 1 after class 0 (tie), row 1 class 2 after 0 and 1 (tie), row 2 class
    # 2 after class 1 (tie)
    assert topk_error(P, y, k=[1, 2, 3]).values.tolist() == [1.0, 1 / 3, 0.0]


def test_cost_thresholds_read_a_class_the_model_never_saw_as_thresholded_mse_does():
    # was: "y holds label 'new' that is not in classes", where thresholded_mse takes the row
    y = np.array(["f", "l", "new"])
    v = cost_thresholds(y, benefit=100.0, cost=10.0, positive="f", classes=["f", "l"])
    np.testing.assert_allclose(v, [0.1, 0.9, 0.9], rtol=0, atol=1e-15)
    P = np.array([[0.05, 0.95], [0.2, 0.8], [0.5, 0.5]])
    out = thresholded_mse(P, y, thresholds={"cost": v}, classes=["f", "l"])
    # by hand: (1 - 0.05 / 0.1)^2 = 0.25, 0.8 / 0.9 -> (1/9)^2, the unseen class 1
    assert out.item() == pytest.approx((0.25 + (1 / 9) ** 2 + 1.0) / 3, abs=1e-15)


def test_reliability_puts_a_value_on_an_inner_edge_in_the_upper_bin():
    # the docstring: a value equal to an inner edge goes to the upper bin. floor(p * bins)
    # put 15/22 in bin 14 ((15/22) * 22 is 14.999999999999998) and 0.3 in bin 3 whose reported
    # lower edge was linspace's 0.30000000000000004
    for bins, k in ((22, 15), (23, 13), (10, 3), (7, 5), (43, 31)):
        P = np.array([[k / bins, 1 - k / bins]])
        ds = reliability(P, [0], bins=bins)
        assert int(ds["count"].values[0, k]) == 1, (bins, k)
        assert ds["bin_lower"].values[0, k] == k / bins
        assert ds["bin_lower"].values[0, k] <= P[0, 0] < ds["bin_upper"].values[0, k]


def test_cost_thresholds_fraud_hand_worked():
    # challenge a transaction when P(fraud) * amount > 90
    y = np.array(["fraud", "legit", "legit"], dtype=object)
    amount = np.array([300.0, 300.0, 60.0])
    v = cost_thresholds(y, benefit=amount, cost=90.0, positive="fraud",
                        classes=["fraud", "legit"])
    np.testing.assert_allclose(v, [0.3, 0.7, 0.0])  # 60 < 90: never challenged, always right
    P = np.array([[0.2, 0.8], [0.4, 0.6], [0.9, 0.1]])
    out = thresholded_mse(P, y, thresholds={"cost": v}, classes=["fraud", "legit"])
    assert out.item() == pytest.approx(((1 - 0.2 / 0.3) ** 2 + (1 - 0.6 / 0.7) ** 2) / 3)


@FAST
@given(naive.proba_problem(), st.data())
def test_profit_with_estimated_benefit_matches_naive(problem, data):
    P, y = problem
    n = len(y)
    real = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 100)))
    guess = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 100)))
    pos = int(y[0])
    out = cost_sensitive_profit(P, y, benefit=real, cost=0.68, positive=pos,
                                decision_benefit=guess)
    ref = naive.profit_estimated(P.tolist(), y.tolist(), real.tolist(), [0.68] * n, pos,
                                 guess.tolist())
    assert float(out) == pytest.approx(ref, abs=1e-9)


def test_profit_decides_with_the_estimate_and_pays_the_realised_benefit():
    P = np.array([[0.5, 0.5], [0.9, 0.1]])
    y = np.array([1, 1])
    # row 0: 0.5 * 10 > 2 acts and earns 30 - 2; row 1: 0.1 * 10 < 2 does not act
    out = cost_sensitive_profit(P, y, benefit=[30.0, 30.0], cost=2.0, decision_benefit=10.0)
    assert float(out) == pytest.approx(28.0)
    assert out.attrs["n_actions"] == 1


def test_string_labels_wherever_y_is_accepted():
    P = np.array([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4]])
    codes = np.array([0, 1, 1])
    names = np.array(["no", "yes", "yes"], dtype=object)
    cls = np.array(["no", "yes"], dtype=object)
    np.testing.assert_allclose(thresholded_mse(P, names, classes=cls).values,
                               thresholded_mse(P, codes).values)
    np.testing.assert_allclose(topk_error(P, names, classes=cls).values,
                               topk_error(P, codes).values)
    probas = np.stack([P, P[::-1]])
    np.testing.assert_allclose(bias_variance(probas, names, classes=cls).loss,
                               bias_variance(probas, codes).loss)
    with pytest.raises(ValueError, match="classes holds duplicate labels"):
        thresholded_mse(P, names, classes=["no", "no"])
    with pytest.raises(ValueError, match="proba rows must sum to 1"):
        thresholded_mse(P * 0.9, codes)


def test_classes_that_contradict_the_class_coordinate_are_refused():
    # the class coordinate labels the columns b, c, a: classes=["a", "b", "c"] would score
    # every row against another class's column (0.7033 where the labelled columns give
    # ((1 - 0.3)^2 + (1 - 0.5)^2 + (1 - 0.1)^2) / 3 = 0.5167)
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    da = xr.DataArray(P, dims=("sample", "class"), coords={"class": ["b", "c", "a"]})
    y = ["c", "c", "b"]
    hand = ((1 - 0.3) ** 2 + (1 - 0.5) ** 2 + (1 - 0.1) ** 2) / 3
    assert thresholded_mse(da, y, thresholds="1.0").item() == pytest.approx(hand, abs=1e-15)
    assert thresholded_mse(da, y, thresholds="1.0", classes=["b", "c", "a"]).item() == \
        pytest.approx(hand, abs=1e-15)
    for call in (lambda: thresholded_mse(da, y, thresholds="1.0", classes=["a", "b", "c"]),
                 lambda: topk_error(da, y, classes=["a", "b", "c"]),
                 lambda: reliability(da, y, classes=["a", "b", "c"]),
                 lambda: cost_sensitive_profit(da, y, benefit=1.0, cost=0.1, positive="b",
                                               classes=["a", "b", "c"]),
                 lambda: thresholded_mse(da, y, classes=["b", "c", "z"])):
        with pytest.raises(ValueError, match="classes= lists .* class coordinate of proba"):
            call()


def test_classes_name_columns_whose_coordinate_is_their_positions():
    # a class coordinate 0..C-1 (unlabelled columns) lets classes= name them
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
    da = xr.DataArray(P, dims=("sample", "class"), coords={"class": [0, 1, 2]})
    assert topk_error(da, ["x", "y"], classes=["z", "x", "y"], k=1).values.tolist() == [1.0]
    assert thresholded_mse(da, ["x", "y"], classes=["z", "x", "y"], thresholds="1.0").item() \
        == pytest.approx(((1 - 0.3) ** 2 + (1 - 0.3) ** 2) / 2, abs=1e-15)
