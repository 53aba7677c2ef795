"""Accuracy sanity on the bundled UCI data: 10-fold CV error of treelab's RandomForest and
VRTrees(alpha=0.5) within 2 points of scikit-learn's RandomForestClassifier.

Errors are averaged over three repetitions of 10-fold CV (different folds and seeds), since one
repetition on 200-row data sets moves by about 2 points from seed to seed. scikit-learn gets
nominal features one-hot encoded (treelab splits them m-ary), so both see the same information.
"""

import functools

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import OneHotEncoder

import treelab
from treelab.datasets import load_uci

DATASETS = ["iris", "wine", "breast-w", "sonar", "ionosphere", "vowel", "tic-tac-toe"]
REPEATS = 3


def one_hot(X, nominal):
    if not nominal.any():
        return X
    enc = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X[:, nominal])
    return np.hstack([X[:, ~nominal], enc.transform(X[:, nominal])])


def cv_error(make, X, y):
    wrong = 0
    for seed in range(REPEATS):
        for train, test in StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y):
            model = make(seed).fit(X[train], y[train])
            wrong += (model.predict(X[test]) != y[test]).sum()
    return 100.0 * wrong / (REPEATS * len(y))


@functools.cache
def errors(name, root):
    data = load_uci(name, root=root)
    X, y = data.X, data.y
    nominal = np.asarray(data.categorical_features, dtype=bool)
    sk = cv_error(lambda s: RandomForestClassifier(n_estimators=100, random_state=s),
                  one_hot(X, nominal), y)
    rf = cv_error(lambda s: treelab.RandomForest(n_estimators=100, random_state=s,
                                                 categorical_features=nominal), X, y)
    vr = cv_error(lambda s: treelab.VRTrees(n_estimators=100, alpha=0.5, random_state=s,
                                            categorical_features=nominal), X, y)
    return sk, rf, vr


@pytest.mark.slow
@pytest.mark.parametrize("name", DATASETS)
def test_random_forest_close_to_sklearn(name, uci_root):
    sk, rf, _ = errors(name, str(uci_root))
    assert abs(rf - sk) <= 2.0, f"RandomForest {rf:.2f}% vs scikit-learn {sk:.2f}%"


VR_GAP = pytest.mark.xfail(
    strict=True,
    reason="measured 4.9% (wine) and 19.2% (sonar) for aggregated VRTrees(alpha=0.5) against "
    "1.9% and 15.7% for scikit-learn's random forest: with the spec's C4.5 deterministic "
    "nodes, aggregated members share their deterministic splits on these small sets; an open "
    "point of the engine issue, kept visible here and documented where users choose alpha "
    "(README 'Choosing alpha', VRTrees' alpha parameter)",
)


def test_the_alpha_shortfall_is_documented_where_users_choose_alpha():
    """The figures of the strict xfail above stand in the README's "Choosing alpha" and in
    VRTrees' docstring (mutation tried: README's 19.2% changed to 19.3%: this test fails)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**Choosing alpha: a known shortfall.**"):]
    section = section[:section.index("\n\n")]
    for figure in ("4.9%", "1.9%", "19.2%", "15.7%"):
        assert figure in section and figure in VR_GAP.kwargs["reason"]
        assert figure in treelab.VRTrees.__doc__


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=VR_GAP) if n in ("wine", "sonar") else n for n in DATASETS],
)
def test_vrtrees_half_close_to_sklearn(name, uci_root):
    sk, _, vr = errors(name, str(uci_root))
    assert abs(vr - sk) <= 2.0, f"VRTrees(0.5) {vr:.2f}% vs scikit-learn {sk:.2f}%"
