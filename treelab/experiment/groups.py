"""Measures over the K training sets of a grid point: ``bias_variance_01`` and
``bias_variance_diversity`` in an experiment.

Both decompositions read the outputs of K models, fitted on the K training sets of the
``bias_variance`` protocol (the ``repeat`` dim), on one shared test set, while a cell holds one
fit. The cells that differ only in ``repeat`` (same data set, ensemble, alpha and transform
values) form a :class:`Group`, and its measures are computed in three steps:

1. the worker that fits a cell predicts the shared test rows once for each output a requested
   measure reads (``predict`` for the 0-1 decompositions; ``member_proba``, or the member
   labels taken from it, for Wood et al.'s) and returns them with the cell's values
   (:func:`cell_outputs`);
2. the process that writes the store saves them to ``OUT/outputs/<cell key>.npz`` (compressed;
   the SHA-256 of the cell key and the arrays inside; written under a temporary name and
   renamed) before it appends the cell's line (:func:`write_outputs`);
3. once every cell of the group is finished, it reads the K files back, checking each digest
   and that the K test sets are the same rows, calls the analysis function on the outputs
   stacked in repeat order, appends the group's line to ``cells.jsonl`` (with a digest, as
   every line) and deletes the K files (:func:`reduce_group`).

So nothing is refitted or predicted again to compute them, a run killed at any moment loses
only the cells in flight (a finished cell whose file is missing or fails its check, in a group
without its line yet, runs again; a group whose cells are all finished is reduced at the start
of the next run), and the values do not depend on the backend or on the order in which cells
finish. Their variables have the grid dims without ``repeat`` and ``fold``.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis import bias_variance_01, bias_variance_diversity
from treelab.analysis.regression import louppe_variance, regression_outputs
from treelab.analysis.regression_decomposition import (
    bias_variance_diversity as bias_variance_diversity_regression,
)
from treelab.experiment.schema import resolve_estimator
from treelab.experiment.values import own_dims, record_values, reduce_measure

__all__ = [
    "GROUP_MEASURES",
    "Group",
    "cell_outputs",
    "check_group_measures",
    "check_group_options",
    "groups_of",
    "outputs_path",
    "read_outputs",
    "reduce_group",
    "write_outputs",
]

#: Measures over the K training sets: their option with its choices (the first is the
#: analysis function's default). Every one also takes ``target``, see :data:`TARGETS`.
GROUP_MEASURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "bias_variance_01": ("method", ("domingos", "kohavi_wolpert", "breiman")),
    "bias_variance_diversity": ("loss", ("squared", "cross_entropy", "zero_one")),
    "louppe_variance": ("", ()),  # regression only; no options
}
#: ``target``: the observed test labels, or the generator's class distribution of each test
#: row (``true_proba``; the label noise then shows as the noise term).
TARGETS = ("labels", "true_proba")
#: A regression experiment's group measures: their options and choices (the first is the
#: default). ``target`` = "y" measures the terms against the observed values (the noise is
#: then inside ``bias_with_noise``), "true_target" against the generator's E[y|x] (the noise
#: reported apart, Wood et al. 2023).
REGRESSION_OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "bias_variance_diversity": {"loss": ("squared", "poisson"), "target": ("y", "true_target")},
    "louppe_variance": {},
}
_OUTPUTS = "outputs"


def check_group_options(name: str, options: Mapping[str, Any], task: str = "classification"
                        ) -> dict[str, Any]:
    """The options of a group measure, checked (unknown keys and values name the entry)."""
    if task == "regression":
        allowed = REGRESSION_OPTIONS.get(name)
        if allowed is None:
            raise ValueError(f"measures.{name} is not a measure of a regression experiment; "
                             f"over the K training sets it takes {sorted(REGRESSION_OPTIONS)}")
        unknown = set(options) - set(allowed)
        if unknown:
            raise ValueError(f"measures.{name}: unknown options {sorted(unknown)}; it takes "
                             f"{sorted(allowed)}")
        for key, choices in allowed.items():
            if key in options and options[key] not in choices:
                raise ValueError(f"measures.{name}.{key} must be one of {list(choices)}; got "
                                 f"{options[key]!r}")
        return dict(options)
    if name == "louppe_variance":
        raise ValueError(f"measures.{name} is a measure of regression experiments (task = "
                         "'regression')")
    option, choices = GROUP_MEASURES[name]
    unknown = set(options) - {option, "target"}
    if unknown:
        raise ValueError(f"measures.{name}: unknown options {sorted(unknown)}; it takes "
                         f"{option!r} and 'target' (the runner passes the outputs, labels and "
                         "classes)")
    if option in options and options[option] not in choices:
        raise ValueError(f"measures.{name}.{option} must be one of {list(choices)}; got "
                         f"{options[option]!r}")
    if "target" in options and options["target"] not in TARGETS:
        raise ValueError(f"measures.{name}.target must be one of {list(TARGETS)}; got "
                         f"{options['target']!r}")
    return dict(options)


def check_group_measures(measures: Mapping[str, Mapping[str, Any]], protocol: Any,
                         datasets: Sequence[Any], ensembles: Sequence[Any],
                         task: str = "classification") -> None:
    """Refuse, before any cell runs, a group measure that the configuration cannot feed."""
    for name, options in measures.items():
        if name not in GROUP_MEASURES:
            continue
        if protocol.name != "bias_variance":
            raise ValueError(f"measures.{name} needs the outputs of K training sets on one "
                             f"shared test set (protocol 'bias_variance'); protocol "
                             f"{protocol.name!r} has none")
        if task == "regression":
            _check_regression_group(name, options, datasets, ensembles)
            continue
        if options.get("target") == "true_proba":
            bad = [d.name for d in datasets if d.source != "generator"]
            if bad:
                raise ValueError(f"measures.{name}.target = 'true_proba' needs data sets whose "
                                 f"class probabilities are known (generators); datasets {bad} "
                                 "are not generators")
        if name != "bias_variance_diversity":
            continue
        for ens in ensembles:
            cls = resolve_estimator(ens.estimator)
            if not hasattr(cls, "member_proba"):
                raise ValueError(f"measures.{name} needs member outputs: ensembles"
                                 f"[{ens.name!r}] ({ens.estimator}) has no member_proba")
            if options.get("loss") == "cross_entropy":
                params = cls().get_params(deep=False)
                if not {**params, **ens.params}.get("laplace", False):
                    raise ValueError(f"measures.{name}: loss 'cross_entropy' needs member "
                                     f"probabilities above 0; set laplace = true in ensembles"
                                     f"[{ens.name!r}].params")


def _check_regression_group(name: str, options: Mapping[str, Any], datasets: Sequence[Any],
                            ensembles: Sequence[Any]) -> None:
    """A regression group measure needs member outputs and, for ``target`` =
    "true_target", generators (whose rows carry E[y|x])."""
    if options.get("target") == "true_target":
        bad = [d.name for d in datasets if d.source != "generator"]
        if bad:
            raise ValueError(f"measures.{name}.target = 'true_target' needs data sets whose "
                             f"true function is known (generators); datasets {bad} are not "
                             "generators")
    for ens in ensembles:
        cls = resolve_estimator(ens.estimator)
        if not (hasattr(cls, "member_predict") or hasattr(cls, "estimators_")
                or "n_estimators" in cls().get_params(deep=False)):
            raise ValueError(f"measures.{name} needs member outputs: ensembles[{ens.name!r}] "
                             f"({ens.estimator}) is not an ensemble")
        if name == "louppe_variance" and {**cls().get_params(deep=False), **ens.params}.get(
                "n_estimators", 2) < 2:
            raise ValueError(f"measures.{name}: rho(x) pairs two trees of one training set; "
                             f"ensembles[{ens.name!r}] has one")


def _kinds(measures: Mapping[str, Mapping[str, Any]]) -> set[str]:
    """The outputs a cell keeps for its group measures."""
    kinds: set[str] = set()
    for name, options in measures.items():
        if name == "bias_variance_01":
            kinds.add("predictions")
        elif name == "bias_variance_diversity":
            zero_one = options.get("loss") == "zero_one"
            kinds.add("member_labels" if zero_one else "member_proba")
        else:
            continue
        if options.get("target") == "true_proba":
            kinds.add("true_proba")
    return kinds


def _codes(labels: Any, classes: np.ndarray) -> np.ndarray:
    return np.searchsorted(classes, np.asarray(labels)).astype(np.int64)


def cell_outputs(est: Any, test: Any, measures: Mapping[str, Mapping[str, Any]],
                 where: str, task: str = "classification") -> dict[str, np.ndarray]:
    """What a fitted cell keeps for its group measures (empty without any).

    Classes are the union of the test set's and the fit's (a training set may miss a class);
    labels are codes into them and member probabilities have a column per class (0 for a
    class the fit never saw). ``x_digest`` identifies the test rows, so that the reduction can
    check that the K cells scored the same ones.
    """
    if task == "regression":
        if not any(k in GROUP_MEASURES for k in measures):
            return {}
        return _regression_cell_outputs(est, test, measures, where)
    kinds = _kinds(measures)
    if not kinds:
        return {}
    classes = np.union1d(np.asarray(test.classes), np.asarray(est.classes_))
    out: dict[str, np.ndarray] = {
        "classes": classes.astype(str) if classes.dtype == object else classes,
        "y": _codes(test.y, classes),
        "x_digest": np.array(hashlib.sha256(
            np.ascontiguousarray(test.X, dtype=np.float64).tobytes()).hexdigest()),
    }
    if "predictions" in kinds:
        out["predictions"] = _codes(est.predict(test.X), classes)
    if kinds & {"member_proba", "member_labels"}:
        member_p = np.asarray(est.member_proba(test.X), dtype=np.float64)
        cols = _codes(est.classes_, classes)
        if "member_proba" in kinds:
            full = np.zeros(member_p.shape[:2] + (classes.size,))
            full[:, :, cols] = member_p
            out["member_proba"] = full
        if "member_labels" in kinds:  # member_predict's labels: first column of the maximum
            out["member_labels"] = cols[np.argmax(member_p, axis=2)].astype(np.int32)
    if "true_proba" in kinds:
        if test.true_proba is None:
            raise ValueError(f"{where}: target 'true_proba' needs test rows with known class "
                             "probabilities; this data set has none")
        full = np.zeros((test.n_samples, classes.size))
        full[:, _codes(test.classes, classes)] = test.true_proba
        out["true_proba"] = full
    return out


def _regression_cell_outputs(est: Any, test: Any, measures: Mapping[str, Mapping[str, Any]],
                             where: str) -> dict[str, np.ndarray]:
    """A regression cell's outputs: its members' predictions on the test rows (tree,
    sample), the observed values and, for ``target`` = "true_target", the true function."""
    out: dict[str, np.ndarray] = {
        "y": np.asarray(test.y, dtype=np.float64),
        "x_digest": np.array(hashlib.sha256(
            np.ascontiguousarray(test.X, dtype=np.float64).tobytes()).hexdigest()),
        "member_outputs": np.asarray(regression_outputs(est, test.X).values, dtype=np.float64),
    }
    if any(o.get("target") == "true_target" for o in measures.values()):
        if test.true_target is None:
            raise ValueError(f"{where}: target 'true_target' needs test rows with a known true "
                             "function; this data set has none")
        out["true_target"] = np.asarray(test.true_target, dtype=np.float64)
    return out


# -- the files --------------------------------------------------------------------------------

def outputs_path(folder: str | os.PathLike[str], key: str) -> Path:
    """Where the outputs of cell ``key`` are kept until its group is reduced."""
    return Path(folder) / _OUTPUTS / f"{key}.npz"


def _digest(key: str, arrays: Mapping[str, np.ndarray]) -> str:
    h = hashlib.sha256(key.encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"|{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def write_outputs(folder: str | os.PathLike[str], key: str,
                  arrays: Mapping[str, np.ndarray]) -> None:
    """Save a cell's outputs with their digest, under a temporary name renamed into place."""
    path = outputs_path(folder, key)
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("wb") as fh:
            np.savez_compressed(fh, digest=np.array(_digest(key, arrays)), **arrays)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise


