"""Evaluation protocols: partitions, stratification, seeds and coordinates."""

import numpy as np
import pytest

from treelab import datasets as D
from treelab import protocols as P


@pytest.fixture(scope="module")
def data():
    return D.waveform(150, random_state=0)


def _partition_check(splits, n):
    tested = np.concatenate([s.test_index for s in splits])
    assert np.array_equal(np.sort(tested), np.arange(n))  # every row tested exactly once
    for s in splits:
        assert np.intersect1d(s.train_index, s.test_index).size == 0
        assert s.train_index.size + s.test_index.size == n


def test_stratified_kfold_partitions_and_strata(data):
    proto = P.StratifiedKFold(10, n_repeats=2, random_state=0)
    splits = list(proto.split(data))
    assert [(s.repeat, s.fold) for s in splits] == proto.coords()
    assert len(splits) == 20
    for r in range(2):
        _partition_check([s for s in splits if s.repeat == r], data.n_samples)
    overall = np.bincount(data.y) / data.n_samples
    for s in splits:
        share = np.bincount(s.test.y, minlength=3) / s.test.n_samples
        assert np.abs(share - overall).max() < 0.1
        np.testing.assert_array_equal(s.train.X, data.X[s.train_index])
    # repeats shuffle differently; the same seed reproduces the folds
    assert not np.array_equal(splits[0].test_index, splits[10].test_index)
    again = list(P.StratifiedKFold(10, n_repeats=2, random_state=0).split(data))
    for a, b in zip(splits, again, strict=True):
        np.testing.assert_array_equal(a.test_index, b.test_index)
    other = list(P.StratifiedKFold(10, n_repeats=2, random_state=1).split(data))
    assert not np.array_equal(splits[0].test_index, other[0].test_index)
    one = proto.get(data, 1, 3)
    np.testing.assert_array_equal(one.test_index, splits[13].test_index)


def test_stratified_kfold_tolerates_tiny_classes():
    y = np.array([0] * 20 + [1] * 20 + [2])
    tiny = D.LabeledData(np.arange(41.0)[:, None], y, ("continuous",))
    splits = list(P.StratifiedKFold(10, random_state=0).split(tiny))  # no warning raised
    _partition_check(splits, 41)


def test_five_by_two(data):
    proto = P.FiveByTwo(random_state=3)
    splits = list(proto.split(data))
    assert proto.coords() == [(r, f) for r in range(5) for f in range(2)]
    for r in range(5):
        pair = [s for s in splits if s.repeat == r]
        _partition_check(pair, data.n_samples)
        assert abs(pair[0].test.n_samples - pair[1].test.n_samples) <= 3


def test_repeated_holdout(data):
    proto = P.RepeatedHoldout(30, random_state=0)
    splits = list(proto.split(data))
    assert len(splits) == 30 and {s.fold for s in splits} == {0}
    assert [s.repeat for s in splits] == list(range(30))
    for s in splits:
        assert s.test.n_samples == 50 and s.train.n_samples == 100
        assert np.intersect1d(s.train_index, s.test_index).size == 0
    assert len({tuple(s.test_index) for s in splits}) == 30
    y = np.array([0] * 10 + [1] * 10 + [2])  # a single-row class: falls back to ShuffleSplit
    tiny = D.LabeledData(np.zeros((21, 1)), y, ("continuous",))
    assert len(list(P.RepeatedHoldout(3, random_state=0).split(tiny))) == 3


def test_leave_one_out():
    small = D.monks(1, 12, random_state=0)
    proto = P.LeaveOneOut()
    splits = list(proto.split(small))
    assert proto.coords(12) == [(0, i) for i in range(12)]
    assert [s.test_index.tolist() for s in splits] == [[i] for i in range(12)]
    _partition_check(splits, 12)
    with pytest.raises(ValueError, match="n_samples"):
        proto.coords()


def _source(name, **params):
    def draw(n, seed):
        return D.generate(name, n_samples=n, random_state=seed, **params)

    return draw


def test_generator_draws_are_independent_and_seeded():
    proto = P.GeneratorDraws(4, n_train=64, n_test=500, random_state=0)
    splits = list(proto.split(_source("concepts", concept="A")))
    assert proto.coords() == [(r, 0) for r in range(4)]
    assert all(s.train.n_samples == 64 and s.test.n_samples == 500 for s in splits)
    trains = [s.train.X for s in splits]
    assert not np.array_equal(trains[0], trains[1])
    assert not np.array_equal(splits[0].test.X, splits[1].test.X)
    again = proto.get(_source("concepts", concept="A"), 2, 0)
    np.testing.assert_array_equal(again.train.X, trains[2])
    np.testing.assert_array_equal(again.test.X, splits[2].test.X)
    lattice = D.concepts_lattice("A")
    fixed = list(proto.split(_source("concepts", concept="A"), test=lattice))
    assert all(s.test is lattice for s in fixed)


def test_bias_variance_one_test_set():
    proto = P.BiasVariance(5, n_train=100, n_test=300, random_state=1)
    splits = list(proto.split(_source("fan_synthetic")))
    assert len(splits) == 5
    for s in splits[1:]:
        np.testing.assert_array_equal(s.test.X, splits[0].test.X)
        assert not np.array_equal(s.train.X, splits[0].train.X)
    np.testing.assert_array_equal(
        proto.get(_source("fan_synthetic"), 3, 0).test.X, splits[0].test.X
    )
    pool = D.led(900, random_state=0)
    pooled = list(P.BiasVariance(4, n_train=200, n_test=0.25, random_state=2).split(pool))
    for s in pooled:
        np.testing.assert_array_equal(s.test_index, pooled[0].test_index)
        assert s.train.n_samples == 200 and s.test.n_samples == 225
        assert np.intersect1d(s.train_index, s.test_index).size == 0
    with pytest.raises(ValueError, match="n_train"):
        list(P.BiasVariance(2, n_train=800, n_test=0.25, random_state=0).split(pool))


def test_make_protocol_and_bad_input():
    proto = P.make_protocol({"name": "stratified_kfold", "n_splits": 5}, random_state=7)
    assert isinstance(proto, P.StratifiedKFold) and proto.n_splits == 5
    assert proto.random_state == 7
    assert P.make_protocol(proto.to_dict()).params() == proto.params()
    assert isinstance(P.make_protocol("5x2", random_state=0), P.FiveByTwo)
    with pytest.raises(ValueError, match="protocol name"):
        P.make_protocol("bootstrap")
    with pytest.raises(ValueError, match="n_splits"):
        P.StratifiedKFold(1)
    with pytest.raises(TypeError, match="random_state"):
        P.StratifiedKFold(5, random_state=1.5)
    with pytest.raises(ValueError, match="test_size"):
        P.RepeatedHoldout(test_size=1.5)
    with pytest.raises(TypeError, match="data"):
        list(P.StratifiedKFold(5, random_state=0).split(np.zeros(4)))
    with pytest.raises(TypeError, match="data"):
        list(P.GeneratorDraws(2, random_state=0).split(D.led(10, random_state=0)))
