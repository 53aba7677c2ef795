"""The append-only cell store and the assembly of finished cells into one Dataset.

Layout of an output folder::

    OUT/config.json    the configuration (JSON) of the last run
    OUT/cells.jsonl    one line per finished cell: {"key", "coords", "vars", ..., "digest"},
                       and per finished group of a measure over repeats (``"group"``)
    OUT/errors.jsonl   failed cells (with the error), retried by the next run
    OUT/outputs/       outputs of finished cells whose group is not reduced yet (.npz, see
                       treelab.experiment.groups); deleted once it is
    OUT/result.nc      the assembled Dataset (netCDF)
    OUT/summary.csv    mean ensemble error per data set, ensemble and alpha
    OUT/.lock          held while a run writes cells: who holds it (process id, host, start
                       time); removed when the run's cell phase ends cleanly, so a .lock left
                       behind names a run that crashed or was interrupted (the next run takes
                       the lock over, says so and resumes)

A cell's line is written and flushed the moment it finishes, by the one process that runs the
experiment (workers only compute). A process killed mid-write leaves at most a partial last
line, which readers ignore and the next writer cuts off, so a run killed at any moment loses
only the cells in flight. Floats are written with Python's ``repr``, which reads back exactly.

Every record ends with ``"digest"``, the SHA-256 of the line's JSON text without that field
(the cell key, which is the hash of the cell's configuration, and its values), so checking it
costs one hash of bytes already read. A reader accepts a line only when it is a cell record
whose digest matches; anything else (text that is not JSON, JSON that is not a record, a
record edited after it was written, a record written before digests existed) is skipped and
reported in :attr:`CellStore.rejected`, and its cell counts as not finished, so the next run
computes it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import socket
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.experiment._files import ExperimentError

__all__ = ["CellStore", "StoreLockedError", "assemble"]

_CELLS = "cells.jsonl"
_ERRORS = "errors.jsonl"
_LOCK = ".lock"


class StoreLockedError(RuntimeError):
    """Another process is writing to the same output folder."""


class CellStore:
    """Append-only store of finished cells in a folder.

    Parameters
    ----------
    folder : str or path-like
        Output folder (created when missing).
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self._lock_fh: Any = None
        self._fh: Any = None
        #: what a ``.lock`` left by a run that did not finish cleanly said (None if none)
        self.stale_lock: str | None = None
        #: ``(line number, reason, key or None)`` of every line of ``cells.jsonl`` that the
        #: last :meth:`records` call skipped.
        self.rejected: list[tuple[int, str, str | None]] = []

    # -- reading ---------------------------------------------------------------------------
    def _lines(self, name: str) -> Iterator[tuple[int, bytes, Any]]:
        path = self.folder / name
        if not path.is_file():
            return
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.endswith(b"\n"):
                    break  # a partial last line: the writer was killed mid-line
                try:
                    yield number, raw, json.loads(raw)
                except ValueError:
                    yield number, raw, _NOT_JSON

    def records(self) -> dict[str, dict[str, Any]]:
        """Finished cells by key (the first valid record of a key wins).

        Lines that are not valid records (see the module notes) are skipped and listed in
        :attr:`rejected`.
        """
        out: dict[str, dict[str, Any]] = {}
        self.rejected = []
        for number, raw, rec in self._lines(_CELLS):
            problem = check_record(raw, rec)
            if problem is not None:
                key = rec.get("key") if isinstance(rec, dict) else None
                self.rejected.append((number, problem, key if isinstance(key, str) else None))
                continue
            out.setdefault(rec["key"], rec)
        return out

    def errors(self) -> list[dict[str, Any]]:
        """Failed cells recorded so far (lines that are not such records are left out)."""
        return [rec for _, _, rec in self._lines(_ERRORS)
                if isinstance(rec, dict) and isinstance(rec.get("key"), str)]

    # -- writing ---------------------------------------------------------------------------
    def __enter__(self) -> CellStore:
        if self._fh is None:  # not opened yet
            self.open()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        # an ExperimentError (a failed cell with on_error="raise", a refused scheduler, a
        # full disk) is an orderly stop whose files are complete: no stale lock to report
        self.close(clean=exc_type is None or (isinstance(exc_type, type)
                                              and issubclass(exc_type, ExperimentError)))

    def open(self) -> None:
        """Take the folder's lock, cut a partial last line, and open the cell file.

        The lock is an advisory ``flock`` on ``OUT/.lock`` (released by the system when the
        process dies), and the file says who holds it. A ``.lock`` found with content but no
        holder is what a crashed or interrupted run left; :attr:`stale_lock` keeps its text.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / _LOCK
        while True:
            fh = path.open("a+")
            try:
                import fcntl

                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:  # pragma: no cover - no POSIX locks (Windows): no protection
                pass
            except OSError:
                fh.seek(0)
                holder = fh.read().strip()
                fh.close()
                raise StoreLockedError(
                    f"another run is writing to {self.folder}"
                    + (f" ({holder})" if holder else "")) from None
            # a clean finish removes the file while holding its lock: when the lock we got is
            # on a file already removed (or replaced), take the new one instead
            try:
                same = os.path.samestat(os.fstat(fh.fileno()), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                break
            fh.close()
        fh.seek(0)
        self.stale_lock = fh.read().strip() or None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} on {socket.gethostname()} since "
                 f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")
        fh.flush()
        self._lock_fh = fh
        for name in (_CELLS, _ERRORS):
            _cut_partial_line(self.folder / name)
        self._fh = (self.folder / _CELLS).open("a", encoding="utf-8")

    def close(self, clean: bool = True) -> None:
        """Close the cell file and release the lock; a ``clean`` close also removes the lock
        file, which is otherwise left saying which run stopped."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self._lock_fh is not None:
            if clean:
                with contextlib.suppress(OSError):
                    (self.folder / _LOCK).unlink()
            self._lock_fh.close()
            self._lock_fh = None

    def write(self, record: dict[str, Any]) -> None:
        """Append one finished cell and flush it to the operating system at once."""
        if self._fh is None:
            raise RuntimeError("the store is not open")
        body = _dumps({k: v for k, v in record.items() if k != "digest"})
        self._fh.write(f'{body[:-1]},"digest":"{_sha256(body.encode())}"}}\n')
        self._fh.flush()

    def write_error(self, record: dict[str, Any]) -> None:
        """Append a failed cell (not counted as finished)."""
        with (self.folder / _ERRORS).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, allow_nan=True, separators=(",", ":")) + "\n")

    def clear_errors(self) -> None:
        """Forget recorded failures (a new run retries them)."""
        path = self.folder / _ERRORS
        if path.exists():
            path.unlink()


