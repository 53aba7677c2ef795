"""The first minute on a fresh install: lazy compilation, the per-user cache, the compile
notice, ``treelab warmup`` and progress estimates that leave compilation out."""

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

import treelab
from treelab import _warmup
from treelab._cache import kernel_sources_tag
from treelab.cli import main
from treelab.engine import _notice
from treelab.experiment import ExperimentConfig, run

REPO = Path(__file__).resolve().parents[1]


def _python(code: str, env_changes: dict, drop=()) -> str:
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_changes)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


IMPORT_ONLY = """
import os, pkgutil, importlib
import treelab, treelab.analysis
from treelab.engine import kernels
from numba.core.registry import CPUDispatcher
n = 0
for m in pkgutil.iter_modules(kernels.__path__):
    mod = importlib.import_module("treelab.engine.kernels." + m.name)
    for v in vars(mod).values():
        if isinstance(v, CPUDispatcher):
            n += 1
            assert not v.signatures, v
files = [f for _, _, fs in os.walk(os.environ["NUMBA_CACHE_DIR"]) for f in fs]
print(n, len(files))
"""


def test_importing_treelab_compiles_nothing(tmp_path):
    n_kernels, n_files = map(int, _python(IMPORT_ONLY, {"NUMBA_CACHE_DIR": str(tmp_path)})
                             .split())
    assert n_kernels > 20  # the check looked at the kernels
    assert n_files == 0


CACHE_DIR = ("import numba, treelab; from treelab.engine.kernels import _rng; "
             "print(_rng.new_state._cache.cache_path); print(repr(numba.config.CACHE_DIR))")


def test_cache_goes_to_a_per_user_folder(tmp_path):
    # platformdirs follows XDG_CACHE_HOME on Linux; elsewhere its own rule, same function
    import platformdirs

    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    got, numba_dir = _python(CACHE_DIR, env, drop=("NUMBA_CACHE_DIR",)).splitlines()
    tag = kernel_sources_tag()
    if sys.platform.startswith("linux"):
        folder = str(tmp_path / "xdg" / "treelab" / "numba" / tag)
    else:
        folder = os.path.join(platformdirs.user_cache_dir("treelab", appauthor=False),
                              "numba", tag)
    assert os.path.dirname(got) == folder
    assert numba_dir == repr("")  # numba's own setting, for other code, is left alone
    # numba imported before treelab: the kernels go to the same folder
    got, _ = _python("import numba; " + CACHE_DIR, env, drop=("NUMBA_CACHE_DIR",)).splitlines()
    assert os.path.dirname(got) == folder


def test_cache_folder_changes_with_any_kernel_source(tmp_path):
    # numba checks a cached kernel against its own file only: an edit of a helper module must
    # lead to another folder, or callers would run the old helper from the cache
    import shutil

    from treelab._cache import KERNELS

    copy = tmp_path / "kernels"
    shutil.copytree(KERNELS, copy)
    assert kernel_sources_tag(copy) == kernel_sources_tag()
    helper = copy / "_split.py"
    helper.write_text(helper.read_text() + "\n# an edit\n")
    assert kernel_sources_tag(copy) != kernel_sources_tag()
    (copy / "_new_helper.py").write_text("x = 1\n")
    helper.write_text((KERNELS / "_split.py").read_text())
    assert kernel_sources_tag(copy) != kernel_sources_tag()


def test_numba_cache_dir_set_by_the_user_wins(tmp_path):
    # the kernels go to a tagged folder inside it (an edited helper never comes back stale)
    chosen = str(tmp_path / "mine")
    got, numba_dir = _python(CACHE_DIR, {"NUMBA_CACHE_DIR": chosen}).splitlines()
    assert os.path.dirname(got) == os.path.join(chosen, "treelab", kernel_sources_tag())
    assert numba_dir == repr(chosen)


@pytest.fixture(autouse=True)
def _own_compile_times(tmp_path, monkeypatch):
    """Compile times of this module's toy kernels go to a file of their own, never into the
    record that the user's notices read."""
    monkeypatch.setattr(_notice, "_times_path", lambda: str(tmp_path / _notice.TIMES_FILE))
    # each test's notices report their own groups' progress, not an earlier test's
    monkeypatch.setattr(_notice, "_progress", None)


