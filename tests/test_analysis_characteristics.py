"""Sample density (Gashler et al. 2008) against hand-worked values."""

import math

import numpy as np
import pytest

from treelab.analysis import sample_density
from treelab.datasets import LabeledData, load_uci


def _data(name="toy"):
    # two nominal columns (3 values, one NaN that is no value; 2 values) and one continuous
    X = np.array(
        [[0, 1, 0.5], [1, 0, 2.0], [2, 1, 3.0], [np.nan, 0, 1.0]], dtype=float
    )
    return LabeledData(X, np.array([0, 1, 0, 1]), ("nominal", "nominal", "continuous"), name=name)


def test_hand_worked():
    da = sample_density(_data())
    # 3 * 2 * 5 cells over 4 rows
    assert da.dims == () and str(da.dataset.values) == "toy"
    assert float(da) == pytest.approx(30 / 4)
    assert int(da.n_samples) == 4 and int(da.n_features) == 3
    assert float(sample_density(_data(), continuous_arity=10)) == pytest.approx(60 / 4)
    assert float(sample_density(_data(), log10=True)) == pytest.approx(math.log10(7.5))


def test_uci_and_mapping():
    iris = load_uci("iris")
    da = sample_density({"a": iris, "b": _data()})
    assert list(da.dataset.values) == ["a", "b"]
    assert float(da.sel(dataset="a")) == pytest.approx(5**4 / 150)
    assert da.attrs["cite"].startswith("Gashler")


def test_log_stays_finite_where_product_overflows():
    X = np.zeros((10, 500))
    d = LabeledData(X, np.zeros(10), ("continuous",) * 500, name="wide")
    assert math.isinf(float(sample_density(d)))
    assert float(sample_density(d, log10=True)) == pytest.approx(500 * math.log10(5) - 1)


def test_bad_input():
    with pytest.raises(ValueError, match="continuous_arity"):
        sample_density(_data(), continuous_arity=0)
    with pytest.raises(TypeError, match="data must hold LabeledData"):
        sample_density(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="unique"):
        sample_density([_data(), _data()])
