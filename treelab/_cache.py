"""Where numba writes treelab's compiled kernels: a per-user cache folder.

numba's default puts the cache beside the package (``__pycache__``), which a system-wide or
read-only install cannot write: every process would then compile the engine again. Unless
``NUMBA_CACHE_DIR`` is set, treelab points numba at ``platformdirs.user_cache_dir("treelab")``
/ ``numba``. numba reads ``NUMBA_CACHE_DIR`` when it is first imported, so this runs before
any ``import numba`` inside treelab (``treelab/__init__.py`` calls it first); when numba was
imported earlier, its ``config.CACHE_DIR`` is set as well, which numba consults when each
kernel is decorated.

numba checks a cached function against its own source file only: a kernel whose helper in
another module changed would load its old machine code and run the old helper, silently. The
per-user folder therefore ends in a tag, a digest of every kernel module's source and numba's
version (:func:`kernel_sources_tag`), so any edit or upgrade of the kernels starts a fresh
cache. A folder the user names with ``NUMBA_CACHE_DIR`` is taken as it is.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__all__ = ["cache_dir", "configure_cache", "kernel_sources_tag"]

KERNELS = Path(__file__).parent / "engine" / "kernels"


def kernel_sources_tag(folder: str | os.PathLike | None = None) -> str:
    """A 16-digit digest of the kernel modules' sources (``*.py`` in ``folder``, by default
    ``treelab/engine/kernels``) and of numba's version: it changes whenever any kernel or helper
    changes, which numba's per-file check does not see."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256()
    try:
        digest.update(version("numba").encode())
    except PackageNotFoundError:  # pragma: no cover - numba is a dependency
        pass
    for path in sorted(Path(folder or KERNELS).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_dir() -> str:
    """The folder numba caches treelab's kernels in: ``NUMBA_CACHE_DIR`` when set, else the
    per-user cache folder ``<user cache dir>/treelab/numba/<kernel_sources_tag()>``."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return chosen
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("treelab", appauthor=False), "numba",
                        kernel_sources_tag())


def configure_cache() -> str:
    """Set ``NUMBA_CACHE_DIR`` to :func:`cache_dir` unless the user set it; return the folder.

    The variable is inherited by worker processes (the experiment runner's backends), so they
    read the same cache.
    """
    path = cache_dir()
    os.environ.setdefault("NUMBA_CACHE_DIR", path)
    numba = sys.modules.get("numba")
    if numba is not None and not numba.config.CACHE_DIR:
        numba.config.CACHE_DIR = path
    return path


def serialize_cache_saves() -> bool:
    """Make numba's cache writes one at a time across processes; True when in place.

    numba saves a cache entry in three steps: it reads the kernel's index, picks the first
    free data-file name, writes the index and then the data file. Two processes saving
    different versions of one kernel at the same moment (two first fits on an empty cache, one
    of them on data that needs the general growth routine) can pick the same name and leave an
    index entry pointing at the other version's code. An exclusive ``fcntl.flock`` on a lock
    file beside the index makes the three steps one. Platforms without ``fcntl`` keep numba's
    behaviour, as does a folder where the lock file cannot be opened.
    """
    try:
        import fcntl

        from numba.core import caching
    except ImportError:  # pragma: no cover - not on Windows CI
        return False
    cls = caching.IndexDataCacheFile
    if getattr(cls.save, "_treelab_serialized", False):
        return True
    original = cls.save

    def save(self, key, data):
        try:
            handle = open(os.path.join(self._cache_path, ".treelab-save.lock"), "a")  # noqa: SIM115
        except OSError:
            return original(self, key, data)
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                return original(self, key, data)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    save._treelab_serialized = True
    cls.save = save
    return True