def _kernel_like(fn, module):
    fn.__module__ = module
    return numba.njit(fn)


def test_compile_notice_once_per_group(caplog, monkeypatch):
    monkeypatch.setattr(_notice, "_announced", set())

    def add(x):
        return x + 1

    def other(x):
        return x * 2

    def outside(x):
        return x - 1

    kernel = _kernel_like(add, "treelab.engine.kernels._prune")
    second = _kernel_like(other, "treelab.engine.kernels._prune")
    foreign = _kernel_like(outside, "somebody.else")
    with caplog.at_level(logging.INFO, logger="treelab"):
        foreign(1)
        assert not caplog.records
        assert kernel(1) == 2
        kernel(1.5)  # a second compilation of the same group: no second line
        second(3)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines
    assert lines[0].startswith("treelab: compiling the pruning kernels, once per install (")
    assert caplog.records[0].levelno == logging.WARNING
    # silenced like any logger
    monkeypatch.setattr(_notice, "_announced", set())
    caplog.clear()
    logging.getLogger("treelab").setLevel(logging.ERROR)
    try:
        _kernel_like(lambda x: x + 3, "treelab.engine.kernels._predict")(1)
    finally:
        logging.getLogger("treelab").setLevel(logging.NOTSET)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_collector_threshold_is_raised_while_a_kernel_compiles_and_restored(monkeypatch):
    import gc

    from numba.core import event

    monkeypatch.setattr(_notice, "_announced", set())
    seen = []

    class Probe(event.Listener):  # registered after treelab's listener, so it runs after it
        def on_start(self, ev):
            seen.append(gc.get_threshold())

        def on_end(self, ev):
            pass

    def triple(x):
        return x * 3

    old = gc.get_threshold()
    gc.set_threshold(700, 11, 12)
    probe = Probe()
    event.register("numba:compile", probe)
    try:
        assert _kernel_like(triple, "treelab.engine.kernels._prune")(2) == 6
        assert gc.get_threshold() == (700, 11, 12)
        foreign = _kernel_like(lambda x: x + 1, "somebody.else")
        assert foreign(1) == 2  # code outside treelab compiles with the user's thresholds
    finally:
        event.unregister("numba:compile", probe)
        gc.set_threshold(*old)
    assert seen == [(_notice.COMPILE_GC_THRESHOLD, 11, 12), (700, 11, 12)]


def test_only_the_stochastic_family_gets_the_stochastic_growth_routine():
    """grow_tree's version for ``stochastic=None`` (every family but StochasticID3) has no
    stochastic ID3 selection; asked for it anyway, it refuses instead of growing another tree."""
    import inspect

    import numpy as np

    from treelab.engine.forest import prepare_features
    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._criteria import xlogx_table
    from treelab.engine.kernels._stochastic_modes import beta_to_bits

    X, y = _warmup._data()
    treelab.VRTrees(n_estimators=2, random_state=0).fit(X, y)
    treelab.StochasticID3(n_estimators=2, random_state=0).fit(X, y)
    at = list(inspect.signature(G.grow_tree.py_func).parameters).index("stochastic")
    last = {str(sig[at]) for sig in G.grow_tree.signatures}
    assert last == {"none", "bool"}
    Xn = np.random.default_rng(0).normal(size=(40, 3))
    yn = (Xn[:, 0] > 0).astype(np.int32)
    feats = prepare_features(Xn, np.zeros(3, bool), np.zeros(3, np.int64))
    ip = np.zeros(G.N_PARAMS, dtype=np.int64)
    ip[[G.P_MIN_SPLIT, G.P_MIN_LEAF, G.P_MAX_FEATURES]] = [2, 1, 3]
    ip[G.P_MAX_DEPTH] = 2**31 - 1
    ip[G.P_STOCHASTIC] = 1
    ip[G.P_BETA_BITS] = beta_to_bits(1.0)
    args = (feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq,
            feats.uniq_off, feats.nominal, yn, 2, ip, 1.0, xlogx_table(40), np.uint64(1),
            G.ROWS_ALL, np.zeros(40, np.int32), 0, 0, *G.NO_REFERENCE)
    assert G.grow_tree(*args, True, True)[0].shape[0] > 1
    with pytest.raises(ValueError, match="stochastic selection needs"):
        G.grow_tree(*args, None, True)


