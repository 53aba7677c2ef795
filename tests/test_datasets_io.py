"""Loaders (tables, the UCI bundle) and transforms."""

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treelab import datasets as D

REPO = Path(__file__).resolve().parents[1]


UCI = REPO / "data" / "uci"


# ------------------------------------------------------------------------------- tables


def test_load_table_csv_tsv_gz_and_frame(tmp_path):
    frame = pd.DataFrame(
        {
            "colour": ["red", "blue", "red", None, "green"],
            "size": [1.5, 2.0, np.nan, 4.0, 5.0],
            "code": [3, 1, 3, 2, 1],
            "label": ["a", "b", "a", "b", "a"],
        }
    )
    csv = tmp_path / "t.csv"
    frame.to_csv(csv, index=False)
    tsv = tmp_path / "t.tsv.gz"
    with gzip.open(tsv, "wt") as fh:
        frame.to_csv(fh, sep="\t", index=False)
    for source in (csv, tsv, frame):
        data = D.load_table(source, target="label", nominal=["code"])
        assert data.feature_names == ("colour", "size", "code")
        assert data.feature_types == ("nominal", "continuous", "nominal")
        np.testing.assert_array_equal(data.X[:, 0], [2, 0, 2, np.nan, 1])  # blue, green, red
        np.testing.assert_array_equal(data.X[:, 2], [2, 0, 2, 1, 0])
        assert np.isnan(data.X[2, 1])
        assert data.y.tolist() == ["a", "b", "a", "b", "a"]
        assert data.meta["categories"]["colour"] == ["blue", "green", "red"]
    assert D.load_table(csv).meta["target"] == "label"  # last column by default
    assert D.load_table(csv, target=2).meta["target"] == "code"
    assert D.load_table(tsv).name == "t"


def test_load_table_keeps_the_labels_of_a_category_target():
    # a category column's labels are its values: integers stay the integers, text stays text
    frame = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5],
                          "ints": pd.Categorical([3, 1, 3, 2]),
                          "text": pd.Categorical(["b", "a", "b", "c"])})
    ints = D.load_table(frame.drop(columns="text"), target="ints")
    assert ints.y.tolist() == [3, 1, 3, 2] and ints.y.dtype.kind == "i"
    np.testing.assert_array_equal(ints.classes, [1, 2, 3])
    text = D.load_table(frame.drop(columns="ints"), target="text")
    assert text.y.tolist() == ["b", "a", "b", "c"] and text.y.dtype.kind == "U"


def test_load_table_roundtrips_labeled_data(tmp_path):
    data = D.monks(2, 60, random_state=0)
    back = D.load_table(data.to_frame())
    np.testing.assert_array_equal(back.X, data.X)
    np.testing.assert_array_equal(back.y, data.y)
    assert back.feature_types == data.feature_types


@pytest.mark.parametrize(
    ("kwargs", "exc", "word"),
    [
        ({"target": "nope"}, ValueError, "target"),
        ({"target": 1.5}, TypeError, "target"),
        ({"nominal": "a"}, TypeError, "nominal"),
        ({"nominal": ["zz"]}, ValueError, "nominal"),
    ],
)
def test_load_table_bad_input(kwargs, exc, word):
    frame = pd.DataFrame({"a": [1, 2], "target": [0, 1]})
    with pytest.raises(exc, match=word):
        D.load_table(frame, **kwargs)


def test_load_table_bad_source(tmp_path):
    with pytest.raises(TypeError, match="source"):
        D.load_table(3)
    with pytest.raises(ValueError, match="source"):
        D.load_table(tmp_path / "missing.csv")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ValueError, match="source"):
        D.load_table(tmp_path / "x.json")


# --------------------------------------------------------------------- a fake UCI bundle


