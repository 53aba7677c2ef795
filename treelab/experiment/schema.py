"""The entries of an experiment configuration and their validation: data sets
(:class:`DatasetSpec`), swept transforms (:class:`TransformSpec`) and ensembles
(:class:`EnsembleSpec`). Each entry is checked when it is built and every error names it;
:mod:`treelab.experiment.config` assembles them into a whole experiment.
"""

from __future__ import annotations

import inspect
import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treelab import _dims
from treelab.datasets.generators import GENERATORS, SIZED_GENERATORS
from treelab.datasets.loaders import _BUILTIN
from treelab.experiment._checks import (  # noqa: F401 (read from here by config, cells, groups)
    check_alpha_conflict,
    check_alphas,
    check_classifier,
    check_estimator_task,
    check_jsonable,
    check_name,
    check_params,
    resolve_estimator,
)

__all__ = [
    "DATASET_KEYS",
    "ENSEMBLE_KEYS",
    "TRANSFORMS",
    "TRANSFORM_KEYS",
    "DatasetSpec",
    "EnsembleSpec",
    "TransformSpec",
    "check_alpha_conflict",
    "check_alphas",
    "check_classifier",
    "check_estimator_task",
    "check_jsonable",
    "check_name",
    "check_params",
    "resolve_estimator",
]

#: Transform kinds, with the dim each one sweeps by default and whether it touches only the
#: training rows.
TRANSFORMS: dict[str, dict[str, Any]] = {
    "irrelevant": {"dim": _dims.N_IRRELEVANT, "train_only": False},
    "class_noise": {"dim": _dims.NOISE, "train_only": True},
    "attribute_noise": {"dim": "attribute_noise", "train_only": True},
    "subsample": {"dim": _dims.TRAIN_SIZE, "train_only": True},
    # columns ranked on the training fold only, then the same columns kept in the test rows
    "important_attributes": {"dim": "attribute_fraction", "train_only": False},
}
_TRANSFORM_OPTIONS = {
    "irrelevant": {"distribution": ("gaussian", "uniform", "bits")},
    "class_noise": {},
    "attribute_noise": {"draw": ("other", "any")},
    "subsample": {"stratify": (True, False)},
    "important_attributes": {},
}
_SOURCES = ("generator", "uci", "builtin", "path", "regression")
#: Keys of a ``[[datasets]]``, ``[[ensembles]]`` and ``[[transforms]]`` entry.
DATASET_KEYS = frozenset({"name", *_SOURCES, "params", "n_samples", "test", "min_class_size",
                          "root"})
ENSEMBLE_KEYS = frozenset({"name", "estimator", "params", "alphas", "single"})
TRANSFORM_KEYS = frozenset({"kind", "values", "dim",
                            *(k for opts in _TRANSFORM_OPTIONS.values() for k in opts)})
#: the grid's own dims and those of the stored measures: a transform sweeping one of them would
#: meet a measure's coordinates of that name in the result (k, threshold, class, ...)
_RESERVED_DIMS = {_dims.DATASET, _dims.ENSEMBLE, _dims.ALPHA, _dims.REPEAT, _dims.FOLD,
                  _dims.TREE, _dims.SAMPLE, _dims.CLASS, _dims.THRESHOLD, _dims.K, _dims.BIN,
                  _dims.TREE_OTHER, _dims.MARGIN_THRESHOLD}