REGRESSION_ONLY = """
import treelab
from sklearn.datasets import make_friedman1
from treelab.engine.kernels import _regression_node, _select, _stochastic
X, y = make_friedman1(200, random_state=0)
treelab.VRTreesRegressor(n_estimators=2, alpha=0.5, random_state=0).fit(X, y)
print(len(_select.deterministic_select.signatures),
      len(_stochastic.stochastic_select.signatures),
      len(_regression_node.regression_select.signatures))
"""


def test_a_regression_fit_compiles_none_of_the_classifiers_selections(tmp_path):
    """grow_tree's regression version (``table`` None) drops the classifiers' deterministic
    and stochastic selections before type inference: a first regression fit compiles only the
    regression selection."""
    got = _python(REGRESSION_ONLY, {"NUMBA_CACHE_DIR": str(tmp_path)}).splitlines()[-1]
    assert got.split() == ["0", "0", "1"]


def test_warmup_covers_every_estimator_and_diagnose():
    labels = [label for label, _ in _warmup.warmup_steps()]
    estimators = [n for n in treelab.__all__ if isinstance(getattr(treelab, n), type)]
    assert labels == estimators + ["diagnose"]
    for family in ("VRTrees", "RandomForest", "StochasticID3", "MMDT", "RotationForest"):
        assert family in labels
    only = [label for label, _ in _warmup.warmup_steps(["MMDT", "not.a:Class", "MMDT"],
                                                        analysis=False)]
    assert only == ["MMDT"]


def test_warmup_fits_and_reports_each_step():
    times = _warmup.warmup(["VRTrees"], progress=False)
    assert list(times) == ["VRTrees", "diagnose"]
    assert all(t >= 0 for t in times.values())


def test_cli_warmup_calls_warmup(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(_warmup, "warmup",
                        lambda names, progress=True: calls.append((names, progress)) or {})
    assert main(["warmup"]) == 0
    assert main(["warmup", "MMDT", "VRTrees", "--no-progress"]) == 0
    assert calls == [(None, True), (["MMDT", "VRTrees"], False)]
    assert "cache:" in capsys.readouterr().out
    assert main(["warmup", "Nope"]) == 2
    assert "Nope" in capsys.readouterr().err
    assert len(calls) == 2


def test_python_m_treelab_warmup_is_wired(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "treelab", "warmup", "--help"], env=env,
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "ESTIMATOR" in done.stdout and "compile the tree engine" in done.stdout


def test_runner_warms_up_before_the_first_cell(tmp_path, monkeypatch):
    # the module (the package exports its function under the same name)
    run_module = sys.modules["treelab.experiment.run"]

    events = []
    monkeypatch.setattr(_warmup, "warmup",
                        lambda names, progress=True: events.append(("warmup", names)) or {})
    real_progress = run_module._progress

    def progress(*args, **kwargs):
        events.append(("bar", None))
        return real_progress(*args, **kwargs)

    monkeypatch.setattr(run_module, "_progress", progress)
    config = ExperimentConfig(
        name="tiny", datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 3}},
                   {"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 3}}],
        alphas=[0.5], protocol={"name": "stratified_kfold", "n_splits": 2}, seed=1,
        backend="serial", out=str(tmp_path / "o"))
    run(config, progress=False)
    assert events == [("warmup", ["RandomForest", "VRTrees"]), ("bar", None)]
    # resumed with every cell done: nothing to warm up
    events.clear()
    run(config, progress=False)
    assert events == [("bar", None)]