def _fake_bundle(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(
        {"target": [1, 2, 1, 2], "w": [0.5, 1.5, 2.5, np.nan], "c": [3, 5, 5, 3], "b": [0, 1, 1, 0]}
    )
    with gzip.open(folder / "toy.tsv.gz", "wt") as fh:
        frame.to_csv(fh, sep="\t", index=False)
    entry = {
        "name": "toy",
        "file": "toy.tsv.gz",
        "n_samples": 4,
        "n_features": 3,
        "n_classes": 2,
        "target_column": "target",
        "aliases": ["toy-alias"],
        "feature_types": {"w": "continuous", "c": "categorical", "b": "binary"},
        "description": "a toy",
    }
    (folder / "index.json").write_text(json.dumps([entry]))
    return folder


def test_load_uci_honours_schema_on_a_fake_bundle(tmp_path, monkeypatch):
    folder = _fake_bundle(tmp_path / "bundle" / "uci")
    data = D.load_uci("toy", root=folder)
    assert data.feature_names == ("w", "c", "b")
    assert data.feature_types == ("continuous", "nominal", "nominal")
    np.testing.assert_array_equal(data.X[:, 1], [0, 1, 1, 0])  # codes 3, 5 -> 0, 1
    assert data.meta["categories"]["c"] == [3, 5]
    assert data.y.tolist() == [1, 2, 1, 2] and data.y.dtype.kind == "i"
    assert D.load_uci("toy-alias", root=folder).name == "toy"
    # the environment variable, pointing at the folder or its parent
    monkeypatch.setenv(D.DATA_ENV, str(tmp_path / "bundle"))
    assert D.load_uci("toy").n_samples == 4
    listing = D.list_uci()
    assert listing.loc["toy", "n_nominal"] == 2 and listing.loc["toy", "n_continuous"] == 1
    with pytest.raises(ValueError, match="toy"):
        D.load_uci("missing", root=folder)


def test_missing_bundle_error_names_root_and_env(tmp_path, monkeypatch):
    monkeypatch.setenv(D.DATA_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(D.UCIDataNotFoundError, match="TREELAB_DATA") as info:
        D.load_uci("iris", root=tmp_path / "empty")
    assert "root" in str(info.value)
    with pytest.raises(FileNotFoundError, match="root"):
        D.list_uci(root=tmp_path)


def test_bundle_shapes_classes_and_schema():
    index = {e["name"]: e for e in json.loads((UCI / "index.json").read_text())}
    for name in ("iris", "wine", "audiology", "credit-a", "tic-tac-toe", "monk1"):
        entry = index[name]
        data = D.load_uci(name, root=UCI)
        assert data.n_samples == entry["n_samples"] and data.n_features == entry["n_features"]
        n_nom = sum(t in ("categorical", "binary") for t in entry["feature_types"].values())
        assert int(data.categorical_features.sum()) == n_nom
        for col, kind in zip(data.feature_names, data.feature_types, strict=True):
            assert (kind == "nominal") == (entry["feature_types"][col] != "continuous")
        counts = {
            str(k): int(v) for k, v in zip(*np.unique(data.y, return_counts=True), strict=True)
        }
        assert counts == {k: int(v) for k, v in entry["class_counts"].items()}
    listing = D.list_uci(UCI)
    assert len(listing) == len(index)


def test_bundled_tictactoe_matches_the_generator():
    bundled = D.load_uci("tic-tac-toe", root=UCI)
    gen = D.tictactoe()
    assert bundled.n_samples == gen.n_samples
    assert np.bincount(bundled.y.astype(int) - bundled.y.min()).tolist() == [332, 626]


def test_load_builtin():
    wine = D.load_builtin("wine")
    assert wine.n_samples == 178 and wine.n_features == 13 and wine.n_classes == 3
    with pytest.raises(ValueError, match="name"):
        D.load_builtin("mnist")


# --------------------------------------------------------------------------- transforms


def test_add_irrelevant_kinds():
    data = D.concepts("A", 5000, random_state=0)
    for kind, ftype in (("gaussian", "continuous"), ("uniform", "continuous"), ("bits", "nominal")):
        out = D.add_irrelevant(data, 4, kind=kind, random_state=1)
        assert out.n_features == 6 and out.feature_types[2:] == (ftype,) * 4
        np.testing.assert_array_equal(out.X[:, :2], data.X)
        np.testing.assert_array_equal(out.true_proba, data.true_proba)
        extra = out.X[:, 2:]
        if kind == "gaussian":
            assert abs(extra.mean()) < 0.03 and extra.std() == pytest.approx(1, abs=0.03)
        elif kind == "uniform":
            assert extra.min() >= 0 and extra.max() < 1
        else:
            assert set(np.unique(extra)) == {0.0, 1.0}
    arr = D.add_irrelevant(np.zeros((3, 2)), 2, random_state=0)
    assert arr.shape == (3, 4)
    with pytest.raises(ValueError, match="kind"):
        D.add_irrelevant(arr, 1, kind="beta")
    with pytest.raises(ValueError, match="k"):
        D.add_irrelevant(arr, -1)


def test_add_class_noise_rate_and_other_class():
    y = np.repeat(np.arange(4), 5000)
    noisy = D.add_class_noise(y, 0.3, random_state=0)
    changed = noisy != y
    assert changed.mean() == pytest.approx(0.3, abs=0.01)
    # the replacement is a different class, uniform among the other three
    for c in range(4):
        others = noisy[(y == c) & changed]
        freq = np.bincount(others, minlength=4) / others.size
        assert freq[c] == 0 and np.allclose(np.delete(freq, c), 1 / 3, atol=0.03)
    data = D.led(20000, random_state=0)
    nd = D.add_class_noise(data, 0.2, random_state=1)
    np.testing.assert_allclose(nd.true_proba.sum(axis=1), 1.0)
    # the new true probabilities predict the noisy labels' frequencies
    assert nd.true_proba[np.arange(nd.n_samples), nd.y].mean() == pytest.approx(
        (nd.true_proba**2).sum(axis=1).mean(), abs=0.01
    )
    assert D.add_class_noise(y, 0.0) is not y
    with pytest.raises(ValueError, match="rate"):
        D.add_class_noise(y, 1.2)
    with pytest.raises(ValueError, match="classes"):
        D.add_class_noise(np.zeros(5), 0.5)


def test_class_noise_draws_every_listed_class_whole_and_never_the_same_one():
    # rate 1: every label changes, to one of the other listed classes with chance 1/(C - 1),
    # whatever the classes' type, order or length, and whether the sample shows them or not
    y = np.array(["a", "b"] * 3000)
    noisy = D.add_class_noise(y, 1.0, classes=["ccc", "b", "a"], random_state=0)
    assert np.all(noisy != y)
    for label in ("a", "b"):
        drawn = noisy[y == label]
        others = sorted({"a", "b", "ccc"} - {label})
        assert set(drawn) == set(others)  # 'ccc' whole, not cut to 'c'
        assert np.mean(drawn == others[0]) == pytest.approx(0.5, abs=0.03)
    ints = D.add_class_noise(np.array([0, 1] * 500), 1.0, classes=[0, 1, 2.5], random_state=1)
    assert set(ints.tolist()) == {0.0, 1.0, 2.5}
    # a class listed twice would let a label be "replaced" by itself
    with pytest.raises(ValueError, match="classes must list each class once"):
        D.add_class_noise(np.array([0, 1, 0, 1]), 1.0, classes=[0, 0, 1])
    # a data set's true probabilities follow its own classes: others are refused, not mixed in
    data = D.fan_synthetic(50, random_state=0)
    with pytest.raises(ValueError, match="classes must be the data set's classes"):
        D.add_class_noise(data, 0.5, classes=[0, 1, 2, 3, 4])
    same = D.add_class_noise(data, 0.5, classes=[3, 2, 1, 0], random_state=2)
    np.testing.assert_array_equal(same.y, D.add_class_noise(data, 0.5, random_state=2).y)


def test_add_attribute_noise():
    data = D.led(20000, n_irrelevant=0, noise=0.0, random_state=0)
    noisy = D.add_attribute_noise(data, 0.25, random_state=1)
    flipped = noisy.X != data.X
    assert flipped.mean() == pytest.approx(0.25, abs=0.01)  # binary: every hit flips
    assert set(np.unique(noisy.X)) == {0.0, 1.0} and noisy.true_proba is None
    X = np.column_stack([np.arange(1000.0), np.tile([0.0, 1.0, 2.0, 5.0], 250)])
    X[0, 0] = np.nan
    out = D.add_attribute_noise(X, 0.5, feature_types=["continuous", "nominal"], random_state=2)
    assert np.isnan(out[0, 0])
    assert set(np.unique(out[1:, 0])) <= set(X[1:, 0])  # drawn from observed values
    changed = out[:, 1] != X[:, 1]
    assert changed.mean() == pytest.approx(0.5, abs=0.05)  # nominal hits always change
    assert set(np.unique(out[:, 1])) == {0.0, 1.0, 2.0, 5.0}
    with pytest.raises(ValueError, match="feature_types"):
        D.add_attribute_noise(X, 0.1, feature_types=["continuous"])


def test_attribute_noise_that_may_draw_the_same_value():
    # Quinlan's reading: a hit binary value is redrawn from {0, 1}, so it changes half the time
    data = D.led(20000, n_irrelevant=0, noise=0.0, random_state=0)
    noisy = D.add_attribute_noise(data, 0.4, random_state=1, draw="any")
    assert (noisy.X != data.X).mean() == pytest.approx(0.2, abs=0.01)
    # four nominal values: a hit keeps its value a quarter of the time -> 0.5 * 3/4 change
    X = np.tile([0.0, 1.0, 2.0, 5.0], 5000)[:, None]
    out = D.add_attribute_noise(X, 0.5, feature_types=["nominal"], random_state=2, draw="any")
    assert (out != X).mean() == pytest.approx(0.375, abs=0.015)
    assert set(np.unique(out)) == {0.0, 1.0, 2.0, 5.0}
    # the default is unchanged by the new option
    assert np.array_equal(D.add_attribute_noise(X, 0.5, feature_types=["nominal"],
                                                random_state=2),
                          D.add_attribute_noise(X, 0.5, feature_types=["nominal"],
                                                random_state=2, draw="other"))
    with pytest.raises(ValueError, match="draw must be"):
        D.add_attribute_noise(X, 0.5, draw="some")


def test_subsample():
    y = np.repeat([0, 1, 2], [500, 300, 200])
    idx = D.subsample_indices(y, 0.1, stratify=True, random_state=0)
    assert idx.size == 100 and np.all(np.diff(idx) > 0)
    assert np.bincount(y[idx]).tolist() == [50, 30, 20]
    plain = D.subsample_indices(1000, 0.37, random_state=0)
    assert plain.size == 370 and np.unique(plain).size == 370
    data = D.led(200, random_state=0)
    part = D.subsample(data, 0.5, random_state=3)
    assert part.n_samples == 100 and part.feature_types == data.feature_types
    np.testing.assert_array_equal(D.subsample(data, 1.0).X, data.X)
    with pytest.raises(ValueError, match="fraction"):
        D.subsample(data, 0.0)
    # numpy's numbers are fractions like Python's: the same rows as 0.5 and 1
    np.testing.assert_array_equal(D.subsample_indices(y, np.float32(0.5), random_state=4),
                                  D.subsample_indices(y, 0.5, random_state=4))
    assert D.subsample_indices(y, np.int64(1), random_state=4).size == y.size
    with pytest.raises(ValueError, match="fraction"):
        D.subsample_indices(y, "0.5")
    with pytest.raises(ValueError, match="stratify"):
        D.subsample_indices(10, 0.5, stratify=True)
    with pytest.raises(TypeError, match="data"):
        D.subsample(np.zeros((3, 2)), 0.5)


def test_labeled_data_validation_and_take():
    with pytest.raises(ValueError, match="feature_types"):
        D.LabeledData(np.zeros((2, 2)), np.zeros(2), ("continuous",))
    with pytest.raises(ValueError, match="true_proba"):
        D.LabeledData(np.zeros((2, 1)), np.zeros(2), ("continuous",), true_proba=np.ones((2, 3)))
    data = D.fan_synthetic(10, random_state=0)
    part = data.take(data.y == data.y[0])
    assert np.all(part.y == data.y[0]) and part.true_proba.shape == (part.n_samples, 4)
    assert part.n_classes == 4
