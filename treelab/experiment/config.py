"""The experiment configuration: data sets x transforms x ensembles x alphas x protocol.

A configuration is a :class:`ExperimentConfig` built in Python or read from a TOML file
(:func:`load_config`). Everything is validated when the configuration is built, before any cell
runs, and every error names the offending entry. The entries themselves (data sets, transforms,
ensembles) are :mod:`treelab.experiment.schema`; :func:`treelab.experiment.expand.expand` turns a
configuration into cells.
"""

from __future__ import annotations

import inspect
import numbers
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treelab.datasets.generators import GENERATORS
from treelab.experiment._config_checks import (
    check_datasets_protocol,
    check_measures,
    check_task_datasets,
    check_uci,
    check_unique,
)
from treelab.experiment.groups import check_group_measures
from treelab.experiment.schema import (
    DATASET_KEYS,
    ENSEMBLE_KEYS,
    TRANSFORM_KEYS,
    DatasetSpec,
    EnsembleSpec,
    TransformSpec,
    check_alpha_conflict,
    check_alphas,
    check_estimator_task,
    check_name,
    resolve_estimator,
)
from treelab.protocols import Protocol, make_protocol

__all__ = ["BACKENDS", "TASKS", "ExperimentConfig", "check_table_keys", "load_config"]

#: Backends a configuration may name.
BACKENDS = ("serial", "local", "dask")
#: What an experiment's ensembles do.
TASKS = ("classification", "regression")


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
        Functions of :mod:`treelab.analysis` evaluated on every cell, with keyword options;
        ``bias_variance_01`` (option ``method``) and ``bias_variance_diversity`` (``loss``),
        each also with ``target`` = "labels" or "true_proba", are evaluated once per grid
        point over the K training sets of the ``bias_variance`` protocol (see
        :mod:`treelab.experiment.groups`).
    seed : int, default 0
        Root of every seed: folds, data draws, noise and estimators.
    out : str, optional
        Output folder (cells, result.nc, summary.csv). Needed by :func:`run` unless passed there.
        In a TOML file a relative folder is relative to the file's folder (as data set paths
        are); ``treelab run`` prints the absolute folder before any work.
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
    task : {"classification", "regression"}, default "classification"
        What the ensembles do. A regression experiment fits regressors (treelab's
        ``VRTreesRegressor``, ``RandomForestRegressor``, ... or scikit-learn's) on real-valued
        targets (the ``friedman1``/``friedman2``/``friedman3``/``poisson_counts`` generators,
        ``regression = "<name>"`` for :func:`treelab.datasets.load_regression`, or a file);
        its folds are plain random folds (the protocol's splitter sees one stratum), every
        cell stores ``mse``, ``mae`` and ``r2`` and, with the ``diagnose`` measure,
        :func:`treelab.analysis.diagnose_regression`'s variables; over the K training sets
        of the ``bias_variance`` protocol it takes ``bias_variance_diversity`` (``loss`` =
        "squared" or "poisson", ``target`` = "y" or "true_target") and
        ``louppe_variance`` (see :mod:`treelab.experiment.groups`).

    Notes
    -----
    Only ``datasets``, ``ensembles``, ``protocol``, ``transforms``, ``alphas``, ``measures`` and
    ``seed`` identify cells; changing ``out``, ``backend``, ``n_workers``, ``n_jobs`` or
    ``name`` never invalidates finished cells. The order of ``measures`` identifies them too
    where it is not alphabetical (the first measure keeps a dim or variable name that two
    report), the order of data sets and ensembles does not.
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
    task: str = "classification"

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}; got {self.task!r}")
        task = self.task
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise TypeError(f"seed must be a non-negative integer; got {seed!r}")
        if seed >= 2**32:  # NumPy and scikit-learn take 32-bit seeds
            raise ValueError(f"seed must be below 2**32 = {2**32}; got {seed!r}")
        object.__setattr__(self, "seed", int(seed))
        datasets = self.datasets
        if isinstance(datasets, Mapping | str) or not isinstance(datasets, Sequence) \
                or not datasets:
            raise ValueError("datasets must be a non-empty list")
        datasets = tuple(d if isinstance(d, DatasetSpec) else DatasetSpec.from_dict(d)
                         for d in datasets)
        check_unique([d.name for d in datasets], "datasets")
        check_task_datasets(datasets, task)
        check_uci(datasets)
        ensembles = self.ensembles
        if isinstance(ensembles, Mapping | str) or not isinstance(ensembles, Sequence) \
                or not ensembles:
            raise ValueError("ensembles must be a non-empty list")
        ensembles = tuple(e if isinstance(e, EnsembleSpec)
                          else EnsembleSpec.from_dict(e, task=task) for e in ensembles)
        for e in ensembles:  # specs built elsewhere: checked against the task here too
            check_estimator_task(resolve_estimator(e.estimator), task,
                                 f"ensembles[{e.name!r}].estimator")
            if task == "regression" and e.single not in ("auto", False):
                raise ValueError(f"ensembles[{e.name!r}].single: a regression experiment has "
                                 "no single-model baseline; leave single out")
        check_unique([e.name for e in ensembles], "ensembles")
        transforms = tuple(t if isinstance(t, TransformSpec) else TransformSpec.from_dict(t)
                           for t in (self.transforms or ()))
        check_unique([t.dim for t in transforms], "transforms (dims)")
        alphas = None if self.alphas is None else check_alphas(self.alphas, "alphas")
        for e in ensembles if alphas is not None else ():
            if e.alphas is None and e.has_alpha():  # the experiment's alphas are its sweep
                check_alpha_conflict(e.params, alphas, f"ensembles[{e.name!r}].params",
                                     "alphas")
        protocol = self.protocol
        if isinstance(protocol, Protocol):
            protocol = protocol.to_dict()
        proto = make_protocol(dict(protocol) if isinstance(protocol, Mapping) else protocol,
                              random_state=self.seed)
        check_datasets_protocol(datasets, proto)
        measures = check_measures(self.measures, task)
        check_group_measures(measures, proto, datasets, ensembles, task)
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}; got {self.backend!r}")
        for key in ("n_workers", "n_jobs"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or
                                      not isinstance(value, numbers.Integral) or value == 0
                                      or value < (1 if key == "n_workers" else -1)):
                raise ValueError(f"{key} must be a positive integer (n_jobs: or -1); "
                                 f"got {value!r}")
        if self.on_error not in ("raise", "continue"):
            raise ValueError(f"on_error must be 'raise' or 'continue'; got {self.on_error!r}")
        if self.out is not None and not isinstance(self.out, str | os.PathLike):
            raise TypeError(f"out must be a folder path; got {self.out!r}")
        if self.scheduler is not None and not isinstance(self.scheduler, str):
            raise TypeError(f"scheduler must be an address string; got {self.scheduler!r}")
        check_name(self.name, "name")
        object.__setattr__(self, "datasets", datasets)
        object.__setattr__(self, "ensembles", ensembles)
        object.__setattr__(self, "transforms", transforms)
        object.__setattr__(self, "alphas", alphas)
        # replace() starts from the protocol as given: one whose seed was the experiment's
        # takes the new seed with it
        object.__setattr__(self, "_protocol_given",
                           dict(protocol) if isinstance(protocol, Mapping) else protocol)
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
        check_table_keys(spec)
        return cls.from_dict(spec)

    def replace(self, **changes: Any) -> ExperimentConfig:
        """A copy with some fields changed (validated again). A protocol whose
        ``random_state`` was left to default follows a changed ``seed``, as a configuration
        built with that seed has it."""
        values = {name: getattr(self, name) for name in inspect.signature(type(self)).parameters}
        values["protocol"] = self._protocol_given
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
        if self.task != "classification":  # a classification experiment's identity as before
            out["task"] = self.task
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