def test_runner_warm_up_failure_leaves_the_cells_to_compile(tmp_path, monkeypatch, caplog):
    def broken(names, progress=True):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(_warmup, "warmup", broken)
    config = ExperimentConfig(
        name="tiny", datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 3}}],
        alphas=[0.5], protocol={"name": "stratified_kfold", "n_splits": 2}, seed=1,
        backend="serial", out=str(tmp_path / "o"))
    with caplog.at_level(logging.WARNING):
        ds = run(config, progress=False)
    assert "warm-up failed" in caplog.text
    assert ds["ensemble_error"].notnull().all()


@pytest.mark.parametrize("name", ["VRTrees"])
def test_warmup_data_is_accepted(name):
    X, y = _warmup._data()
    assert X["x2"].dtype.name == "category" and X["x1"].isna().any()
    model = getattr(treelab, name)(n_estimators=2, random_state=0).fit(X, y)
    assert model.predict_proba(X).shape == (60, 3)


def test_every_kernel_group_has_its_own_name():
    # the analysis kernels fell back to a group called "tree engine", which printed
    # "compiling the tree engine (tree engine)"
    from treelab.engine.kernels import _agreement, _votes

    for module in (_votes, _agreement):
        kernels = [v for v in vars(module).values()
                   if getattr(getattr(v, "py_func", None), "__module__", "") == module.__name__]
        assert kernels and {_notice._group(k) for k in kernels} == {"analysis"}
    for group in set(_notice.GROUPS.values()) | {_notice.OTHER}:
        assert group in _notice.RANGES


def test_compile_estimate_is_the_measured_time_once_there_is_one(tmp_path):
    low, high = _notice.RANGES["prediction"]
    assert _notice.estimate("prediction") == f"{low}-{high} s on two cores"
    _notice._record("prediction", 41.26)
    _notice._record("prediction", 3.0)  # a later compilation of a new signature or two
    _notice._record("analysis", 0.5)  # far below a whole group's compilation: not recorded
    assert _notice.estimate("analysis").endswith("s on two cores")
    assert _notice.estimate("prediction") == "about 41 s, as measured on this machine"
    assert _notice.measured_times() == {"prediction": 41.3}
    (tmp_path / _notice.TIMES_FILE).write_text("not json")
    assert _notice.estimate("pruning").endswith("s on two cores")


def test_a_long_compilation_reports_progress_and_its_end(caplog, monkeypatch):
    # the compilation lasts until a progress line has come, however busy the machine (a real
    # compilation of a small kernel can end before the progress thread is scheduled once)
    monkeypatch.setattr(_notice, "_announced", set())
    monkeypatch.setattr(_notice, "_progress", None)
    monkeypatch.setattr(_notice, "_record", lambda group, seconds: None)
    monkeypatch.setattr(_notice, "PROGRESS_EVERY", 0.002)
    listener = _notice._Listener()
    oblique = _Compiling("treelab.engine.kernels._oblique")

    def still():
        return [r for r in caplog.records
                if r.getMessage().startswith("treelab: still compiling oblique trees: ")]

    with caplog.at_level(logging.INFO, logger="treelab"):
        listener.on_start(oblique)
        deadline = time.monotonic() + 60
        while not still() and time.monotonic() < deadline:
            time.sleep(0.01)
        listener.on_end(oblique)
        _notice._progress.join(60)  # the last line comes once the group has gone quiet
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("treelab: compiling the oblique trees kernels")
    assert still(), lines
    assert lines[-1].startswith("treelab: oblique trees compiled in ")


class _Compiling:
    """A numba:compile event of a kernel of ``module`` (the listener reads its dispatcher)."""

    def __init__(self, module):
        def kernel():
            pass
        kernel.__module__ = module
        self.data = {"dispatcher": type("Dispatcher", (), {"py_func": kernel})()}


