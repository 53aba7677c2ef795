"""The experiment configuration: data sets x transforms x ensembles x alphas x protocol.

A configuration is a :class:`ExperimentConfig` built in Python or read from a TOML file
(:func:`load_config`). Everything is validated when the configuration is built, before any cell
runs, and every error names the offending entry.
"""

from __future__ import annotations

import importlib
import inspect
import json
import numbers
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from treelab import _dims
from treelab.datasets.generators import GENERATORS, SIZED_GENERATORS
from treelab.datasets.loaders import _BUILTIN
from treelab.protocols import Protocol, make_protocol

__all__ = [
    "BACKENDS",
    "TRANSFORMS",
    "DatasetSpec",
    "EnsembleSpec",
    "ExperimentConfig",
    "TransformSpec",
    "load_config",
    "resolve_estimator",
]

#: Backends a configuration may name.
BACKENDS = ("serial", "local", "dask")

#: Transform kinds, with the dim each one sweeps by default and whether it touches only the
#: training rows.
TRANSFORMS: dict[str, dict[str, Any]] = {
    "irrelevant": {"dim": _dims.N_IRRELEVANT, "train_only": False},
    "class_noise": {"dim": _dims.NOISE, "train_only": True},
    "attribute_noise": {"dim": "attribute_noise", "train_only": True},
    "subsample": {"dim": _dims.TRAIN_SIZE, "train_only": True},
}
_TRANSFORM_OPTIONS = {
    "irrelevant": {"distribution": ("gaussian", "uniform", "bits")},
    "class_noise": {},
    "attribute_noise": {},
    "subsample": {"stratify": (True, False)},
}
_SOURCES = ("generator", "uci", "builtin", "path")
_RESERVED_DIMS = {_dims.DATASET, _dims.ENSEMBLE, _dims.ALPHA, _dims.REPEAT, _dims.FOLD}


def _jsonable(value: Any, where: str) -> Any:
    """Check that ``value`` survives JSON (configurations are hashed as canonical JSON)."""
    try:
        return json.loads(json.dumps(value, allow_nan=True))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where} must hold only numbers, strings, booleans, lists and "
                        f"tables: {exc}") from None


def _check_name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{where} must be a non-empty string; got {value!r}")
    return value


def _check_alphas(values: Any, where: str) -> tuple[float, ...]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"{where} must be a list of numbers in [0, 1]; got {values!r}")
    out = []
    for a in values:
        if isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0.0 <= float(a) <= 1.0:
            raise ValueError(f"{where} must hold numbers in [0, 1]; got {a!r}")
        out.append(float(a))
    if len(set(out)) != len(out) or not out:
        raise ValueError(f"{where} must be a non-empty list of distinct values; got {out}")
    return tuple(out)


