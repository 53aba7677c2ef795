"""What a run shows while it runs: the time left once it means something, and one compile
notice for the run and its worker processes."""

from __future__ import annotations

import contextlib
import time
from typing import Any

__all__ = ["Eta", "shared_notices"]


class Eta:
    """Time left, once it means something: measured from the moment the first round of cells
    (one per worker, which pays the workers' start-up) has finished, and shown only after
    another round has, so the estimate rests on cells that ran at full speed."""

    def __init__(self, n_todo: int, n_workers: int, clock: Any = time.perf_counter) -> None:
        self.n_todo = n_todo
        self.round = max(1, int(n_workers))
        self.clock = clock
        self.done = 0
        self.mark: tuple[int, float] | None = None

    def update(self) -> str | None:
        """Count one finished cell; the estimate as ``H:MM:SS`` or None while there is none."""
        self.done += 1
        now = self.clock()
        if self.mark is None:
            if self.done >= self.round:
                self.mark = (self.done, now)
            return None
        n, t0 = self.done - self.mark[0], now - self.mark[1]
        left = self.n_todo - self.done
        if n < self.round or t0 <= 0 or left <= 0:
            return None
        seconds = int(round(left * t0 / n))
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def postfix(self, skipped: int, failed: int) -> str:
        left = self.update()
        text = f"skipped={skipped}, failed={failed}"
        return text if left is None else f"{text}, left~{left}"


@contextlib.contextmanager
def shared_notices() -> Any:
    """One compile notice per run: this process and its workers share a folder of markers."""
    import tempfile

    from treelab.engine import _notice

    with tempfile.TemporaryDirectory(prefix="treelab-notices-") as folder:
        _notice.share_notices(folder)
        try:
            yield folder
        finally:
            _notice.share_notices(None)
