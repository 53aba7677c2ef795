"""Where numba keeps treelab's compiled kernels: a per-user cache folder, tagged by a digest of
the kernels' sources, or nowhere.

numba's default puts the cache beside the package (``__pycache__``), which a system-wide or
read-only install cannot write: every process would then compile the engine again. treelab's
kernels are cached in ``platformdirs.user_cache_dir("treelab")`` / ``numba`` / ``<tag>``, or,
when ``NUMBA_CACHE_DIR`` is set, in ``$NUMBA_CACHE_DIR`` / ``treelab`` / ``<tag>``
(:func:`cache_dir`). numba's own setting for other code is left as it is.

numba checks a cached function against its own source file only: a kernel whose helper in
another module changed would load its old machine code and run the old helper, silently. The
folder therefore ends in a tag, a digest of every kernel module's source and numba's version
(:func:`kernel_sources_tag`), so any edit or upgrade of the kernels starts a fresh cache.

A cache locator of treelab's own (:class:`_KernelLocator`, first in numba's list) places every
kernel of ``treelab/engine/kernels`` in that folder and nowhere else: numba's locators would
fall back, when the folder cannot be written, to the package's ``__pycache__`` (untagged: an
edited helper's callers would come back stale) and then to numba's per-user folder, and raise
``RuntimeError: cannot cache function`` when none can be written, which made ``import
treelab`` fail. :func:`configure_cache` decides once per process, before any kernel is
decorated (:func:`cache_status`):

* ``"kept"``: the folder can be written; compiled kernels are kept for later processes;
* ``"read-only"``: the folder exists but cannot be written (a pre-warmed cache shipped
  read-only): kernels found there are loaded, others compile in memory and are not kept;
* ``"off"``: no usable folder (an unwritable home, ``NUMBA_CACHE_DIR=/proc/nope``): the
  kernels compile in memory (numba's ``cache=False``) in every process.

In the last two cases the first compilation says, once, that compiled code will not be kept
and why (``treelab.engine._notice``). A cache entry that cannot be written is skipped, never
an error.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

__all__ = ["CacheStatus", "cache_dir", "cache_status", "configure_cache", "kernel_sources_tag"]

KERNELS = Path(__file__).parent / "engine" / "kernels"

log = logging.getLogger("treelab")


class CacheStatus(NamedTuple):
    """Where treelab's compiled kernels are kept in this process."""

    folder: str  # the tagged folder chosen (:func:`cache_dir`)
    mode: str  # "kept", "read-only" or "off" (module notes)
    reason: str | None  # why compiled code is not kept (None when it is)

    @property
    def kept(self) -> bool:
        return self.mode == "kept"


_status: CacheStatus | None = None


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
    """The folder treelab's kernels are cached in: ``$NUMBA_CACHE_DIR/treelab/<tag>`` when
    the variable is set, else ``<user cache dir>/treelab/numba/<tag>`` (``<tag>``:
    :func:`kernel_sources_tag`). Whether it is usable: :func:`cache_status`."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return os.path.join(chosen, "treelab", kernel_sources_tag())
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("treelab", appauthor=False), "numba",
                        kernel_sources_tag())


def _probe(folder: str) -> CacheStatus:
    """Whether ``folder`` can be created and written (``kept``), only read (``read-only``),
    or neither (``off``)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        return CacheStatus(folder, "off", f"the cache folder {folder} cannot be created "
                                          f"({err.strerror or err})")
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as err:
        if os.access(folder, os.R_OK | os.X_OK):
            return CacheStatus(folder, "read-only", f"the cache folder {folder} is read-only "
                                                    f"({err.strerror or err})")
        return CacheStatus(folder, "off", f"the cache folder {folder} cannot be used "
                                          f"({err.strerror or err})")
    return CacheStatus(folder, "kept", None)


def cache_status() -> CacheStatus:
    """This process's :class:`CacheStatus` (decided once, by :func:`configure_cache`)."""
    return configure_cache()