def read_outputs(folder: str | os.PathLike[str], key: str
                 ) -> tuple[dict[str, np.ndarray] | None, str]:
    """A cell's outputs, or None and why (missing, unreadable, or changed since written)."""
    path = outputs_path(folder, key)
    if not path.is_file():
        return None, f"{path} is missing"
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
    except Exception as exc:  # a truncated or garbled zip raises many kinds of errors
        return None, f"{path} cannot be read ({type(exc).__name__}: {exc})"
    digest = arrays.pop("digest", None)
    if digest is None or str(digest) != _digest(key, arrays):
        return None, f"{path} does not match its digest (changed after it was written)"
    return arrays, ""


# -- groups -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    """The cells of one grid point that differ only in ``repeat`` (and ``fold``).

    Attributes
    ----------
    key : str
        Hash of its cells' keys: the group's line in the store carries it.
    coords : dict
        The cells' coordinates without ``repeat`` and ``fold``.
    cells : tuple of Cell
        In (repeat, fold) order.
    measures : dict
        The group measures and their options.
    """

    key: str
    coords: dict[str, Any]
    cells: tuple[Any, ...]
    measures: dict[str, dict[str, Any]]


def groups_of(cells: Sequence[Any], measures: Mapping[str, Mapping[str, Any]]) -> list[Group]:
    """The groups of ``cells`` in grid order (none without a group measure)."""
    wanted = {k: dict(v) for k, v in measures.items() if k in GROUP_MEASURES}
    if not wanted:
        return []
    members: dict[tuple, list[Any]] = {}
    for cell in cells:
        at = tuple((d, "nan" if isinstance(v, float) and math.isnan(v) else v)
                   for d, v in cell.coords.items() if d not in (_dims.REPEAT, _dims.FOLD))
        members.setdefault(at, []).append(cell)
    out = []
    for group in members.values():
        group.sort(key=lambda c: (c.coords[_dims.REPEAT], c.coords[_dims.FOLD]))
        key = hashlib.sha256(("group:" + ",".join(c.key for c in group)).encode())
        coords = {d: v for d, v in group[0].coords.items() if d not in (_dims.REPEAT, _dims.FOLD)}
        out.append(Group(key.hexdigest()[:32], coords, tuple(group), wanted))
    return out


def _stack(outputs: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The K cells' outputs on common classes, stacked along repeat; the test rows checked."""
    if len({str(o["x_digest"]) for o in outputs}) != 1:
        raise ValueError("the cells of this group scored different test rows; their outputs "
                         "cannot be combined")
    if "member_outputs" in outputs[0]:  # regression: no classes to line up
        out = {"member_outputs": np.stack([o["member_outputs"] for o in outputs])}
        for name in ("y", "true_target"):
            if name not in outputs[0]:
                continue
            if any(not np.array_equal(o[name], outputs[0][name]) for o in outputs):
                raise ValueError(f"the cells of this group have different test {name}")
            out[name] = outputs[0][name]
        return out
    classes = outputs[0]["classes"]
    for o in outputs[1:]:
        classes = np.union1d(classes, o["classes"])
    moved = [_codes(o["classes"], classes) for o in outputs]  # old code -> new code
    ys = [pos[o["y"]] for pos, o in zip(moved, outputs, strict=True)]
    if any(not np.array_equal(y, ys[0]) for y in ys):
        raise ValueError("the cells of this group scored different test labels")
    out = {"classes": classes, "y": ys[0]}
    for name in ("predictions", "member_labels"):
        if name in outputs[0]:
            out[name] = np.stack([pos[o[name]] for pos, o in zip(moved, outputs, strict=True)])
    for name, lead in (("member_proba", 2), ("true_proba", 1)):
        if name not in outputs[0]:
            continue
        full = []
        for pos, o in zip(moved, outputs, strict=True):
            arr = np.zeros(o[name].shape[:lead] + (classes.size,))
            arr[..., pos] = o[name]
            full.append(arr)
        out[name] = np.stack(full)
    if "true_proba" in out:
        if any(not np.array_equal(t, out["true_proba"][0]) for t in out["true_proba"]):
            raise ValueError("the cells of this group have different true class probabilities")
        out["true_proba"] = out["true_proba"][0]
    return out