_NOT_JSON = object()
# how a record's line ends: the digest of the text before it, then the record's closing brace
_DIGEST_END = re.compile(rb',"digest":"([0-9a-f]{64})"\}\r?\n$')


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, allow_nan=True, separators=(",", ":"))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_digest(record: dict[str, Any]) -> str:
    """The digest :meth:`CellStore.write` stores with ``record``: the SHA-256 (hex) of its
    compact JSON text, any ``digest`` field left out."""
    return _sha256(_dumps({k: v for k, v in record.items() if k != "digest"}).encode())


def check_record(raw: bytes, rec: Any) -> str | None:
    """Why a line of ``cells.jsonl`` (``raw``, parsed as ``rec``) is not a usable cell record,
    or None."""
    if rec is _NOT_JSON:
        return "not JSON"
    if not isinstance(rec, dict) or not isinstance(rec.get("key"), str):
        return "not a cell record (no key)"
    if not isinstance(rec.get("vars"), dict) or not isinstance(rec.get("coords", {}), dict):
        return "not a cell record (no vars)"
    if "digest" not in rec:
        return "no digest (written by an older treelab; its cell is computed again)"
    end = _DIGEST_END.search(raw)
    if end is None or _sha256(raw[:end.start()] + b"}") != end.group(1).decode():
        return "digest mismatch (the record was changed after it was written)"
    return None