def resolve_estimator(name: str) -> type:
    """The estimator class named by ``name``.

    Parameters
    ----------
    name : str
        A treelab estimator (``"VRTrees"``, ``"RandomForest"``, ...) or an import path
        ``"package.module:Class"`` / ``"package.module.Class"`` of any scikit-learn style
        classifier.

    Returns
    -------
    type
    """
    _check_name(name, "estimator")
    if ":" not in name and "." not in name:
        import treelab

        if name not in getattr(treelab, "__all__", ()) or not inspect.isclass(
                getattr(treelab, name, None)):
            raise ValueError(f"estimator {name!r} is not a treelab estimator; give an import "
                             "path 'package.module:Class' for others")
        return getattr(treelab, name)
    module, _, attr = name.rpartition(":") if ":" in name else name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"estimator {name!r} cannot be imported: {exc}") from None
    if not inspect.isclass(cls) or not hasattr(cls, "fit"):
        raise ValueError(f"estimator {name!r} is not an estimator class")
    return cls


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of an experiment.

    Exactly one source is given: ``generator`` (a name of
    :data:`treelab.datasets.GENERATORS`), ``uci`` (a name in the UCI bundle), ``builtin``
    (a scikit-learn bundled set) or ``path`` (a CSV/TSV file).

    Parameters
    ----------
    name : str
        The coordinate on the ``dataset`` dim (default: the source's name).
    generator, uci, builtin, path : str, optional
        The source.
    params : dict, default {}
        Generator keyword arguments, or ``load_table`` keyword arguments for ``path``
        (``target``, ``nominal``, ``sep``).
    n_samples : int, optional
        Rows drawn from a generator for index protocols (k-fold, holdout, ...). Draw protocols
        take their sizes from the protocol instead.
    test : dict, optional
        A fixed test set for draw protocols, ``{"generator": ..., "params": {...}}`` (e.g. the
        concepts lattice).
    min_class_size : int, optional
        Drop the rows of classes with fewer rows than this before splitting.
    root : str, optional
        UCI bundle folder (else ``TREELAB_DATA`` or ``../shared/data/uci``).
    """

    name: str
    generator: str | None = None
    uci: str | None = None
    builtin: str | None = None
    path: str | None = None
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
        allowed = {"name", *_SOURCES, "params", "n_samples", "test", "min_class_size", "root"}
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
        _check_name(value, f"{where}.{source}")
        name = _check_name(spec.get("name", Path(value).name.split(".")[0]
                                    if source == "path" else value), f"{where}.name")
        where = f"{where}[{name!r}]"
        params = dict(_jsonable(dict(spec.get("params", {})), f"{where}.params"))
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
        elif source == "builtin" and value not in _BUILTIN:
            raise ValueError(f"{where}.builtin must be one of {_BUILTIN}; got {value!r}")
        elif source == "path":
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
            test = _jsonable({"generator": test["generator"],
                              "params": dict(test.get("params", {}))}, f"{where}.test")
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
    kind : {"irrelevant", "class_noise", "attribute_noise", "subsample"}
        ``irrelevant``: k added irrelevant attributes (whole data set; option
        ``distribution`` = "gaussian" | "uniform" | "bits"); ``class_noise`` and
        ``attribute_noise``: rate r on the training rows only; ``subsample``: keep a fraction of
        each training split (option ``stratify``).
    values : sequence
        Swept values (k, r or fraction).
    dim : str, optional
        Dim name; defaults ``n_irrelevant``, ``noise``, ``attribute_noise``, ``train_size``.
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
            elif kind == "subsample":
                if not 0 < float(v) <= 1:
                    raise ValueError(f"{where}.values must be fractions in (0, 1]; got {v!r}")
                checked.append(float(v))
            else:
                if not 0 <= float(v) <= 1:
                    raise ValueError(f"{where}.values must be rates in [0, 1]; got {v!r}")
                checked.append(float(v))
        if len(set(checked)) != len(checked):
            raise ValueError(f"{where}.values must be distinct; got {checked}")
        dim = _check_name(spec.get("dim", TRANSFORMS[kind]["dim"]), f"{where}.dim")
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
    def from_dict(cls, spec: Mapping[str, Any], where: str = "ensembles") -> EnsembleSpec:
        """Build and validate from a mapping (a TOML table)."""
        if not isinstance(spec, Mapping):
            raise TypeError(f"{where} entries must be tables; got {spec!r}")
        allowed = {"name", "estimator", "params", "alphas", "single"}
        unknown = set(spec) - allowed
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}; allowed {sorted(allowed)}")
        estimator = _check_name(spec.get("estimator"), f"{where}.estimator")
        name = _check_name(spec.get("name", estimator), f"{where}.name")
        where = f"{where}[{name!r}]"
        params = dict(_jsonable(dict(spec.get("params", {})), f"{where}.params"))
        est_cls = resolve_estimator(estimator)
        try:
            known = set(est_cls().get_params(deep=False))
        except Exception as exc:  # an estimator whose defaults cannot be built
            raise ValueError(f"{where}.estimator cannot be constructed: {exc}") from None
        unknown = set(params) - known
        if unknown:
            raise ValueError(f"{where}.params: {estimator} has no parameters {sorted(unknown)}")
        bad = {"random_state", "n_jobs"} & set(params)
        if bad:
            raise ValueError(f"{where}.params must not set {sorted(bad)}: the runner sets them")
        alphas = spec.get("alphas")
        if alphas is not None:
            if "alpha" not in known:
                raise ValueError(f"{where}.alphas: {estimator} has no alpha parameter")
            alphas = _check_alphas(alphas, f"{where}.alphas")
        single = spec.get("single", "auto")
        if single not in ("auto", False):
            if not isinstance(single, Mapping) or "estimator" not in single:
                raise ValueError(f"{where}.single must be 'auto', false or a table with an "
                                 f"estimator; got {single!r}")
            resolve_estimator(single["estimator"])
            single = _jsonable({"estimator": single["estimator"],
                                "params": dict(single.get("params", {}))}, f"{where}.single")
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


@dataclass(frozen=True)
class ExperimentConfig:
    """A whole experiment: what to run, where to write it, and on which backend.

    Parameters
    ----------
    datasets : sequence of DatasetSpec or dict
        The data sets (``dataset`` dim).
    ensembles : sequence of EnsembleSpec or dict
        The ensembles (``ensemble`` dim).
    protocol : str, dict or Protocol, default {"name": "stratified_kfold", "n_splits": 10}
        Evaluation protocol (see :mod:`treelab.protocols`); its seed defaults to ``seed``.
    transforms : sequence of TransformSpec or dict, default ()
        Swept transforms, one dim each, applied in this order.
    alphas : sequence of float, optional
        Alphas swept for every estimator with an ``alpha`` parameter (unless its entry gives
        its own); default: the estimator's own alpha.
    measures : sequence of str or dict, default {"diagnose": {}}
        Functions of :mod:`treelab.analysis` evaluated on every cell, with keyword options.
    seed : int, default 0
        Root of every seed: folds, data draws, noise and estimators.
    out : str, optional
        Output folder (cells, result.nc, summary.csv). Needed by :func:`run` unless passed there.
    backend : {"serial", "local", "dask"}, default "serial"
        Where cells run (see :mod:`treelab.experiment.backends`).
    n_workers : int, optional
        Worker processes (``local``; ``dask`` when it starts a LocalCluster); default: cores.
    scheduler : str, optional
        Address of a running dask scheduler.
    n_jobs : int, optional
        Threads inside each fit with the serial backend (default: every core); parallel
        backends use 1 thread per fit so that workers x threads never exceeds the cores.
    name : str, default "experiment"
        A label (progress bar, attrs).
    on_error : {"raise", "continue"}, default "raise"
        On a failing cell: stop (finished cells stay on disk) or record it and go on (its
        values are NaN).

    Notes
    -----
    Only ``datasets``, ``ensembles``, ``protocol``, ``transforms``, ``alphas``, ``measures`` and
    ``seed`` identify cells; changing ``out``, ``backend``, ``n_workers``, ``n_jobs`` or
    ``name`` never invalidates finished cells.
    """

    datasets: tuple[DatasetSpec, ...]
    ensembles: tuple[EnsembleSpec, ...]
    protocol: Any = field(default_factory=lambda: {"name": "stratified_kfold", "n_splits": 10})
    transforms: tuple[TransformSpec, ...] = ()
    alphas: tuple[float, ...] | None = None
    measures: Any = field(default_factory=lambda: {"diagnose": {}})
    seed: int = 0
    out: str | None = None
    backend: str = "serial"
    n_workers: int | None = None
    scheduler: str | None = None
    n_jobs: int | None = None
    name: str = "experiment"
    on_error: str = "raise"

    def __post_init__(self) -> None:
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise TypeError(f"seed must be a non-negative integer; got {seed!r}")
        object.__setattr__(self, "seed", int(seed))
        datasets = self.datasets
        if isinstance(datasets, Mapping | str) or not isinstance(datasets, Sequence) \
                or not datasets:
            raise ValueError("datasets must be a non-empty list")
        datasets = tuple(d if isinstance(d, DatasetSpec) else DatasetSpec.from_dict(d)
                         for d in datasets)
        _unique([d.name for d in datasets], "datasets")
        _check_uci(datasets)
        ensembles = self.ensembles
        if isinstance(ensembles, Mapping | str) or not isinstance(ensembles, Sequence) \
                or not ensembles:
            raise ValueError("ensembles must be a non-empty list")
        ensembles = tuple(e if isinstance(e, EnsembleSpec) else EnsembleSpec.from_dict(e)
                          for e in ensembles)
        _unique([e.name for e in ensembles], "ensembles")
        transforms = tuple(t if isinstance(t, TransformSpec) else TransformSpec.from_dict(t)
                           for t in (self.transforms or ()))
        _unique([t.dim for t in transforms], "transforms (dims)")
        alphas = None if self.alphas is None else _check_alphas(self.alphas, "alphas")
        protocol = self.protocol
        if isinstance(protocol, Protocol):
            protocol = protocol.to_dict()
        proto = make_protocol(dict(protocol) if isinstance(protocol, Mapping) else protocol,
                              random_state=self.seed)
        if proto.uses_generator:
            bad = [d.name for d in datasets
                   if d.source != "generator" and not proto.name == "bias_variance"]
            bad += [d.name for d in datasets
                    if d.source == "generator" and d.generator not in SIZED_GENERATORS]
            if bad:
                raise ValueError(f"protocol {proto.name!r} draws rows from a generator; data "
                                 f"sets {bad} cannot be drawn from")
        measures = _check_measures(self.measures)
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}; got {self.backend!r}")
        for key in ("n_workers", "n_jobs"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or
                                      not isinstance(value, numbers.Integral) or value == 0
                                      or (key == "n_workers" and value < 1)):
                raise ValueError(f"{key} must be a positive integer (n_jobs: or -1); "
                                 f"got {value!r}")
        if self.on_error not in ("raise", "continue"):
            raise ValueError(f"on_error must be 'raise' or 'continue'; got {self.on_error!r}")
        if self.out is not None and not isinstance(self.out, str | os.PathLike):
            raise TypeError(f"out must be a folder path; got {self.out!r}")
        if self.scheduler is not None and not isinstance(self.scheduler, str):
            raise TypeError(f"scheduler must be an address string; got {self.scheduler!r}")
        _check_name(self.name, "name")
        object.__setattr__(self, "datasets", datasets)
        object.__setattr__(self, "ensembles", ensembles)
        object.__setattr__(self, "transforms", transforms)
        object.__setattr__(self, "alphas", alphas)
        object.__setattr__(self, "protocol", proto.to_dict())
        object.__setattr__(self, "measures", measures)
        if self.out is not None:
            object.__setattr__(self, "out", os.fspath(self.out))

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> ExperimentConfig:
        """Build from a mapping with the keys of the constructor (a parsed TOML file)."""
        if not isinstance(spec, Mapping):
            raise TypeError(f"a configuration must be a mapping; got {type(spec).__name__}")
        fields = set(inspect.signature(cls).parameters)
        unknown = set(spec) - fields
        if unknown:
            raise ValueError(f"unknown configuration keys {sorted(unknown)}; allowed "
                             f"{sorted(fields)}")
        missing = {"datasets", "ensembles"} - set(spec)
        if missing:
            raise ValueError(f"the configuration needs {sorted(missing)}")
        return cls(**dict(spec))

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> ExperimentConfig:
        """Read a TOML file (see ``examples/*.toml``); a relative ``out`` or dataset ``path``
        is taken relative to the file's folder."""
        path = Path(path)
        with path.open("rb") as fh:
            spec = tomllib.load(fh)
        base = path.resolve().parent
        if isinstance(spec.get("out"), str) and not Path(spec["out"]).is_absolute():
            spec["out"] = str((base / spec["out"]).resolve())
        for d in spec.get("datasets", []):
            if isinstance(d, dict) and isinstance(d.get("path"), str) \
                    and not Path(d["path"]).is_absolute():
                d["path"] = str((base / d["path"]).resolve())
        return cls.from_dict(spec)

    def replace(self, **changes: Any) -> ExperimentConfig:
        """A copy with some fields changed (validated again)."""
        values = {name: getattr(self, name) for name in inspect.signature(type(self)).parameters}
        values.update(changes)
        return type(self)(**values)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (what :meth:`from_dict` reads back)."""
        out = {
            "name": self.name,
            "datasets": [d.to_dict() for d in self.datasets],
            "ensembles": [e.to_dict() for e in self.ensembles],
            "protocol": dict(self.protocol),
            "transforms": [t.to_dict() for t in self.transforms],
            "measures": {k: dict(v) for k, v in self.measures.items()},
            "seed": self.seed,
            "backend": self.backend,
            "on_error": self.on_error,
        }
        if self.alphas is not None:
            out["alphas"] = list(self.alphas)
        for key in ("out", "n_workers", "scheduler", "n_jobs"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    def identity(self) -> dict[str, Any]:
        """The fields that identify cells (everything but where and how it runs)."""
        d = self.to_dict()
        for key in ("name", "out", "backend", "n_workers", "scheduler", "n_jobs", "on_error"):
            d.pop(key, None)
        return d

    def alphas_of(self, ensemble: EnsembleSpec) -> tuple[float, ...]:
        """The alphas swept for ``ensemble`` (``(nan,)`` for estimators without alpha)."""
        if not ensemble.has_alpha():
            return (float("nan"),)
        if ensemble.alphas is not None:
            return ensemble.alphas
        if self.alphas is not None:
            return self.alphas
        if "alpha" in ensemble.params:
            return (float(ensemble.params["alpha"]),)
        default = resolve_estimator(ensemble.estimator)().get_params(deep=False)["alpha"]
        return (float(default),)


def _check_uci(datasets: tuple[DatasetSpec, ...]) -> None:
    """UCI data sets must exist in their bundle (checked before anything runs)."""
    from treelab.datasets.loaders import _read_index, find_uci_root

    listed: dict[str | None, set[str]] = {}
    for d in datasets:
        if d.uci is None:
            continue
        if d.root not in listed:
            entries = _read_index(find_uci_root(d.root))
            listed[d.root] = {e["name"] for e in entries} | {
                a for e in entries for a in (e.get("aliases") or [])}
        if d.uci not in listed[d.root]:
            raise ValueError(f"datasets[{d.name!r}].uci: {d.uci!r} is not in the UCI bundle; "
                             f"available: {', '.join(sorted(listed[d.root]))}")


def _unique(names: list[str], where: str) -> None:
    seen = set()
    for n in names:
        if n in seen:
            raise ValueError(f"{where}: the name {n!r} is used twice")
        seen.add(n)


#: First-parameter names of analysis functions the runner knows how to feed per cell.
_MEASURE_INPUTS = {"ensemble", "member_labels", "proba"}


def _check_measures(measures: Any) -> dict[str, dict[str, Any]]:
    import treelab.analysis as analysis

    if isinstance(measures, str):
        measures = [measures]
    if isinstance(measures, Mapping):
        items = list(measures.items())
    elif isinstance(measures, Sequence) and measures:
        items = [(m, {}) for m in measures]
    else:
        raise ValueError(f"measures must be a non-empty list of analysis function names or a "
                         f"table of name -> options; got {measures!r}")
    out: dict[str, dict[str, Any]] = {}
    for name, options in items:
        if not isinstance(name, str) or name not in getattr(analysis, "__all__", ()):
            raise ValueError(f"measures: {name!r} is not a function of treelab.analysis")
        fn = getattr(analysis, name)
        params = list(inspect.signature(fn).parameters.values())
        first = params[0].name if params else ""
        if name != "diagnose" and first not in _MEASURE_INPUTS:
            raise ValueError(f"measures: {name!r} needs inputs that a single cell does not "
                             f"have (first parameter {first!r}); call it on the assembled "
                             "result instead")
        if not isinstance(options, Mapping):
            raise TypeError(f"measures.{name} options must be a table; got {options!r}")
        options = dict(_jsonable(dict(options), f"measures.{name}"))
        accepted = {p.name for p in params[1:]}
        unknown = set(options) - accepted
        if unknown:
            raise ValueError(f"measures.{name}: unknown options {sorted(unknown)}")
        out[name] = options
    return out


def load_config(source: str | os.PathLike[str] | Mapping[str, Any] | ExperimentConfig
                ) -> ExperimentConfig:
    """An :class:`ExperimentConfig` from a TOML file, a mapping, or a config (returned as is).

    Parameters
    ----------
    source : path, mapping or ExperimentConfig
        What to read.

    Returns
    -------
    ExperimentConfig
    """
    if isinstance(source, ExperimentConfig):
        return source
    if isinstance(source, Mapping):
        return ExperimentConfig.from_dict(source)
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"source must be an existing TOML file; {os.fspath(source)!r} "
                             "is not")
        return ExperimentConfig.from_toml(path)
    raise TypeError(f"source must be a TOML path, a mapping or an ExperimentConfig; got "
                    f"{type(source).__name__}")