def reduce_group(group: Group, outputs: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    """The group's measures from its cells' outputs (in repeat order).

    Returns
    -------
    dict
        ``{"vars", "coords", "warnings"}`` as a cell's record (variables without a sample or
        tree dim; each carries the attr ``measure``, which names a clashing variable in the
        assembled result).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = _stack(outputs)
        n_classes = int(s["classes"].size) if "classes" in s else 0
        k = len(outputs)
        variables: dict[str, xr.DataArray] = {}
        owners: dict[str, str] = {}
        for name, options in group.measures.items():
            true_proba = options.get("target") == "true_proba"
            if "member_outputs" in s:
                ds = _regression_group_measure(name, options, s)
            elif name == "bias_variance_01":
                ds = bias_variance_01(s["predictions"], s["y"], method=options.get(
                    "method", "domingos"), true_proba=s["true_proba"] if true_proba else None,
                    n_classes=n_classes)
            else:
                loss = options.get("loss", "squared")
                ds = bias_variance_diversity(
                    s["member_labels"] if loss == "zero_one" else s["member_proba"],
                    s["true_proba"] if true_proba else s["y"], loss=loss, n_classes=n_classes)
            # per-member terms are left out: their means over trees are average_bias and
            # average_variance
            for var, da in own_dims(name, reduce_measure(ds, tree_means=False), owners).items():
                da = da._replace(attrs={**da.attrs, "measure": name, "description": (
                    f"{name} over the {k} training sets (repeat dim) on the shared test rows; "
                    + str(da.attrs.get("description", ""))).strip("; ")})
                variables[var if var not in variables else f"{name}_{var}"] = da
    return record_values(variables, caught)


def _regression_group_measure(name: str, options: Mapping[str, Any],
                              s: Mapping[str, np.ndarray]) -> xr.Dataset:
    """A regression group measure on the stacked (repeat, tree, sample) member outputs:
    Wood et al.'s bias-variance-diversity (against the observed y, or with the noise apart
    against the generator's true function) or Louppe's rho(x) decomposition."""
    if name == "louppe_variance":
        return louppe_variance(s["member_outputs"])
    target = s["true_target"] if options.get("target") == "true_target" else None
    return bias_variance_diversity_regression(s["member_outputs"], s["y"], target=target,
                                              loss=options.get("loss", "squared"))
