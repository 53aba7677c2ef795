"""The runner's output files: each written through a temporary file renamed into place, and
the error that says why an output folder cannot be written."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any

__all__ = ["ExperimentError", "output_error", "replace_file", "replace_text"]


class ExperimentError(RuntimeError):
    """A cell failed, every cell failed, or the output folder cannot be written (the message
    says which, with the errors; finished cells stay on disk)."""


def output_error(exc: OSError, folder: Path, what: str) -> ExperimentError:
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        reason += " (the disk is full: free space and run again; finished cells are kept)"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason += " (the folder is read-only: pass another --out/out)"
    return ExperimentError(f"{what} {folder}: {reason}")


def replace_text(path: Path, text: str) -> None:
    replace_file(path, lambda tmp: tmp.write_text(text), None)


def replace_file(path: Path, write: Any, folder: Path | None) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if folder is None:
            raise
        raise output_error(exc, folder, f"cannot write {path.name} to") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
