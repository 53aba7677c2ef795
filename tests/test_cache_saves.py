"""numba's cache writes from several processes at once: every entry keeps its own data."""

import multiprocessing as mp
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fcntl locks are POSIX only")


def _save_many(folder: str, tag: str, n: int, serialized: bool) -> None:
    if serialized:
        import treelab.engine.kernels._config  # noqa: F401 - installs the lock
    from numba.core import caching

    cache = caching.IndexDataCacheFile(folder, "race", ("stamp", 1))
    for k in range(n):
        cache.save((tag, k), f"{tag}-{k}")


def _race(folder: str, serialized: bool, n: int = 60) -> list[tuple]:
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_save_many, args=(folder, tag, n, serialized))
             for tag in ("a", "b", "c")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    from numba.core import caching

    cache = caching.IndexDataCacheFile(folder, "race", ("stamp", 1))
    wrong = []
    for tag in ("a", "b", "c"):
        for k in range(n):
            got = cache.load((tag, k))
            if got != f"{tag}-{k}":
                wrong.append(((tag, k), got))
    return wrong


def test_concurrent_saves_keep_every_entry_with_its_own_data(tmp_path):
    from numba.core import caching

    import treelab.engine.kernels._config  # noqa: F401

    assert caching.IndexDataCacheFile.save._treelab_serialized
    assert _race(str(tmp_path), serialized=True) == []