def _tables(spec: Mapping[str, Any]):
    """(table, header, keys allowed in it, [(outer keys, outer header), ...] innermost first)
    for every table of a parsed TOML configuration whose keys the schema knows."""
    from treelab.protocols import PROTOCOLS, protocol_keys

    top = (frozenset(inspect.signature(ExperimentConfig).parameters), None)
    protocol = spec.get("protocol")
    if isinstance(protocol, Mapping) and protocol.get("name") in PROTOCOLS:
        yield protocol, "[protocol]", protocol_keys(protocol["name"]), [top]
    measures = spec.get("measures")
    if isinstance(measures, Mapping):
        import treelab.analysis as analysis

        yield measures, "[measures]", frozenset(analysis.__all__), [top]
    for key, header, keys in (("datasets", "[[datasets]]", DATASET_KEYS),
                              ("ensembles", "[[ensembles]]", ENSEMBLE_KEYS),
                              ("transforms", "[[transforms]]", TRANSFORM_KEYS)):
        entries = spec.get(key)
        if isinstance(entries, Mapping | str) or not isinstance(entries, Sequence):
            continue
        for entry in entries:
            if not isinstance(entry, Mapping):
                continue
            yield entry, header, keys, [top]
            params = entry.get("params")
            accepted = _entry_params(key, entry)
            if isinstance(params, Mapping) and accepted is not None:
                yield params, f"[{key}.params]", accepted, [(keys, header), top]


def _entry_params(key: str, entry: Mapping[str, Any]) -> frozenset[str] | None:
    """Parameter names an ensemble's estimator or a data set's generator takes (None when
    unknown here; the entry's own validation then reports the problem)."""
    try:
        if key == "ensembles":
            return frozenset(resolve_estimator(entry.get("estimator"))().get_params(deep=False))
        if key == "datasets" and entry.get("generator") in GENERATORS:
            return frozenset(inspect.signature(GENERATORS[entry["generator"]]).parameters)
    except (TypeError, ValueError):
        pass
    return None


def check_table_keys(spec: Mapping[str, Any]) -> None:
    """Refuse a key that TOML put into the wrong table, saying where it belongs.

    In TOML a key written after a table header belongs to that table, so ``alphas = [...]``
    written below ``[protocol]`` is a protocol parameter, not the experiment's alphas. A key
    that a table does not accept but an outer level does (the top level, or the entry that
    holds a ``params`` table) is reported with the header to move it above.

    Parameters
    ----------
    spec : mapping
        A parsed TOML configuration.

    Raises
    ------
    ValueError
        Naming the key, the table it landed in and where it belongs.
    """
    if not isinstance(spec, Mapping):
        return
    for table, header, allowed, outer in _tables(spec):
        for key in table:
            if key in allowed:
                continue
            for keys, outer_header in outer:
                if key not in keys:
                    continue
                if outer_header is None:
                    raise ValueError(
                        f"`{key}` is a top-level key; move it above `{header}` (TOML reads a "
                        "key written below a table header as part of that table, so top-level "
                        "keys go before the first header)")
                raise ValueError(
                    f"`{key}` is a key of the `{outer_header}` entry, not of its parameters; "
                    f"move it above `{header}`")


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