def test_progress_lines_follow_the_group_over_its_many_compilations(caplog, monkeypatch):
    # a first fit compiles one kernel after another, each shorter than the interval: the demo
    # sat 70 s with one notice and no progress line, because only the first compilation of
    # the group reported its progress
    monkeypatch.setattr(_notice, "_announced", set())
    monkeypatch.setattr(_notice, "_progress", None)
    monkeypatch.setattr(_notice, "_record", lambda group, seconds: None)
    monkeypatch.setattr(_notice, "PROGRESS_EVERY", 0.1)
    listener = _notice._Listener()
    grow = _Compiling("treelab.engine.kernels._grow")
    with caplog.at_level(logging.INFO, logger="treelab"):
        listener.on_start(grow)  # the notice, then a short compilation
        listener.on_end(grow)
        for _ in range(3):  # three more kernels of the group, 0.25 s each
            listener.on_start(grow)
            time.sleep(0.25)
            listener.on_end(grow)
        _notice._progress.join(5)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("treelab: compiling the tree growth kernels")
    still = [ln for ln in lines if ln.startswith("treelab: still compiling tree growth: ")]
    assert len(still) >= 4, lines  # one a tick: about 7 ticks in 0.75 s of compiling
    assert still[-1].endswith("4 kernels compiled")
    assert lines[-1].startswith("treelab: tree growth compiled in ")
    assert len(lines) == 2 + len(still)


def test_a_notice_during_a_progress_bar_gets_its_own_line(monkeypatch, capsys):
    # logging's last resort writes to stderr where tqdm draws its bar without a newline
    from tqdm import tqdm

    logger = logging.getLogger("treelab")
    monkeypatch.setattr(logger, "propagate", False)  # no handler: the last resort writes
    monkeypatch.setattr(logger, "handlers", [])
    with tqdm(total=3, file=sys.stderr, ascii=True, desc="cells") as bar:
        bar.update(1)
        _notice._say("treelab: compiling the %s kernels", "pruning")
    err = capsys.readouterr().err
    assert "\ntreelab: compiling the pruning kernels\n" in err.replace("\r", "\n")


NOTICE_CHILD = """
import logging, sys
import numba
from treelab.experiment.backends import _worker_init
_worker_init(None, sys.argv[1])
def make(name, module):
    def f(x):
        return x + 1
    f.__name__ = name
    f.__module__ = module
    return numba.njit(f)
make("p", "treelab.engine.kernels._prune")(1)
make("q", "treelab.engine.kernels._predict")(1)
"""


def test_one_compile_notice_per_run_not_per_worker_process(caplog, monkeypatch, tmp_path):
    # a demo printed the prediction notice three times: once per worker process
    run_module = sys.modules["treelab.experiment.run"]
    monkeypatch.setattr(_notice, "_announced", set())
    with run_module._shared_notices() as folder:
        with caplog.at_level(logging.INFO, logger="treelab"):
            _kernel_like(lambda x: x - 2, "treelab.engine.kernels._prune")(5)
        env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
        workers = [subprocess.Popen([sys.executable, "-c", NOTICE_CHILD, folder], env=env,
                                    stderr=subprocess.PIPE, text=True, cwd=REPO)
                   for _ in range(2)]
        errs = [w.communicate(timeout=300)[1] for w in workers]
    assert [w.returncode for w in workers] == [0, 0], errs
    assert sum("compiling the pruning" in r.getMessage() for r in caplog.records) == 1
    assert sum(e.count("compiling the pruning") for e in errs) == 0
    assert sum(e.count("compiling the prediction") for e in errs) == 1
    assert _notice._shared is None  # the run's folder is gone and so is the sharing


def test_progress_bar_gives_no_estimate_before_two_rounds_of_cells():
    run_module = sys.modules["treelab.experiment.run"]
    ticks = iter([10.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0])
    eta = run_module._Eta(n_todo=12, n_workers=2, clock=lambda: next(ticks))
    shown = [eta.update() for _ in range(7)]
    # cells 1-2 (start-up) set the mark at t=12; cells 3-4 make a round at full speed:
    # 2 cells in 2 s, 8 left -> 8 s
    assert shown[:3] == [None, None, None]
    assert shown[3] == "0:00:08"
    assert shown[6] == "0:00:05"  # 5 cells in 5 s, 5 left
    assert "left~" not in run_module._Eta(5, 2).postfix(0, 0)
