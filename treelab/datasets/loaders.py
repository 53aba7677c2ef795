"""Loaders of real data: tabular files, DataFrames, the UCI bundle and scikit-learn's sets.

The UCI bundle is a folder of ``NAME.tsv.gz`` files and an ``index.json`` schema (see
``data/README.md``). It ships with treelab: the repository keeps it in ``data/uci`` and the wheel
carries it as ``treelab/_data/uci``. Nothing here reaches the network.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treelab.datasets._data import CONTINUOUS, NOMINAL, LabeledData

__all__ = [
    "DATA_ENV",
    "UCIDataNotFoundError",
    "find_uci_root",
    "licence_label",
    "list_uci",
    "load_builtin",
    "load_table",
    "load_uci",
]

#: Environment variable naming the folder of the UCI bundle (the folder holding index.json,
#: or a folder with a ``uci/`` sub-folder holding it).
DATA_ENV = "TREELAB_DATA"

#: The bundle inside an installed wheel (``data/uci`` is mapped there at build time).
_PACKAGED_BUNDLE = Path(__file__).resolve().parents[1] / "_data" / "uci"
#: The bundle of a source checkout (an editable install imports treelab from the checkout).
_CHECKOUT_BUNDLE = Path(__file__).resolve().parents[2] / "data" / "uci"

#: Short licence labels of the bundle's ``license_note`` texts (the full text stays in
#: ``index.json``), matched by the note's opening words.
_LICENCE_LABELS = (
    ("Synthetic", "synthetic; PMLB copy (MIT)"),
    ("UCI Machine Learning Repository data (UCI lists", "CC BY 4.0 (UCI); PMLB copy (MIT)"),
    ("UCI Machine Learning Repository data (CC BY 4.0 per UCI; cite the original donors), "
     "taken from the OpenML", "CC BY 4.0 (UCI); OpenML copy (ODC-PDDL)"),
    ("UCI Machine Learning Repository data (CC BY 4.0 per UCI; cite the original donors), "
     "taken from a third-party", "CC BY 4.0 (UCI); ARFF copy (no licence of its own)"),
    ("UCI Machine Learning Repository data (CC BY 4.0 per UCI; cite the original donors); raw",
     "CC BY 4.0 (UCI); raw UCI file in PMLB (MIT)"),
)

_BUILTIN = ("iris", "wine", "breast_cancer", "digits")


class UCIDataNotFoundError(FileNotFoundError):
    """No UCI bundle (a folder with ``index.json``) was found where it was looked for."""


def _bundle_in(path: Path) -> Path | None:
    for candidate in (path, path / "uci"):
        if (candidate / "index.json").is_file():
            return candidate
    return None


def find_uci_root(root: str | os.PathLike[str] | None = None, *, required: bool = True
                  ) -> Path | None:
    """Locate the UCI bundle.

    Looks at ``root`` when given; otherwise at the ``TREELAB_DATA`` environment variable;
    otherwise at the bundle that ships with treelab (``treelab/_data/uci`` in an installed
    wheel, ``data/uci`` in a source checkout).

    Parameters
    ----------
    root : str or path-like, optional
        Folder holding ``index.json`` (or a ``uci/`` sub-folder holding it).
    required : bool, default True
        Raise :class:`UCIDataNotFoundError` when nothing is found (otherwise return None).

    Returns
    -------
    pathlib.Path or None
        The bundle folder.
    """
    if root is not None and not isinstance(root, str | os.PathLike):
        raise TypeError(f"root must be a path or None; got {type(root).__name__}")
    looked: list[str] = []
    if root is not None:
        candidates = [Path(root)]
        looked.append(f"root={os.fspath(root)!r}")
    else:
        candidates = []
        env = os.environ.get(DATA_ENV)
        if env:
            candidates.append(Path(env))
            looked.append(f"{DATA_ENV}={env!r}")
        else:
            looked.append(f"{DATA_ENV} (not set)")
        candidates += [_PACKAGED_BUNDLE, _CHECKOUT_BUNDLE]
        looked += [str(_PACKAGED_BUNDLE), str(_CHECKOUT_BUNDLE)]
    for candidate in candidates:
        found = _bundle_in(candidate)
        if found is not None:
            return found
    if not required:
        return None
    raise UCIDataNotFoundError(
        "No UCI data bundle (a folder with index.json) found; looked at "
        + ", ".join(looked)
        + f". Pass root=... or set the {DATA_ENV} environment variable to the bundle folder."
    )


def _read_index(folder: Path) -> list[dict[str, Any]]:
    entries = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ValueError(f"{folder / 'index.json'} must hold a JSON list of data set entries")
    return entries


def licence_label(entry: dict[str, Any]) -> str:
    """A short licence label of one ``index.json`` entry (its ``license_note`` in a few words;
    the note itself when it matches no known wording)."""
    note = str(entry.get("license_note", ""))
    for start, label in _LICENCE_LABELS:
        if note.startswith(start):
            return label
    return note


def list_uci(root: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """List the data sets of the UCI bundle.

    Parameters
    ----------
    root : str or path-like, optional
        Bundle folder; see :func:`find_uci_root` for where it is looked for otherwise.

    Returns
    -------
    pandas.DataFrame
        Indexed by name: ``n_samples``, ``n_features``, ``n_continuous``, ``n_nominal``,
        ``n_classes``, ``licence`` (see :func:`licence_label`), ``description``.
    """
    folder = find_uci_root(root)
    rows = []
    for e in _read_index(folder):
        types = list(e.get("feature_types", {}).values())
        n_cont = sum(t == "continuous" for t in types)
        rows.append(
            {
                "name": e["name"],
                "n_samples": e.get("n_samples"),
                "n_features": e.get("n_features"),
                "n_continuous": n_cont,
                "n_nominal": len(types) - n_cont,
                "n_classes": e.get("n_classes"),
                "licence": licence_label(e),
                "description": e.get("description", ""),
            }
        )
    columns = ["name", "n_samples", "n_features", "n_continuous", "n_nominal", "n_classes",
               "licence", "description"]
    return pd.DataFrame(rows, columns=columns).set_index("name").sort_index()


def load_uci(name: str, root: str | os.PathLike[str] | None = None) -> LabeledData:
    """Load one data set of the UCI bundle, honouring its schema.

    Columns typed ``categorical`` or ``binary`` in ``index.json`` become nominal features
    (re-coded 0..m-1 in the order of their sorted codes; ``meta["categories"]`` keeps the
    file's codes); ``continuous`` columns stay numeric (``nan`` = missing). The class column is
    ``target``.

    Parameters
    ----------
    name : str
        Data set name (or one of its ``aliases``), as listed by :func:`list_uci`.
    root : str or path-like, optional
        Bundle folder; otherwise ``TREELAB_DATA``, then the bundle that ships with treelab
        (see :func:`find_uci_root`).

    Returns
    -------
    LabeledData
        ``meta`` carries the index entry's description, notes, source and licence note.

    Raises
    ------
    UCIDataNotFoundError
        When no bundle is found (the message names ``root`` and ``TREELAB_DATA``).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {type(name).__name__}")
    folder = find_uci_root(root)
    entries = _read_index(folder)
    entry = next((e for e in entries if e["name"] == name), None)
    if entry is None:
        entry = next((e for e in entries if name in (e.get("aliases") or [])), None)
    if entry is None:
        raise ValueError(f"name must be a data set of {folder}; got {name!r}. Available: "
                         + ", ".join(sorted(e["name"] for e in entries)))
    frame = pd.read_csv(folder / entry["file"], sep="\t")
    types = entry["feature_types"]
    target = entry.get("target_column", "target")
    missing = [c for c in types if c not in frame.columns]
    if missing:
        raise ValueError(f"{entry['file']}: columns {missing} of index.json are not in the file")
    nominal = [c for c, t in types.items() if t in ("categorical", "binary")]
    data = _from_frame(frame, target=target, nominal=nominal, name=entry["name"])
    meta = dict(data.meta)
    for key in ("description", "notes", "source_repo", "source_path", "license_note",
                "provenance"):
        if key in entry:
            meta[key] = entry[key]
    meta["schema"] = {c: types[c] for c in data.feature_names}
    return LabeledData(X=data.X, y=data.y, feature_types=data.feature_types,
                       name=data.name, feature_names=data.feature_names, meta=meta)


def _is_nominal_dtype(series: pd.Series) -> bool:
    return (
        isinstance(series.dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(series.dtype)
        or not pd.api.types.is_numeric_dtype(series.dtype)
    )


def _encode_nominal(series: pd.Series) -> tuple[np.ndarray, list[Any]]:
    if isinstance(series.dtype, pd.CategoricalDtype):
        categories = list(series.cat.categories)
        codes = series.cat.codes.to_numpy()
    else:
        values = series.dropna().unique()
        try:
            categories = sorted(values.tolist())
        except TypeError:  # mixed types: fall back to their text
            categories = sorted(values.tolist(), key=str)
        codes = pd.Categorical(series, categories=categories).codes
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out, [c.item() if isinstance(c, np.generic) else c for c in categories]


def _from_frame(frame: pd.DataFrame, *, target: str | int | None, nominal: Iterable[Any] | None,
                name: str) -> LabeledData:
    columns = list(frame.columns)
    if target is None:
        target = "target" if "target" in columns else columns[-1]
    elif isinstance(target, int) and not isinstance(target, bool) and target not in columns:
        if not -len(columns) <= target < len(columns):
            raise ValueError(f"target position {target} is out of range for {len(columns)} "
                             "columns")
        target = columns[target]
    if target not in columns:
        raise ValueError(f"target must name a column; {target!r} is not among {columns}")
    features = [c for c in columns if c != target]
    if not features:
        raise ValueError("the table has no feature columns besides the target")
    listed = set() if nominal is None else set(nominal)
    unknown = listed - set(features)
    if unknown:
        raise ValueError(
            f"nominal names columns that are not features: {sorted(map(str, unknown))}"
        )
    y_series = frame[target]
    if y_series.isna().any():
        raise ValueError(f"target column {target!r} has {int(y_series.isna().sum())} missing "
                         "labels")
    X = np.empty((len(frame), len(features)), dtype=np.float64)
    ftypes: list[str] = []
    categories: dict[str, list[Any]] = {}
    for j, col in enumerate(features):
        series = frame[col]
        if col in listed or _is_nominal_dtype(series):
            X[:, j], categories[str(col)] = _encode_nominal(series)
            ftypes.append(NOMINAL)
        else:
            X[:, j] = series.to_numpy(dtype=np.float64, na_value=np.nan)
            ftypes.append(CONTINUOUS)
    y = y_series.to_numpy()
    if y.dtype.kind == "f" and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    elif y.dtype.kind == "O":  # text labels (a category column of text comes out as objects)
        y = np.asarray(y_series.astype(str).to_numpy(), dtype=str)
    return LabeledData(
        X=X,
        y=y,
        feature_types=tuple(ftypes),
        name=name,
        feature_names=tuple(str(c) for c in features),
        meta={"categories": categories, "target": str(target)},
    )


def load_table(
    source: str | os.PathLike[str] | pd.DataFrame,
    *,
    target: str | int | None = None,
    nominal: Sequence[str] | None = None,
    sep: str | None = None,
    name: str | None = None,
) -> LabeledData:
    """Load a table of examples from a CSV/TSV file (optionally gzip) or a DataFrame.

    Parameters
    ----------
    source : str, path-like or pandas.DataFrame
        A ``.csv``, ``.tsv`` or ``.txt`` file, optionally ending in ``.gz``, with a header line;
        or a DataFrame.
    target : str or int, optional
        The class column, by name or position; default ``"target"`` if present, else the last
        column.
    nominal : sequence of str, optional
        Columns to treat as nominal. Columns that are not numeric (text, ``category`` or
        ``bool`` dtype) are nominal in any case.
    sep : str, optional
        Field separator; by default a tab for ``.tsv``/``.tab`` files and a comma otherwise.
    name : str, optional
        Data set name; default the file's stem (``"table"`` for a DataFrame).

    Returns
    -------
    LabeledData
        Nominal columns coded 0..m-1 (in the order of a ``category`` dtype's categories, else
        of their sorted values; ``meta["categories"]`` maps codes back); missing values ``nan``.
        Labels keep their values (integral floats become ints).
    """
    if target is not None and (isinstance(target, bool) or not isinstance(target, str | int)):
        raise TypeError(f"target must be a column name, a position or None; got {target!r}")
    if nominal is not None and (isinstance(nominal, str) or not isinstance(nominal, Iterable)):
        raise TypeError(f"nominal must be a sequence of column names; got {nominal!r}")
    if sep is not None and not isinstance(sep, str):
        raise TypeError(f"sep must be a str; got {sep!r}")
    if isinstance(source, pd.DataFrame):
        frame = source
        default_name = "table"
    elif isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"source must be an existing file; {os.fspath(source)!r} is not")
        suffixes = [s.lower() for s in path.suffixes]
        if suffixes and suffixes[-1] == ".gz":
            suffixes = suffixes[:-1]
        kind = suffixes[-1] if suffixes else ""
        if kind not in (".csv", ".tsv", ".tab", ".txt"):
            raise ValueError(f"source must be a .csv, .tsv, .tab or .txt file (optionally .gz); "
                             f"got {path.name!r}")
        if sep is None:
            sep = "\t" if kind in (".tsv", ".tab") else ","
        frame = pd.read_csv(path, sep=sep)
        default_name = path.name.split(".")[0]
    else:
        raise TypeError(f"source must be a file path or a pandas DataFrame; got "
                        f"{type(source).__name__}")
    if isinstance(target, str) and target not in frame.columns:
        raise ValueError(f"target must name a column; {target!r} is not among "
                         f"{list(frame.columns)}")
    return _from_frame(frame, target=target, nominal=nominal, name=name or default_name)


def load_builtin(name: str) -> LabeledData:
    """Load one of scikit-learn's bundled real data sets (no download).

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "digits"}
        Which set (``sklearn.datasets.load_<name>``).

    Returns
    -------
    LabeledData
        Continuous features and integer labels.
    """
    if not isinstance(name, str) or name not in _BUILTIN:
        raise ValueError(f"name must be one of {_BUILTIN}; got {name!r}")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, f"load_{name}")()
    X = np.asarray(bunch.data, dtype=np.float64)
    names = getattr(bunch, "feature_names", None)
    if names is None or len(names) != X.shape[1]:
        names = [f"x{j}" for j in range(X.shape[1])]
    return LabeledData(
        X=X,
        y=np.asarray(bunch.target, dtype=np.int64),
        feature_types=(CONTINUOUS,) * X.shape[1],
        name=name.replace("_", "-"),
        feature_names=tuple(str(n) for n in names),
        meta={"source": f"sklearn.datasets.load_{name}"},
    )
