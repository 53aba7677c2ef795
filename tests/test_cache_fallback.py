"""``import treelab`` works wherever its compiled kernels can or cannot be kept (issue 39, items
1, 4 and 21): an unwritable home and package folder, a read-only pre-warmed cache, an unusable
``NUMBA_CACHE_DIR``. Kernels are cached in treelab's tagged folder or not at all, never in the
package's ``__pycache__`` (where an edited helper module's callers came back stale), and one
notice says when compiled code is not kept.

Each case runs in fresh processes on a copy of the package, so that its ``__pycache__`` and
its kernel sources are the test's own. Where the tests run as root, the processes that need an
unwritable folder drop root's capability to override file permissions.
"""

import ctypes
import functools
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import treelab
from treelab._cache import kernel_sources_tag

PACKAGE = Path(treelab.__file__).resolve().parent
PR_CAPBSET_DROP = 24

# a small kernel in one module (_construction) that inlines a helper of another (_rng.rand_int):
# the case numba's own per-file check misses; and a kernel of _rng itself
DRAW = """
import json, logging, os, sys
import numpy as np
import treelab
from treelab.engine.kernels import _construction as K, _params as P, _rng
try:
    from treelab._cache import cache_status
    status = cache_status()._asdict()
except ImportError:  # a version without it
    status = None
state = np.array([12345], dtype=np.uint64)
w, _ = K.draw_construction(40, 1, P.ROWS_BOOTSTRAP, np.zeros(40, np.int32), 0, 0, state)
extra = {}
if "--new-state" in sys.argv:
    extra["seed_state"] = int(_rng.new_state(7)[0])
    extra["new_state_hits"] = sum(_rng.new_state.stats.cache_hits.values())
print(json.dumps({"draw": w.tolist(), "package": os.path.dirname(treelab.__file__),
                  "status": status,
                  "hits": sum(K.draw_construction.stats.cache_hits.values()), **extra}))
"""


