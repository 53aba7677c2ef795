"""Progress bars that start nothing when they are off.

A disabled tqdm bar still starts tqdm's monitor thread (once per process, for good), and a
thread left running keeps a run from forking its worker server from its own process
(``treelab.experiment._fork_server``), and would be forked with the fork server into every
worker. :func:`progress_bar` returns a tqdm bar only when one is shown.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NoBar", "progress_bar"]


class NoBar:
    """The part of a tqdm bar treelab uses, doing nothing."""

    def __enter__(self) -> NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        """Count ``n`` more steps (nothing to show)."""

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        """Set the text after the bar (nothing to show)."""

    def close(self) -> None:
        """End the bar (nothing to end)."""


def progress_bar(enabled: bool, **options: Any) -> Any:
    """A notebook-aware tqdm bar with ``options`` when ``enabled``, else a :class:`NoBar`.

    Examples
    --------
    >>> with progress_bar(False, total=3) as bar:
    ...     bar.update(1)
    >>> type(bar).__name__
    'NoBar'
    """
    if not enabled:
        return NoBar()
    from tqdm.auto import tqdm

    return tqdm(**options)
