"""Prediction arrays kept per fitted forest, so a call does not lay them out again.

A prediction walks arrays derived from the forest's node arrays: the lockstep walk's codes or
the general walk's first-child and feature arrays (``_predict.lane_codes``, ``pack_nodes``),
the answering node of each leaf (``answering_nodes``) and every leaf's answer
(``leaf_answers``). Each is an O(nodes) pass, and on the W1 forest (100 trees, 760,000 nodes,
25,000 test rows) they were a fifth of a ``predict_proba`` call's CPU time; they are now built
on a forest's first use and kept until the forest is garbage-collected.

The store is keyed by the identity of the forest's node arrays (a fitted forest's arrays are
never changed in place: pruning, reweighting and refitting make new arrays), held through weak
references, so it adds nothing to an estimator's state: pickles, ``clone`` and scikit-learn's
check that prediction leaves the estimator's ``__dict__`` unchanged see nothing of it. Two
threads missing at once both build the same arrays; the last one stored wins.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

_STORES: dict[int, tuple[tuple, dict]] = {}
_LOCK = threading.Lock()


def _drop(key: int, refs: tuple) -> None:
    with _LOCK:
        hit = _STORES.get(key)
        if hit is not None and hit[0] is refs:
            del _STORES[key]


def store_of(arrays: tuple) -> dict:
    """The cache dict of the forest whose node arrays are ``arrays`` (the first one keys it;
    every one must be the same object for a hit)."""
    key = id(arrays[0])
    with _LOCK:
        hit = _STORES.get(key)
        if hit is not None and len(hit[0]) == len(arrays) and all(
                r() is a for r, a in zip(hit[0], arrays, strict=True)):
            return hit[1]
        refs = tuple(weakref.ref(a) for a in arrays)
        store: dict = {}
        _STORES[key] = (refs, store)
    weakref.finalize(arrays[0], _drop, key, refs)
    return store


def cached(arrays: tuple, name, build: Callable[[], object]):
    """``build()``, once per forest (``arrays``) and ``name``."""
    store = store_of(arrays)
    value = store.get(name)
    if value is None:
        value = build()
        store[name] = value
    return value


def n_stores() -> int:
    """Forests with a live store (for tests)."""
    with _LOCK:
        return len(_STORES)