def _drop_file_override() -> None:
    """In the child, before exec: drop root's capabilities to ignore file permissions
    (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) from the bounding set, so the new program runs
    as a root that read-only folders stop."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@functools.cache
def _permissions_apply() -> bool:
    """Whether a child made by :func:`_unprivileged` is stopped by a read-only folder."""
    with tempfile.TemporaryDirectory() as top:
        folder = Path(top) / "ro"
        folder.mkdir(mode=0o555)
        try:
            done = subprocess.run([sys.executable, "-c", f"open({str(folder / 'x')!r}, 'w')"],
                                  capture_output=True, timeout=60, **_unprivileged_args())
        except (OSError, subprocess.SubprocessError):
            return False
        finally:
            folder.chmod(0o755)
        return done.returncode != 0


def _unprivileged_args() -> dict:
    if not hasattr(os, "geteuid"):
        return {}
    return {"preexec_fn": _drop_file_override} if os.geteuid() == 0 else {}


def _unprivileged() -> dict:
    """subprocess arguments under which file permissions apply (root drops its override)."""
    if not hasattr(os, "geteuid") or not _permissions_apply():
        pytest.skip("needs POSIX file permissions that apply to the test's processes (as root: "
                    "dropping CAP_DAC_OVERRIDE)")
    return _unprivileged_args()


def _run(src: Path, env_changes: dict, *, drop=(), args=(), unprivileged=False
         ) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in drop and k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    env.update(env_changes)
    env["PYTHONPATH"] = str(src)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    extra = _unprivileged() if unprivileged else {}
    done = subprocess.run([sys.executable, "-c", DRAW, *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=src, **extra)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out["package"]) == src / "treelab"  # the copy, not the installed package
    return out, done.stderr


@pytest.fixture
def src(tmp_path):
    """A copy of the package (its own __pycache__ and kernel sources)."""
    top = tmp_path / "src"
    shutil.copytree(PACKAGE, top / "treelab",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    yield top
    for path in [tmp_path, *tmp_path.rglob("*")]:  # the read-only folders the tests made
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _read_only(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _compiled_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


def _not_kept_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "will not be kept" in line]


def test_an_unwritable_home_and_package_compile_in_memory_with_one_notice(src, tmp_path):
    _read_only(src / "treelab")
    home = "/nonexistent"
    if getattr(os, "geteuid", lambda: -1)() == 0:
        # root may create /nonexistent: a read-only home instead
        home = str(tmp_path / "home")
        os.mkdir(home, 0o555)
    out, err = _run(src, {"HOME": home}, drop=("XDG_CACHE_HOME",), unprivileged=True)
    assert _compiled_files(src) == []
    notes = _not_kept_lines(err)
    assert len(notes) == 1 and home in notes[0], err
    assert "once per install" not in err  # the compile notice makes no false promise
    assert "for this process only" in err
    assert out["status"]["mode"] == "off"
    assert out["status"]["folder"].startswith(home)


def test_an_unusable_numba_cache_dir_never_falls_back_to_pycache(src):
    out, err = _run(src, {"NUMBA_CACHE_DIR": "/proc/nope"})
    # numba's own locators would have written the package's __pycache__ here
    assert _compiled_files(src) == []
    assert len(_not_kept_lines(err)) == 1, err
    assert "once per install" not in err
    assert out["status"]["mode"] == "off"


def test_a_read_only_prewarmed_cache_is_read_and_never_written(src):
    cache = src / "cache"
    cache.mkdir()
    first, err = _run(src, {"NUMBA_CACHE_DIR": str(cache)})
    assert _not_kept_lines(err) == []
    warmed = _compiled_files(cache)
    _read_only(cache)
    again, err = _run(src, {"NUMBA_CACHE_DIR": str(cache)}, args=("--new-state",),
                      unprivileged=True)
    assert again["hits"] == 1  # loaded from the read-only cache, not compiled
    assert again["draw"] == first["draw"]
    assert again["new_state_hits"] == 0  # not in the cache: compiled in memory
    notes = _not_kept_lines(err)
    assert len(notes) == 1 and "read-only" in notes[0], err
    assert _compiled_files(cache) == warmed  # nothing written
    assert _compiled_files(src / "treelab") == []
    assert first["status"]["mode"] == "kept" and again["status"]["mode"] == "read-only"
    tagged = cache / "treelab" / kernel_sources_tag(src / "treelab" / "engine" / "kernels")
    assert warmed and all(tagged in p.parents for p in warmed)


def _splitmix_draw(n: int, seed: int, golden: int) -> list[int]:
    """draw_construction's bootstrap counts in plain Python (rand_int of _rng's splitmix64)."""
    mask = (1 << 64) - 1
    state = seed
    counts = [0] * n
    for _ in range(n):
        state = (state + golden) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        k = min(int(float(z >> 11) * (1.0 / 9007199254740992.0) * n), n - 1)
        counts[k] += 1
    return counts


GOLDEN = 0x9E3779B97F4A7C15
EDITED = 0x9E3779B97F4A7C17


@pytest.mark.parametrize("where", ["unusable", "named", "per-user"])
def test_an_edited_helper_module_is_never_run_stale_from_a_cache(src, where, tmp_path):
    # _rng.py edited in the copy: draw_construction (in _construction.py, unchanged) inlines
    # its rand_int, so only the tag over every kernel source tells its cached code is stale
    env = {"unusable": {"NUMBA_CACHE_DIR": "/proc/nope"},
           "named": {"NUMBA_CACHE_DIR": str(tmp_path / "named")},
           "per-user": {"XDG_CACHE_HOME": str(tmp_path / "xdg")}}[where]
    before, _ = _run(src, env)
    assert before["draw"] == _splitmix_draw(40, 12345, GOLDEN)
    loaded, _ = _run(src, env)
    assert loaded["draw"] == before["draw"]
    assert loaded["hits"] == (0 if where == "unusable" else 1)  # a usable cache is used
    rng = src / "treelab" / "engine" / "kernels" / "_rng.py"
    text = rng.read_text()
    assert hex(GOLDEN).upper()[2:] in text.upper()
    rng.write_text(text.replace("0x9E3779B97F4A7C15", "0x9E3779B97F4A7C17"))
    after, _ = _run(src, env)
    assert after["hits"] == 0
    assert after["draw"] == _splitmix_draw(40, 12345, EDITED) != before["draw"]
    assert _compiled_files(src / "treelab") == []