def _cut_partial_line(path: Path) -> None:
    if not path.is_file():
        return
    with path.open("rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        # walk back to the last newline and cut there
        pos = size - 1
        block = 4096
        while pos > 0:
            start = max(0, pos - block)
            fh.seek(start)
            chunk = fh.read(pos - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                fh.truncate(start + nl + 1)
                return
            pos = start
        fh.truncate(0)


def _sorted_alphas(values: Iterable[float]) -> list[float]:
    finite = sorted({v for v in values if not math.isnan(v)})
    has_nan = any(math.isnan(v) for v in values)
    return finite + ([math.nan] if has_nan else [])


def assemble(cells: Sequence[Any], records: dict[str, dict[str, Any]],
             attrs: dict[str, Any] | None = None, groups: Sequence[Any] = ()) -> xr.Dataset:
    """Place every finished cell's values at its coordinates in one Dataset.

    Parameters
    ----------
    cells : sequence of Cell
        The experiment's cells in grid order (they fix every coordinate, finished or not).
    records : dict
        Finished cells (and groups) by key (:meth:`CellStore.records`).
    attrs : dict, optional
        Dataset attributes.
    groups : sequence of Group, optional
        Groups of cells with measures over their repeats
        (:func:`treelab.experiment.groups.groups_of`); their values have the grid dims without
        ``repeat`` and ``fold``.

    Returns
    -------
    xarray.Dataset
        Dims ``dataset, ensemble, alpha, <transform dims>, repeat, fold`` then any dims the
        measures add (``threshold``, ``k``, ...). Cells not finished are NaN. Alpha
        coordinates are sorted, with NaN (ensembles without alpha) last. A group variable
        whose name a cell variable or a dim already has becomes ``<measure>_<name>``.
        Attribute ``folds_per_dataset`` (JSON, data set -> n) says that a data set's cells
        have folds 0 .. n - 1 in every repeat: fewer than the ``fold`` dim where the data
        sets differ in their folds (leave-one-out: one per row), so that a mean over the
        folds (:func:`~treelab.experiment.summary`) can tell a fold the data set does not
        have from a cell that failed.
    """
    if not cells:
        raise ValueError("cells must not be empty")
    grid_dims = list(cells[0].coords)
    values: dict[str, list[Any]] = {d: [] for d in grid_dims}
    for cell in cells:
        for d, v in cell.coords.items():
            if d == _dims.ALPHA:
                values[d].append(v)
            elif v not in values[d]:
                values[d].append(v)
    values[_dims.ALPHA] = _sorted_alphas(values[_dims.ALPHA])
    if _dims.REPEAT in values:
        values[_dims.REPEAT] = sorted(values[_dims.REPEAT])
    if _dims.FOLD in values:
        values[_dims.FOLD] = sorted(values[_dims.FOLD])
    index = {d: _index_of(values[d], d == _dims.ALPHA) for d in grid_dims}

    # extra dims and their coordinates, in grid order of first appearance
    extra: dict[str, list[Any]] = {}
    for unit in [*cells, *groups]:
        rec = records.get(unit.key)
        for dim, coord in (rec or {}).get("coords", {}).items():
            known = extra.setdefault(dim, [])
            known.extend(c for c in coord if c not in known)
    group_dims = [d for d in grid_dims if d not in (_dims.REPEAT, _dims.FOLD)]
    data_vars = _place(cells, records, grid_dims, values, index, extra)
    taken = set(data_vars) | set(grid_dims) | set(extra)
    for name, (dims, arr, var_attrs) in _place(groups, records, group_dims, values, index,
                                               extra).items():
        if name in taken:
            name = f"{var_attrs.get('measure', 'group')}_{name}"
        data_vars[name] = (dims, arr, var_attrs)
    coords: dict[str, Any] = {d: np.asarray(values[d]) for d in grid_dims}
    coords[_dims.ALPHA] = np.asarray(values[_dims.ALPHA], dtype=np.float64)
    for d, c in extra.items():
        coords[d] = np.asarray(c)
    attrs = dict(attrs or {})
    folds = _folds_per_dataset(cells)
    if folds is not None:
        attrs["folds_per_dataset"] = json.dumps(folds, sort_keys=True)
    return xr.Dataset(dict(sorted(data_vars.items())), coords=coords, attrs=attrs)


def _folds_per_dataset(cells: Sequence[Any]) -> dict[str, int] | None:
    """Each data set's number of folds n, where its cells' (repeat, fold) pairs are every
    repeat's folds 0 .. n - 1 (every protocol's); None otherwise, or without those dims."""
    if not cells or not {_dims.DATASET, _dims.REPEAT, _dims.FOLD} <= set(cells[0].coords):
        return None
    pairs: dict[str, set[tuple[Any, Any]]] = {}
    for cell in cells:
        c = cell.coords
        pairs.setdefault(str(c[_dims.DATASET]), set()).add((c[_dims.REPEAT], c[_dims.FOLD]))
    out = {}
    for name, seen in pairs.items():
        repeats = {r for r, _ in seen}
        n = 1 + max(f for _, f in seen)
        if seen != {(r, f) for r in repeats for f in range(n)}:
            return None
        out[name] = n
    return out


def _place(units: Sequence[Any], records: dict[str, dict[str, Any]], dims: list[str],
           values: dict[str, list[Any]], index: dict[str, dict[Any, int]],
           extra: dict[str, list[Any]]) -> dict[str, tuple[list[str], np.ndarray, dict]]:
    """The variables of the finished ``units`` (cells or groups) placed on ``dims`` (their
    coordinates) and their own extra dims, NaN where a unit is not finished."""
    shape = tuple(len(values[d]) for d in dims)
    var_dims: dict[str, list[str]] = {}
    var_attrs: dict[str, dict[str, Any]] = {}
    for unit in units:
        rec = records.get(unit.key)
        for name, var in (rec or {}).get("vars", {}).items():
            var_dims.setdefault(name, var["dims"])
            var_attrs.setdefault(name, var.get("attrs", {}))
    arrays = {name: np.full(shape + tuple(len(extra[d]) for d in vdims), np.nan)
              for name, vdims in var_dims.items()}
    for unit in units:
        rec = records.get(unit.key)
        if rec is None:
            continue
        pos = tuple(index[d][_norm(unit.coords[d], d == _dims.ALPHA)] for d in dims)
        for name, var in rec["vars"].items():
            data = np.asarray(var["data"], dtype=np.float64)
            if var["dims"] != var_dims[name]:
                continue
            if var["dims"]:
                sub = tuple(np.array([extra[d].index(c) for c in rec["coords"][d]])
                            for d in var["dims"])
                target = arrays[name][pos]
                target[np.ix_(*sub)] = data
            else:
                arrays[name][pos] = data
    return {name: (dims + var_dims[name], arr, var_attrs[name]) for name, arr in arrays.items()}


def _norm(v: Any, is_alpha: bool) -> Any:
    if is_alpha and isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def _index_of(values: list[Any], is_alpha: bool) -> dict[Any, int]:
    return {_norm(v, is_alpha): i for i, v in enumerate(values)}
