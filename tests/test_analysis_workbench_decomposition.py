"""0-1 bias-variance (Domingos, Kohavi-Wolpert, Breiman) and the bias-variance-diversity
decomposition (Wood et al. 2023) against loops over rows, repeats and members; the exact
decompositions must sum to the measured expected loss to 1e-10; Domingos' noise-free terms
must equal mlxtend's ``bias_variance_decomp`` on the same predictions (dev extra)."""

import naive_analysis as naive
import numpy as np
import pytest
import xarray as xr
from sklearn.base import clone

from treelab.analysis import bias_variance_01, bias_variance_diversity

METHODS = ("domingos", "kohavi_wolpert", "breiman")


def _problem(seed, K=5, n=25, C=3, proba=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    P = np.where(rng.random((K, n)) < 0.55, y, rng.integers(0, C, (K, n)))
    tp = rng.dirichlet(np.ones(C) * 0.7, n) if proba else None
    return P, y, tp


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("proba", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_bias_variance_01_matches_loops_and_sums(method, proba, seed):
    C = 2 + seed % 3
    P, y, tp = _problem(seed, K=3 + seed, C=C, proba=proba)
    ds = bias_variance_01(P, y, method=method, true_proba=tp, n_classes=C)
    ref = naive.bias_variance_01(P.tolist(), y.tolist(), C, method,
                                 None if tp is None else tp.tolist())
    for key, vals in ref.items():
        np.testing.assert_allclose(ds[f"sample_{key}"].values, vals, atol=1e-12, err_msg=key)
        assert float(ds[key]) == pytest.approx(np.mean(vals), abs=1e-12)
    s = {k: ds[f"sample_{k}"].values for k in ref}
    if method == "domingos":
        total = s["noise_effect"] + s["bias"] + s["net_variance"]
    else:
        total = s["noise"] + s["bias"] + s["variance"]
    np.testing.assert_allclose(total, s["loss"], atol=1e-10, rtol=0)
    if not proba:
        assert np.all(s["noise"] == 0)


def test_domingos_handworked():
    # row 0: repeats say 0, 0, 1 (truth 0): unbiased, V = 1/3, loss 1/3
    # row 1: repeats say 1, 0, 0 (truth 1): main 0, biased, V = 1/3, net variance -1/3
    ds = bias_variance_01([[0, 1], [0, 0], [1, 0]], [0, 1])
    np.testing.assert_allclose(ds.sample_loss, [1 / 3, 2 / 3])
    np.testing.assert_allclose(ds.sample_bias, [0, 1])
    np.testing.assert_allclose(ds.sample_net_variance, [1 / 3, -1 / 3])
    assert list(ds.main_prediction.values) == [0, 0]


def test_domingos_matches_mlxtend():
    evaluate = pytest.importorskip("mlxtend.evaluate", reason="mlxtend is in the dev extra")
    P, y, _ = _problem(11, K=9, n=40, C=4)

    class Replay:
        """Returns the stored predictions of repeat k at the k-th fit/predict round."""

        def __init__(self):
            self.k = -1

        def fit(self, X, y):
            self.k += 1
            return self

        def predict(self, X):
            return P[self.k]

    X = np.zeros((40, 1))
    loss, bias, var = evaluate.bias_variance_decomp(Replay(), X, y, X, y, loss="0-1_loss",
                                                    num_rounds=9, random_seed=0)
    ds = bias_variance_01(P, y, method="domingos", n_classes=4)
    assert float(ds.loss) == pytest.approx(loss, abs=1e-12)
    assert float(ds.bias) == pytest.approx(bias, abs=1e-12)
    assert float(ds.variance) == pytest.approx(var, abs=1e-12)


def _member_problem(seed, loss, K=4, M=3, n=7, C=3, proba=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    tau = rng.dirichlet(np.ones(C), n) if proba else np.eye(C)[y]
    if loss == "zero_one":
        Q = np.where(rng.random((K, M, n)) < 0.5, y, rng.integers(0, C, (K, M, n)))
    else:
        Q = rng.dirichlet(np.ones(C), (K, M, n))
    return Q, (tau if proba else y), tau


@pytest.mark.parametrize("loss", ["squared", "cross_entropy", "zero_one"])
@pytest.mark.parametrize("proba", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_bias_variance_diversity_matches_loops_and_sums(loss, proba, seed):
    Q, target, tau = _member_problem(seed, loss, K=2 + seed, M=1 + seed, proba=proba)
    ds = bias_variance_diversity(Q, target, loss=loss)
    ref = naive.bias_variance_diversity(Q.tolist(), tau.tolist(), loss)
    for key, vals in ref.items():
        np.testing.assert_allclose(ds[f"sample_{key}"].values, vals, atol=1e-10, err_msg=key)
    total = ds.noise + ds.average_bias + ds.average_variance - ds.diversity
    assert float(total) == pytest.approx(float(ds.expected_loss), abs=1e-10)
    if loss != "zero_one":  # diversity is a mean of divergences
        assert float(ds.diversity) >= 0 and float(ds.average_variance) >= 0
    if Q.shape[1] == 1 and loss != "zero_one":
        assert float(ds.diversity) == pytest.approx(0.0, abs=1e-12)


def test_bias_variance_diversity_leading_dims():
    Q, y, _ = _member_problem(3, "squared", K=3, M=4, n=6)
    stacked = xr.DataArray(np.stack([Q, Q[:, ::-1]]), dims=("alpha", "repeat", "tree", "sample",
                                                            "class"), coords={"alpha": [0, 1]})
    ds = bias_variance_diversity(stacked, y)
    assert ds.expected_loss.dims == ("alpha",)
    assert ds.member_bias.dims == ("alpha", "tree")
    one = bias_variance_diversity(Q, y)
    # reversing the member order changes no ensemble quantity
    np.testing.assert_allclose(ds.diversity.values, float(one.diversity))


def test_bad_inputs():
    with pytest.raises(ValueError, match="method"):
        bias_variance_01([[0, 1]], [0, 1], method="james")
    with pytest.raises(ValueError, match="loss"):
        bias_variance_diversity(np.ones((1, 1, 2, 2)) / 2, [0, 1], loss="hinge")
    with pytest.raises(ValueError, match="> 0"):
        bias_variance_diversity(np.eye(2)[None, None], [0, 1], loss="cross_entropy")
    with pytest.raises(ValueError, match="target"):
        bias_variance_diversity(np.ones((1, 1, 2, 2)) / 2, [0, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        bias_variance_diversity(np.full((1, 1, 2, 2), np.nan), [0, 1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bias_variance_diversity(np.full((1, 1, 2, 2), 2.0), [0, 1])
    with pytest.raises(ValueError, match="true_proba"):
        bias_variance_01([[0, 1]], [0, 1], true_proba=[[0.5, 0.6], [1.0, 0.0]])


@pytest.mark.parametrize("loss", ["squared", "cross_entropy"])
def test_member_rows_must_be_distributions(loss):
    # halving every member distribution leaves the cross-entropy form's expected loss as it
    # was (the geometric mean is normalised) but moves its variance and diversity (0.27 to
    # 0.96 here): rows not summing to 1 are refused, as every probability input is
    rng = np.random.default_rng(0)
    q = rng.dirichlet(np.ones(3), (4, 5, 10))
    y = rng.integers(0, 3, 10)
    bias_variance_diversity(q, y, loss=loss)
    with pytest.raises(ValueError, match=r"member_outputs rows .* must sum to 1.* 0\.5"):
        bias_variance_diversity(q / 2, y, loss=loss)


def test_zero_one_decomposition_of_models_with_object_labels():
    # text labels held as objects (pandas' usual dtype) were refused as "must hold numbers"
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    codes = (X[:, 0] + rng.normal(scale=0.8, size=90) > 0).astype(int) + (X[:, 1] > 1)
    text = np.array(["a-low", "b-mid", "c-high"], dtype=object)[codes]  # sorted as the codes
    fits_text, fits_codes = [], []
    for k in range(4):
        rows = rng.integers(0, 60, 60)
        forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=k)
        fits_text.append(clone(forest).fit(X[rows], text[rows]))
        fits_codes.append(clone(forest).fit(X[rows], codes[rows]))
    got = bias_variance_diversity(fits_text, text[60:], X=X[60:], loss="zero_one")
    ref = bias_variance_diversity(fits_codes, codes[60:], X=X[60:], loss="zero_one")
    for name in ("expected_loss", "average_bias", "average_variance", "diversity"):
        assert float(got[name]) == float(ref[name]), name
    # by hand: each forest's majority vote of its trees (ties to the first class), its 0-1
    # error on the test rows, averaged over the four training sets
    errors = []
    for forest in fits_text:
        votes = np.stack([np.bincount(col, minlength=3) for col in np.stack(
            [t.predict(X[60:]).astype(int) for t in forest.estimators_]).T])
        errors.append(np.mean(forest.classes_[votes.argmax(axis=1)] != text[60:]))
    assert float(got.expected_loss) == pytest.approx(np.mean(errors), abs=1e-15)
