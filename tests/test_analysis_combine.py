"""Combination functions at extreme values, against hand-worked weights."""

import numpy as np
import pytest

from treelab.combine import bayesian


@pytest.mark.parametrize("scale", [1.0, 1e5, 1e17, 1e300, -1e300])
def test_bayesian_weights_sum_to_one_at_any_magnitude(scale):
    counts = np.array([[[3.0, 1.0]], [[0.0, 2.0]], [[5.0, 5.0]]])
    laplace = (counts + 1) / (counts.sum(axis=2, keepdims=True) + 2)
    # two trees tied at the top: half the weight each, the third (far below) none
    ev = np.array([scale, scale, scale - abs(scale) - 1e3])
    p = bayesian(counts, ev)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(p[0], (laplace[0, 0] + laplace[1, 0]) / 2, atol=1e-12)


def test_bayesian_log_evidence_difference_is_a_weight_ratio():
    counts = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
    ev = np.array([1e6 + np.log(3.0), 1e6])  # weights 3/4 and 1/4
    p = bayesian(counts, ev)
    np.testing.assert_allclose(p[0], 0.75 * np.array([2, 1]) / 3 + 0.25 * np.array([1, 2]) / 3)