def _regression_names() -> frozenset[str]:
    from treelab.datasets._regression_data import REGRESSION_DATASETS

    return frozenset(REGRESSION_DATASETS)


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of an experiment.

    Exactly one source is given: ``generator`` (a name of
    :data:`treelab.datasets.GENERATORS`), ``uci`` (a name in the UCI bundle), ``builtin``
    (a scikit-learn bundled set), ``path`` (a CSV/TSV file) or ``regression`` (a name of
    :func:`treelab.datasets.load_regression`, for ``task = "regression"``).

    Parameters
    ----------
    name : str
        The coordinate on the ``dataset`` dim (default: the source's name).
    generator, uci, builtin, path, regression : str, optional
        The source.
    params : dict, default {}
        Generator keyword arguments, or ``load_table`` keyword arguments for ``path``
        (``target``, ``nominal``, ``sep``).
    n_samples : int, optional
        Rows drawn from a generator for index protocols (k-fold, holdout, ...). Draw protocols
        take their sizes from the protocol instead.
    test : dict, optional
        A fixed test set for draw protocols, ``{"generator": ..., "params": {...}}`` (e.g. the
        concepts lattice); a generator with a ``random_state`` is seeded from (seed, "test",
        name) unless ``params`` gives one.
    min_class_size : int, optional
        Drop the rows of classes with fewer rows than this before splitting.
    root : str, optional
        UCI bundle folder (else ``TREELAB_DATA``, then the bundle that ships with treelab).
    """

    name: str
    generator: str | None = None
    uci: str | None = None
    builtin: str | None = None
    path: str | None = None
    regression: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    n_samples: int | None = None
    test: Mapping[str, Any] | None = None
    min_class_size: int | None = None
    root: str | None = None

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], where: str = "datasets") -> DatasetSpec:
        """Build and validate from a mapping (a TOML table)."""
        if not isinstance(spec, Mapping):
            raise TypeError(f"{where} entries must be tables; got {spec!r}")
        allowed = set(DATASET_KEYS)
        unknown = set(spec) - allowed
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}; allowed {sorted(allowed)}")
        sources = [s for s in _SOURCES if spec.get(s) is not None]
        if len(sources) != 1:
            raise ValueError(f"{where}: give exactly one of {_SOURCES}; got {sources or 'none'}")
        source = sources[0]
        value = spec[source]
        if source == "path":
            value = os.fspath(value)
        check_name(value, f"{where}.{source}")
        name = check_name(spec.get("name", Path(value).name.split(".")[0]
                                    if source == "path" else value), f"{where}.name")
        where = f"{where}[{name!r}]"
        params = dict(check_jsonable(dict(spec.get("params", {})), f"{where}.params"))
        if source == "generator":
            if value not in GENERATORS:
                raise ValueError(f"{where}.generator must be one of {sorted(GENERATORS)}; "
                                 f"got {value!r}")
            bad = {"random_state", "n_samples"} & set(params)
            if bad:
                raise ValueError(f"{where}.params must not set {sorted(bad)}: the runner seeds "
                                 "and sizes every draw (use n_samples)")
            sig = inspect.signature(GENERATORS[value])
            unknown = set(params) - set(sig.parameters)
            if unknown:
                raise ValueError(f"{where}.params: {value}() has no parameters {sorted(unknown)}")
        elif source == "regression" and value not in _regression_names():
            raise ValueError(f"{where}.regression must be one of {sorted(_regression_names())}; "
                             f"got {value!r}")
        elif source == "builtin" and value not in _BUILTIN:
            raise ValueError(f"{where}.builtin must be one of {_BUILTIN}; got {value!r}")
        elif source == "path":
            if not Path(value).is_file():
                raise ValueError(f"{where}.path: no such file {value!r}")
            unknown = set(params) - {"target", "nominal", "sep"}
            if unknown:
                raise ValueError(f"{where}.params: load_table takes target, nominal, sep; got "
                                 f"{sorted(unknown)}")
        elif params:
            raise ValueError(f"{where}.params is only for generators and files")
        n_samples = spec.get("n_samples")
        if n_samples is not None:
            if source != "generator" or value not in SIZED_GENERATORS:
                raise ValueError(f"{where}.n_samples applies to sized generators only")
            if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) \
                    or n_samples < 2:
                raise ValueError(f"{where}.n_samples must be an integer >= 2; got {n_samples!r}")
            n_samples = int(n_samples)
        test = spec.get("test")
        if test is not None:
            if not isinstance(test, Mapping) or test.get("generator") not in GENERATORS:
                raise ValueError(f"{where}.test must be a table with a generator name; "
                                 f"got {test!r}")
            test = check_jsonable({"generator": test["generator"],
                              "params": dict(test.get("params", {}))}, f"{where}.test")
            unknown = set(test["params"]) - set(
                inspect.signature(GENERATORS[test["generator"]]).parameters)
            if unknown:  # else every cell would fail on it
                raise ValueError(f"{where}.test.params: {test['generator']}() has no "
                                 f"parameters {sorted(unknown)}")
        mcs = spec.get("min_class_size")
        if mcs is not None and (isinstance(mcs, bool) or not isinstance(mcs, numbers.Integral)
                                or mcs < 1):
            raise ValueError(f"{where}.min_class_size must be a positive integer; got {mcs!r}")
        root = spec.get("root")
        if root is not None:
            root = os.fspath(root)
        return cls(name=name, params=params, n_samples=n_samples, test=test,
                   min_class_size=None if mcs is None else int(mcs), root=root,
                   **{source: value})

    @property
    def source(self) -> str:
        """Which of generator/uci/builtin/path this data set comes from."""
        return next(s for s in _SOURCES if getattr(self, s) is not None)

    def to_dict(self) -> dict[str, Any]:
        """The identifying fields, as plain JSON-able values (``root`` excluded: a folder is
        not part of a data set's identity)."""
        out: dict[str, Any] = {"name": self.name, self.source: getattr(self, self.source)}
        for key in ("params", "n_samples", "test", "min_class_size"):
            value = getattr(self, key)
            if value:
                out[key] = dict(value) if isinstance(value, Mapping) else value
        return out


@dataclass(frozen=True)
class TransformSpec:
    """A transform and the values it sweeps (one dim of the result).

    Parameters
    ----------
    kind : {"irrelevant", "class_noise", "attribute_noise", "subsample", "important_attributes"}
        ``irrelevant``: k added irrelevant attributes (whole data set; option
        ``distribution`` = "gaussian" | "uniform" | "bits"); ``class_noise`` and
        ``attribute_noise``: rate r on the training rows only; ``subsample``: keep a fraction of
        each training split (option ``stratify``); ``important_attributes``: keep the fraction
        of the attributes that a 100-tree random forest ranks most important (Breiman's
        out-of-bag permutation importance, :func:`treelab.datasets.keep_important`), ranked on
        each training split only and the same columns kept in its test rows (Liu et al. 2008,
        Table 5: 0.5).
    values : sequence
        Swept values (k, r or fraction).
    dim : str, optional
        Dim name; defaults ``n_irrelevant``, ``noise``, ``attribute_noise``, ``train_size``,
        ``attribute_fraction``.
    options : dict, default {}
        The kind's options.
    """

    kind: str
    values: tuple[Any, ...]
    dim: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], where: str = "transforms") -> TransformSpec:
        """Build and validate from a mapping (a TOML table)."""
        if not isinstance(spec, Mapping):
            raise TypeError(f"{where} entries must be tables; got {spec!r}")
        kind = spec.get("kind")
        if kind not in TRANSFORMS:
            raise ValueError(f"{where}.kind must be one of {sorted(TRANSFORMS)}; got {kind!r}")
        where = f"{where}[{kind!r}]"
        allowed = {"kind", "values", "dim", *_TRANSFORM_OPTIONS[kind]}
        unknown = set(spec) - allowed
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}; allowed {sorted(allowed)}")
        values = spec.get("values")
        if isinstance(values, str) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"{where}.values must be a non-empty list; got {values!r}")
        checked = []
        for v in values:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{where}.values must be numbers; got {v!r}")
            if kind == "irrelevant":
                if not isinstance(v, numbers.Integral) or v < 0:
                    raise ValueError(f"{where}.values must be counts >= 0; got {v!r}")
                checked.append(int(v))
            elif kind in ("subsample", "important_attributes"):
                if not 0 < float(v) <= 1:
                    raise ValueError(f"{where}.values must be fractions in (0, 1]; got {v!r}")
                checked.append(float(v))
            else:
                if not 0 <= float(v) <= 1:
                    raise ValueError(f"{where}.values must be rates in [0, 1]; got {v!r}")
                checked.append(float(v))
        if len(set(checked)) != len(checked):
            raise ValueError(f"{where}.values must be distinct; got {checked}")
        dim = check_name(spec.get("dim", TRANSFORMS[kind]["dim"]), f"{where}.dim")
        if dim in _RESERVED_DIMS:
            raise ValueError(f"{where}.dim must not be one of {sorted(_RESERVED_DIMS)}")
        options = {}
        for opt, choices in _TRANSFORM_OPTIONS[kind].items():
            if opt in spec:
                if spec[opt] not in choices:
                    raise ValueError(f"{where}.{opt} must be one of {choices}; got {spec[opt]!r}")
                options[opt] = spec[opt]
        return cls(kind=kind, values=tuple(checked), dim=dim, options=options)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form."""
        return {"kind": self.kind, "values": list(self.values), "dim": self.dim,
                **dict(self.options)}


@dataclass(frozen=True)
class EnsembleSpec:
    """One ensemble (estimator and parameters) of an experiment.

    Parameters
    ----------
    name : str
        The coordinate on the ``ensemble`` dim (default: the estimator name).
    estimator : str
        A treelab estimator name or an import path (see :func:`resolve_estimator`).
    params : dict, default {}
        Constructor parameters (``random_state`` and ``n_jobs`` are set by the runner).
    alphas : sequence of float, optional
        Alphas to sweep; default the configuration's ``alphas``. Only for estimators with an
        ``alpha`` parameter; others get a single NaN alpha coordinate.
    single : "auto", False or dict, default "auto"
        Single-model baseline for the error ratio: ``"auto"`` uses the estimator's
        ``single_model()`` (the alpha = 1 tree for VR-Trees) fitted on the same training rows;
        False skips it; a table ``{estimator = ..., params = {...}}`` names another one.
    """

    name: str
    estimator: str
    params: Mapping[str, Any] = field(default_factory=dict)
    alphas: tuple[float, ...] | None = None
    single: Any = "auto"

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], where: str = "ensembles",
                  task: str = "classification") -> EnsembleSpec:
        """Build and validate from a mapping (a TOML table); ``task`` says whether the
        estimator must be a classifier or a regressor."""
        if not isinstance(spec, Mapping):
            raise TypeError(f"{where} entries must be tables; got {spec!r}")
        allowed = set(ENSEMBLE_KEYS)
        unknown = set(spec) - allowed
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}; allowed {sorted(allowed)}")
        estimator = check_name(spec.get("estimator"), f"{where}.estimator")
        name = check_name(spec.get("name", estimator), f"{where}.name")
        where = f"{where}[{name!r}]"
        params = dict(check_jsonable(dict(spec.get("params", {})), f"{where}.params"))
        est_cls = resolve_estimator(estimator)
        try:
            known = set(est_cls().get_params(deep=False))
        except Exception as exc:  # an estimator whose defaults cannot be built
            raise ValueError(f"{where}.estimator cannot be constructed: {exc}") from None
        check_estimator_task(est_cls, task, f"{where}.estimator")
        unknown = set(params) - known
        if unknown:
            raise ValueError(f"{where}.params: {estimator} has no parameters {sorted(unknown)}")
        bad = {"random_state", "n_jobs"} & set(params)
        if bad:
            raise ValueError(f"{where}.params must not set {sorted(bad)}: the runner sets them")
        check_params(est_cls, params, f"{where}.params")
        alphas = spec.get("alphas")
        if alphas is not None:
            if "alpha" not in known:
                raise ValueError(f"{where}.alphas: {estimator} has no alpha parameter")
            alphas = check_alphas(alphas, f"{where}.alphas")
            check_alpha_conflict(params, alphas, f"{where}.params", f"{where}.alphas")
        single = spec.get("single", "auto")
        if single not in ("auto", False):
            if not isinstance(single, Mapping) or "estimator" not in single:
                raise ValueError(f"{where}.single must be 'auto', false or a table with an "
                                 f"estimator; got {single!r}")
            single_cls = resolve_estimator(single["estimator"])
            if task == "regression":
                raise ValueError(f"{where}.single: a regression experiment has no single-"
                                 "model baseline; leave single out")
            check_classifier(single_cls, f"{where}.single.estimator")
            single = check_jsonable({"estimator": single["estimator"],
                                "params": dict(single.get("params", {}))}, f"{where}.single")
            check_params(single_cls, single["params"], f"{where}.single.params")
        return cls(name=name, estimator=estimator, params=params, alphas=alphas, single=single)

    def has_alpha(self) -> bool:
        """Whether the estimator has an ``alpha`` parameter."""
        return "alpha" in resolve_estimator(self.estimator)().get_params(deep=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form."""
        out: dict[str, Any] = {"name": self.name, "estimator": self.estimator,
                               "params": dict(self.params), "single": self.single}
        if self.alphas is not None:
            out["alphas"] = list(self.alphas)
        return out


