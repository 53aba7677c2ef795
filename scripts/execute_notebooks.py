"""Execute the notebooks in quick mode and write the executed copies the docs site renders.

The repository copies in ``notebooks/`` stay stripped of output; the documentation renders the
executed copies in ``docs/notebooks/`` and never runs a notebook itself. Run this script after
changing a notebook (``tests/test_docs_notebooks.py`` fails while a copy is stale)::

    python scripts/execute_notebooks.py              # every notebooks/*.ipynb
    python scripts/execute_notebooks.py 02 05        # notebooks whose name starts with 02 or 05

Each notebook runs as ``tests/test_notebooks.py`` runs it: nbclient, a fresh ``python3``
kernel, ``TREELAB_QUICK=1``, working folder ``notebooks/``. Figures are kept as PNG at a modest
resolution so the committed copies stay small.

The copies are tidied for reading (:func:`tidy`; ``--tidy`` tidies the existing copies without
running anything): the engine's compile notices, which say how this machine's cache stood,
are taken out of the output, and an interactive explorer, which needs a running kernel, is
shown as a line saying so instead of its widget (whose script would load from a CDN).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from pathlib import Path

import nbclient
import nbformat
from nbclient.util import ensure_async

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "notebooks"
TARGET = ROOT / "docs" / "notebooks"
TIMEOUT = 600  # seconds per cell; quick mode needs far less, a loaded machine more
DPI = 72  # inline PNG resolution of the rendered copies

# run in the kernel before the notebook's first cell; not written into the copy
_SETUP = (
    "%config InlineBackend.figure_formats = ['png']\n"
    f"%config InlineBackend.rc = {{'figure.dpi': {DPI}}}\n"
)


#: Lines of the compile notice (treelab/engine/_notice.py) and of the notices of a slow step
#: (treelab/_slow.py) in a stream output: they say how this machine stood.
NOTICE = re.compile(r"^treelab: (compiling the |still compiling |.* compiled in |"
                    r".*\(more than \d+ s so far on this machine\))")
#: A cell's value that is only the files a figure export wrote: in quick mode they are in a
#: temporary folder of the machine that ran the copy, which means nothing to a reader.
WRITTEN = re.compile(r"^\[?((Posix|Windows)Path\('[^']*'\)(, )?)+\]?$")
WIDGET = "application/vnd.jupyter.widget-view+json"
#: What an explorer shows in the rendered copy.
EXPLORER_NOTE = ("[interactive explorer: it needs a running kernel; run the notebook in "
                 "Jupyter to use it]")


def tidy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Take compile notices, widgets and the lists of files a figure export wrote out of an
    executed notebook's outputs (in place)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                lines = [ln for ln in out["text"].splitlines(keepends=True)
                         if not NOTICE.match(ln)]
                if not lines:
                    continue
                out["text"] = "".join(lines)
            elif WIDGET in out.get("data", {}):
                out["data"] = {"text/plain": EXPLORER_NOTE}
            elif out.get("output_type") == "execute_result" and WRITTEN.match(
                    " ".join(str(out.get("data", {}).get("text/plain", "")).split())):
                continue
            kept.append(out)
        cell["outputs"] = kept
    nb.metadata.pop("widgets", None)
    return nb


async def _run(client: nbclient.NotebookClient, nb: nbformat.NotebookNode) -> None:
    """``NotebookClient.execute`` with the display setup run first, outside the history."""
    client.reset_execution_trackers()
    async with client.async_setup_kernel():
        reply = await client.async_wait_for_reply(await ensure_async(client.kc.kernel_info()))
        nb.metadata["language_info"] = reply["content"]["language_info"]
        # nbclient writes an executed cell back into nb.cells at its index: run the setup as
        # a cell of its own at the front, then take it out again
        nb.cells.insert(0, nbformat.v4.new_code_cell(_SETUP))
        await client.async_execute_cell(nb.cells[0], 0, store_history=False)
        del nb.cells[0]
        count = 0
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                count += 1
            await client.async_execute_cell(cell, index, execution_count=count)
        client.set_widgets_metadata()


def execute(path: Path, target: Path = TARGET, timeout: int = TIMEOUT) -> Path:
    """Execute one notebook in quick mode and write the executed copy under ``target``."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=timeout, kernel_name="python3", record_timing=False,
        resources={"metadata": {"path": str(path.parent)}})
    os.environ["TREELAB_QUICK"] = "1"  # the kernel inherits this process's environment
    asyncio.run(_run(client, nb))
    # the executed copy must not depend on the machine it ran on
    nb.metadata.pop("papermill", None)
    tidy(nb)
    target.mkdir(parents=True, exist_ok=True)
    out = target / path.name
    nbformat.write(nb, out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*",
                        help="run only notebooks whose file name starts with one of these")
    parser.add_argument("--timeout", type=int, default=TIMEOUT,
                        help=f"seconds allowed per cell (default {TIMEOUT})")
    parser.add_argument("--tidy", action="store_true",
                        help="only tidy the existing executed copies (run nothing)")
    args = parser.parse_args(argv)
    if args.tidy:
        for copy in sorted(TARGET.glob("*.ipynb")):
            nbformat.write(tidy(nbformat.read(copy, as_version=4)), copy)
            print(f"tidied {copy.relative_to(ROOT)}")
        return 0
    paths = sorted(SOURCE.glob("*.ipynb"))
    if args.prefixes:
        paths = [p for p in paths if p.name.startswith(tuple(args.prefixes))]
        if not paths:
            parser.error(f"no notebook in {SOURCE} starts with {args.prefixes}")
    # copies whose notebook is gone would be rendered as if they were current
    names = {p.name for p in sorted(SOURCE.glob("*.ipynb"))}
    for stale in sorted(TARGET.glob("*.ipynb")):
        if stale.name not in names:
            stale.unlink()
            print(f"removed {stale.relative_to(ROOT)} (no such notebook)")
    for path in paths:
        start = time.perf_counter()
        out = execute(path, timeout=args.timeout)
        size = out.stat().st_size / 1024
        print(f"{path.name}: {time.perf_counter() - start:.0f} s, "
              f"{out.relative_to(ROOT)} {size:.0f} KiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
