"""Work that fits on the same training rows share: feature preparation and all-deterministic
trees, kept per process while a sharing scope is open.

An experiment grid fits many forests on one training fold (every alpha and construction of a
grid point). Inside :func:`shared_work` (the experiment runner opens it around every cell):

- ``prepare_features`` returns the arrays it made before for the same encoded features and
  options (sorting, ranks, bins: the key is a digest of the values, not their identity);
- ``grow_forest`` keeps the trees of a forest whose every tree is deterministic (alpha >= 1)
  and whose deterministic tests depend only on each tree's rows and visible features
  (:func:`treelab.engine.forest.tests_follow_rows`). A later forest on the same features,
  classes, parameters, seeds and construction then takes tree t at alpha >= 1 as it is, and
  gives tree t at 0 < alpha < 1 that tree as its reference (``grow_tree`` copies the tests of
  its deterministic top instead of searching again): tree t draws the same rows and features
  from the same seed at every alpha, and its deterministic nodes reached through deterministic
  splits hold the rows of the reference's nodes at the same places.

Either way the result is the forest that a fit without the scope grows, bit for bit (tests
compare them); only the time differs. Outside a scope nothing is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

__all__ = ["LRU", "SharedWork", "current", "digest", "nbytes", "release", "shared_work"]


class LRU:
    """A small cache that forgets the least recently used entries beyond ``size`` entries
    (and, with ``max_bytes``, beyond that many bytes of the NumPy arrays the values hold; a
    value larger than that alone is not kept). Values are made outside the lock: two threads
    may both make a missing value, and the same key always makes the same value."""

    def __init__(self, size: int, max_bytes: int | None = None) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.sizes: dict[str, int] = {}
        self.lock = threading.Lock()

    def peek(self, key: str) -> Any:
        """The value of ``key``, or None."""
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        return None

    def put(self, key: str, value: Any) -> None:
        size = nbytes(value) if self.max_bytes is not None else 0
        if self.max_bytes is not None and size > self.max_bytes:
            return
        with self.lock:
            self.items[key] = value
            self.sizes[key] = size
            self.items.move_to_end(key)
            while len(self.items) > self.size or (
                    self.max_bytes is not None and sum(self.sizes.values()) > self.max_bytes):
                old, _ = self.items.popitem(last=False)
                del self.sizes[old]

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        """The value of ``key``, made by ``make()`` (and kept) when missing."""
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        self.put(key, value)
        return value

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.sizes.clear()


def nbytes(value: Any) -> int:
    """Bytes of the NumPy arrays in ``value`` (nested tuples and lists; an object met twice,
    such as a tree repeated in a forest, counts once)."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, np.ndarray):
            total += v.nbytes
        elif isinstance(v, tuple | list):
            stack.extend(v)
    return total


class SharedWork:
    """What one process keeps for the fits of a sharing scope.

    Parameters
    ----------
    features : int, default 8
        Prepared feature arrays kept (a fold's fits use up to four variants: values only,
        ranks without sort orders, with them, ranks without values).
    forests : int, default 6
        All-deterministic forests kept (a grid point's constructions, with room for the next).
    max_bytes : int, default 512 MiB
        The most array memory each of the two keeps (large data: fewer entries; an entry
        larger than this is not kept, and its fits grow alone).
    """

    def __init__(self, features: int = 8, forests: int = 6, max_bytes: int = 512 << 20
                 ) -> None:
        self.features = LRU(features, max_bytes)
        self.forests = LRU(forests, max_bytes)
        #: the reference layouts of a kept forest's trees (``forest.reference_arrays``) by the
        #: forest's key: (its trees, {id of a tree: layout}), each made when a fit first
        #: reads it
        self.references = LRU(forests)
        self.hits = {"features": 0, "trees": 0}

    def clear(self) -> None:
        self.features.clear()
        self.forests.clear()
        self.references.clear()


_PROCESS = SharedWork()
_ACTIVE: ContextVar[SharedWork | None] = ContextVar("treelab_shared_work", default=None)


def current() -> SharedWork | None:
    """The sharing scope's store, or None outside :func:`shared_work`."""
    return _ACTIVE.get()


@contextlib.contextmanager
def shared_work(store: SharedWork | None = None) -> Iterator[SharedWork]:
    """Let the fits inside share feature preparation and deterministic trees.

    Parameters
    ----------
    store : SharedWork, optional
        Where to keep them; default one store per process, kept between scopes (so the next
        cell of the same fold finds them).
    """
    token = _ACTIVE.set(_PROCESS if store is None else store)
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


def release() -> None:
    """Forget what this process's store keeps (the runner calls it when a run ends)."""
    _PROCESS.clear()


def digest(*parts: Any) -> str:
    """A key for arrays and scalars: BLAKE2b over each part's dtype, shape and bytes."""
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        if isinstance(part, np.ndarray):
            a = np.ascontiguousarray(part)
            h.update(f"|{a.dtype.str}{a.shape}|".encode())
            h.update(a.data if a.size else b"")
        else:
            h.update(f"|{part!r}|".encode())
    return h.hexdigest()