def configure_cache() -> CacheStatus:
    """Decide once per process where treelab's kernels are cached (module notes) and put
    treelab's locator first in numba's list; return the :class:`CacheStatus`.

    Runs before any kernel is decorated (``treelab/__init__.py`` and
    ``engine/kernels/_config.py`` call it); later calls return the same status. Every process
    (the experiment runner's workers too) computes the same folder from the same environment.
    """
    global _status
    if _status is not None:
        return _status
    status = _probe(cache_dir())
    if status.mode != "off" and not _install_locator():
        status = CacheStatus(status.folder, "off", "NUMBA_CACHE_LOCATOR_CLASSES is set or "
                             "numba's cache locators could not be extended, so the tagged "
                             "folder could not be enforced")
    _status = status
    return status


@functools.lru_cache(maxsize=64)
def _real_folder(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _is_kernel_file(py_file: str) -> bool:
    return _real_folder(os.path.dirname(os.path.abspath(py_file))) == _real_folder(str(KERNELS))


def _install_locator() -> bool:
    """Put :class:`_KernelLocator` first in numba's locator list; False when numba would not
    consult it (``NUMBA_CACHE_LOCATOR_CLASSES`` set) or its internals moved."""
    try:
        from numba.core import caching, config
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    if getattr(config, "CACHE_LOCATOR_CLASSES", None):
        return False
    try:
        locators = caching.CacheImpl._locator_classes
        if not any(getattr(c, "_treelab_kernels", False) for c in locators):
            locators.insert(0, _kernel_locator_class(caching))
    except Exception:  # noqa: BLE001 - an internal of numba moved: compile in memory
        return False
    return True


def _kernel_locator_class(caching) -> type:
    """numba's locator for treelab's kernels: the tagged folder, never another place."""

    class _KernelLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        _treelab_kernels = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(configure_cache().folder,
                                            self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._cache_path

        def ensure_cache_path(self):
            if configure_cache().kept:
                try:
                    super().ensure_cache_path()
                except OSError:  # the save is skipped (serialize_cache_saves)
                    pass

        @classmethod
        def from_function(cls, py_func, py_file):
            # a treelab kernel is cached here or not at all: returning None would let numba
            # try the package's __pycache__, which the source tag does not cover
            if not _is_kernel_file(py_file) or configure_cache().mode == "off":
                return None
            self = cls(py_func, py_file)
            self.ensure_cache_path()
            return self

    return _KernelLocator


def serialize_cache_saves() -> bool:
    """Make numba's cache writes one at a time across processes; True when in place.

    numba saves a cache entry in three steps: it reads the kernel's index, picks the first
    free data-file name, writes the index and then the data file. Two processes saving
    different versions of one kernel at the same moment (two first fits on an empty cache, one
    of them on data that needs the general growth routine) can pick the same name and leave an
    index entry pointing at the other version's code. An exclusive ``fcntl.flock`` on a lock
    file beside the index makes the three steps one. Platforms without ``fcntl`` keep numba's
    behaviour, as does a folder where the lock file cannot be opened. In treelab's folder a
    save that cannot be written is skipped (a read-only cache is never written to).
    """
    from numba.core import caching

    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Windows CI
        fcntl = None
    cls = caching.IndexDataCacheFile
    if getattr(cls.save, "_treelab_serialized", False):
        return fcntl is not None
    original = cls.save

    def save(self, key, data):
        status = _status
        ours = status is not None and (self._cache_path + os.sep).startswith(status.folder + os.sep)
        if ours and not status.kept:
            return None  # a read-only cache: loaded from, never written
        try:
            if fcntl is None:
                return original(self, key, data)
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
        except OSError as err:
            if not ours:
                raise
            # treelab's folder became unwritable: the code compiled is used, only not kept
            log.debug("treelab: a compiled kernel could not be kept in %s (%s)",
                      self._cache_path, err)
            return None

    save._treelab_serialized = True
    cls.save = save
    return fcntl is not None

