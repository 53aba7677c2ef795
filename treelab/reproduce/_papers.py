"""The papers' published numbers, shipped as CSV with the package (``data/papers``).

The folder is ``treelab/_data/papers`` in an installed wheel and ``data/papers`` in a source
checkout (the same mapping as the UCI bundle, :func:`treelab.datasets.find_uci_root`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["paper_sources", "paper_table", "papers_root"]

_PACKAGED = Path(__file__).resolve().parents[1] / "_data" / "papers"
_CHECKOUT = Path(__file__).resolve().parents[2] / "data" / "papers"


def papers_root() -> Path:
    """The folder holding the papers' CSV tables and ``sources.json``.

    Returns
    -------
    pathlib.Path
        ``treelab/_data/papers`` in an installed wheel, else ``data/papers`` of the checkout.

    Examples
    --------
    >>> (papers_root() / "sources.json").is_file()
    True
    """
    for candidate in (_PACKAGED, _CHECKOUT):
        if (candidate / "sources.json").is_file():
            return candidate
    raise FileNotFoundError(f"the papers' tables are missing: neither {_PACKAGED} nor "
                            f"{_CHECKOUT} holds sources.json (a broken install?)")


@functools.cache
def paper_sources() -> dict[str, Any]:
    """Provenance of every shipped table: ``papers`` (citation, stated protocol) and
    ``tables`` (paper, table, what, protocol, units, columns, garbled cells).

    Examples
    --------
    >>> paper_sources()["tables"]["liu2008_table3"]["table"]
    'Table 3'
    """
    return json.loads((papers_root() / "sources.json").read_text(encoding="utf-8"))


def paper_table(name: str) -> pd.DataFrame:
    """One of the papers' tables, as printed (numbers parsed, garbled cells NaN).

    Parameters
    ----------
    name : str
        A key of ``paper_sources()["tables"]``, e.g. ``"liu2008_table3"``.

    Returns
    -------
    pandas.DataFrame
        The CSV's rows; ``attrs["source"]`` holds its entry of :func:`paper_sources`.

    Examples
    --------
    >>> t = paper_table("fan2005_table1")
    >>> float(t.set_index("method").loc["RD", "variance"])
    0.006041
    """
    tables = paper_sources()["tables"]
    if name not in tables:
        raise ValueError(f"name={name!r} is not a shipped paper table; known: "
                         f"{', '.join(sorted(tables))}")
    frame = pd.read_csv(papers_root() / f"{name}.csv", dtype=str, keep_default_na=False)
    for col in frame.columns:
        parsed = pd.to_numeric(frame[col].replace("", None), errors="coerce")
        filled = frame[col] != ""
        if filled.any() and parsed[filled].notna().all():
            frame[col] = parsed
        else:
            frame[col] = frame[col].replace("", None)
    frame.attrs["source"] = {"name": name, **tables[name]}
    return frame
