"""The rows of a cell: its data set (generated, UCI, scikit-learn's or a file), the protocol's
split and the swept transforms, cached per process because many cells share them."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from typing import Any

import numpy as np

from treelab.datasets import (
    LabeledData,
    add_attribute_noise,
    add_class_noise,
    add_irrelevant,
    generate,
    keep_important,
    load_builtin,
    load_regression,
    load_table,
    load_uci,
    subsample,
)
from treelab.datasets._importance import take_columns
from treelab.engine.sharing import LRU
from treelab.experiment.seeds import canonical_json, cell_seed
from treelab.protocols import make_protocol

__all__ = ["LRU", "load_base", "train_test"]


_DATA = LRU(8)
_SPLITS = LRU(8)


def _drop_small_classes(data: LabeledData, min_size: int | None) -> LabeledData:
    if not min_size:
        return data
    labels, counts = np.unique(data.y, return_counts=True)
    kept = labels[counts >= min_size]
    keep = np.isin(data.y, kept)
    if keep.all():
        return data
    rows = data.take(keep)
    # take() keeps the data set's classes; the dropped ones must go too, or class noise draws
    # them back into the training rows (on primary-tumor, 38 of 76 noisy labels)
    proba = rows.true_proba
    if proba is not None:
        # P(y | x, y kept) = P(y | x) / P(kept | x); unknown where P(kept | x) = 0
        proba = proba[:, np.isin(rows.classes, kept)]
        mass = proba.sum(axis=1, keepdims=True)
        proba = proba / mass if np.all(mass > 0) else None
    return replace(rows, classes=kept, true_proba=proba)


def source_stamp(ds: dict[str, Any], root: str | None = None) -> list[Any]:
    """Where a data set's rows are read from, for the per-process caches: the bundle a UCI or
    regression set is read from (``root``, else ``TREELAB_DATA``, else the shipped one) or a
    file's path, size and modification time. A data set's identity leaves its folder out (the
    same rows from another folder are the same data set), but a cache must not answer with
    rows read from another folder or from an older file."""
    if "uci" in ds or "regression" in ds:
        from treelab.datasets.loaders import find_uci_root

        found = find_uci_root(root, required=False)
        return [None if found is None else str(found)]
    if "path" in ds:
        try:
            stat = os.stat(ds["path"])
        except OSError:
            return [ds["path"]]
        return [ds["path"], stat.st_size, stat.st_mtime_ns]
    return []


def outside_rows(ds: dict[str, Any], root: str | None, data: LabeledData) -> str | None:
    """A digest of the rows of a data set read from a file of the user's, or from a bundle
    other than the shipped one (``root`` or ``TREELAB_DATA``); None for the shipped bundle,
    scikit-learn's sets and generators, whose rows the configuration fixes. The cells' keys
    carry it, so that a run resumed with other rows under the same name recomputes its cells
    instead of taking the stored ones."""
    if "uci" in ds or "regression" in ds:
        from treelab.datasets.loaders import _CHECKOUT_BUNDLE, _PACKAGED_BUNDLE, find_uci_root

        found = find_uci_root(root, required=False)
        shipped = {find_uci_root(_PACKAGED_BUNDLE, required=False),
                   find_uci_root(_CHECKOUT_BUNDLE, required=False)} - {None}
        if found in shipped:
            return None
    elif "path" not in ds:
        return None
    digest = hashlib.sha256()
    X = np.ascontiguousarray(data.X)
    digest.update(f"{X.shape} {X.dtype} {list(data.feature_types)}".encode())
    digest.update(X.tobytes())
    digest.update(json.dumps([str(v) for v in np.asarray(data.y).tolist()]).encode())
    return digest.hexdigest()[:32]


def load_base(ds: dict[str, Any], seed: int, root: str | None = None) -> LabeledData:
    """The data set of an index protocol, before transforms (cached per process)."""

    def make() -> LabeledData:
        if "generator" in ds:
            kwargs = dict(ds.get("params", {}))
            if ds.get("n_samples") is not None:
                kwargs["n_samples"] = ds["n_samples"]
            from treelab.datasets import SIZED_GENERATORS

            if ds["generator"] in SIZED_GENERATORS or "random_state" in _gen_params(ds):
                kwargs["random_state"] = cell_seed(seed, "data", ds["name"])
            data = generate(ds["generator"], **kwargs)
        elif "uci" in ds:
            data = load_uci(ds["uci"], root=root)
        elif "builtin" in ds:
            data = load_builtin(ds["builtin"])
        elif "regression" in ds:
            data = load_regression(ds["regression"], root=root)
        else:
            data = load_table(ds["path"], name=ds["name"], **ds.get("params", {}))
        return _drop_small_classes(data, ds.get("min_class_size"))

    return _DATA.get(canonical_json([ds, seed, source_stamp(ds, root)]), make)


def _gen_params(ds: dict[str, Any]) -> set[str]:
    import inspect

    from treelab.datasets import GENERATORS

    return set(inspect.signature(GENERATORS[ds["generator"]]).parameters)


def _fixed_test(ds: dict[str, Any], seed: int) -> LabeledData:
    """A data set's fixed test rows (``test``): a generator that draws at random is seeded
    from (seed, "test", data set) unless its params give ``random_state``, so that every
    process (a run's workers, a later run) scores on the same rows."""
    test = ds["test"]
    params = dict(test.get("params", {}))
    if "random_state" not in params and "random_state" in _gen_params(test):
        params["random_state"] = cell_seed(seed, "test", ds["name"])
    return generate(test["generator"], **params)


def _source(ds: dict[str, Any]):
    def draw(n: int, random_state: int) -> LabeledData:
        return generate(ds["generator"], n_samples=n, random_state=random_state,
                        **ds.get("params", {}))

    return draw


def _irrelevant(data: LabeledData, t: dict[str, Any], seed: int, *keys: Any) -> LabeledData:
    return add_irrelevant(data, t["value"], kind=t.get("distribution", "gaussian"),
                          random_state=cell_seed(seed, "irrelevant", *keys, t["value"]))


def train_test(spec: dict[str, Any]) -> tuple[LabeledData, LabeledData]:
    """The cell's training and test rows, transforms applied."""
    ds, seed = spec["dataset"], spec["seed"]
    protocol = make_protocol(dict(spec["protocol"]))
    repeat, fold = spec["repeat"], spec["fold"]
    whole = [t for t in spec["transforms"] if t["kind"] == "irrelevant"]
    if protocol.uses_generator and "generator" in ds:
        test_fixed = None
        if ds.get("test"):
            test_fixed = _DATA.get(canonical_json(["test", ds["test"], seed, ds["name"]]),
                                   lambda: _fixed_test(ds, seed))
        split = protocol.get(_source(ds), repeat, fold, test=test_fixed)
        train, test = split.train, split.test
        # the K training sets of bias_variance share one test set, irrelevant columns included
        test_repeat = 0 if protocol.name == "bias_variance" else repeat
        for t in whole:
            train = _irrelevant(train, t, seed, ds["name"], repeat, "train")
            test = _irrelevant(test, t, seed, ds["name"], test_repeat, "test")
    else:
        def make_data() -> LabeledData:
            data = load_base(ds, seed, spec.get("root"))
            for t in whole:
                data = _irrelevant(data, t, seed, ds["name"])
            return data

        data_key = canonical_json([ds, seed, whole, source_stamp(ds, spec.get("root"))])
        data = _DATA.get(data_key, make_data)

        if spec.get("task") == "regression":
            # plain random folds: the protocol's (stratifying) splitter sees a single stratum;
            # the rows are taken from the data set itself by the indices below
            strata = replace(data, y=np.zeros(data.n_samples, dtype=np.int64), classes=None,
                             true_proba=None, true_target=None)
        else:
            strata = data

        def make_splits() -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
            if protocol.name == "bias_variance":
                return {(s.repeat, s.fold): (s.train_index, s.test_index)
                        for s in protocol.split(strata)}
            return {(r, f): (tr, te) for r, f, tr, te in protocol.indices(strata.y)}

        # the task too: a regression's folds are unstratified, a classification's of the
        # same file stratified
        splits = _SPLITS.get(canonical_json([data_key, spec["protocol"], spec.get("task")]),
                             make_splits)
        tr, te = splits[(repeat, fold)]
        train, test = data.take(tr), data.take(te)
    for t in spec["transforms"]:
        if t["kind"] == "irrelevant":
            continue
        rs = cell_seed(seed, t["kind"], ds["name"], t["value"], repeat, fold)
        if t["kind"] == "class_noise":
            train = add_class_noise(train, t["value"], random_state=rs)
        elif t["kind"] == "attribute_noise":
            train = add_attribute_noise(train, t["value"], random_state=rs,
                                        draw=t.get("draw", "other"))
        elif t["kind"] == "subsample":
            train = subsample(train, t["value"], stratify=t.get("stratify", True),
                              random_state=rs)
        elif t["kind"] == "important_attributes":
            # ranked on the training rows alone: the test rows only follow the choice
            cols = keep_important(train, t["value"], random_state=rs)
            train, test = take_columns(train, cols), take_columns(test, cols)
    return train, test
