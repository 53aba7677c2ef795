"""Where numba writes treelab's compiled kernels: a per-user cache folder.

numba's default puts the cache beside the package (``__pycache__``), which a system-wide or
read-only install cannot write: every process would then compile the engine again. Unless
``NUMBA_CACHE_DIR`` is set, treelab points numba at ``platformdirs.user_cache_dir("treelab")``
/ ``numba``. numba reads ``NUMBA_CACHE_DIR`` when it is first imported, so this runs before
any ``import numba`` inside treelab (``treelab/__init__.py`` calls it first); when numba was
imported earlier, its ``config.CACHE_DIR`` is set as well, which numba consults when each
kernel is decorated.
"""

from __future__ import annotations

import os
import sys

__all__ = ["cache_dir", "configure_cache"]


def cache_dir() -> str:
    """The folder numba caches treelab's kernels in: ``NUMBA_CACHE_DIR`` when set, else the
    per-user cache folder ``<user cache dir>/treelab/numba``."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return chosen
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("treelab", appauthor=False), "numba")


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
