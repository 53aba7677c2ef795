"""Measures over the K training sets (bias_variance_01, bias_variance_diversity) and the margin
distribution, requested in an experiment: equal to the analysis functions called on member
outputs fitted here by hand with the same seeds, on every backend, after a stopped run resumes,
and refused before any cell runs when the configuration cannot feed them."""

import importlib
import logging
import textwrap

import numpy as np
import pytest
import xarray as xr

import treelab
from treelab.analysis import bias_variance_01, bias_variance_diversity, margin_cdf, margins
from treelab.datasets import add_class_noise, generate, load_builtin
from treelab.experiment import (
    TIMING_VARS,
    ExperimentConfig,
    cell_seed,
    expand,
    load_config,
    run,
    status,
)
from treelab.experiment.groups import (
    groups_of,
    outputs_path,
    read_outputs,
    reduce_group,
    write_outputs,
)
from treelab.protocols import BiasVariance

# the module (the package's ``run`` attribute is the function)
run_module = importlib.import_module("treelab.experiment.run")
REAL_EXECUTE = run_module.execute

SEED = 5
SETS = {"n_sets": 3, "n_train": 60, "n_test": 50}
TOML = textwrap.dedent("""
    name = "bias-variance"
    seed = 5
    backend = "serial"

    [protocol]
    name = "bias_variance"
    n_sets = 3
    n_train = 60
    n_test = 50

    [[datasets]]
    name = "wave"
    generator = "waveform"

    [[datasets]]
    name = "wine"
    builtin = "wine"

    [[ensembles]]
    name = "VR"
    estimator = "VRTrees"
    params = { n_estimators = 4, laplace = true }
    alphas = [0.0, 0.5]

    [[ensembles]]
    name = "RF"
    estimator = "RandomForest"
    params = { n_estimators = 4, laplace = true }

    [measures.diagnose]
    measures = ["margin_cdf"]

    [measures.bias_variance_01]
    method = "kohavi_wolpert"

    [measures.bias_variance_diversity]
    loss = "cross_entropy"
""")


def config_dict(out, **changes):
    spec = dict(
        name="bias-variance",
        seed=SEED,
        protocol={"name": "bias_variance", **SETS},
        datasets=[{"name": "wave", "generator": "waveform"}, {"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "VR", "estimator": "VRTrees", "alphas": [0.0, 0.5],
                    "params": {"n_estimators": 4, "laplace": True}},
                   {"name": "RF", "estimator": "RandomForest",
                    "params": {"n_estimators": 4, "laplace": True}}],
        measures={"diagnose": {"measures": ["margin_cdf"]},
                  "bias_variance_01": {"method": "kohavi_wolpert"},
                  "bias_variance_diversity": {"loss": "cross_entropy"}},
        out=str(out),
    )
    spec.update(changes)
    return spec


def strip(ds):
    return ds.drop_vars(list(TIMING_VARS))


def by_hand(dataset, estimator, params, alpha, ens_name):
    """The K fits of one grid point, made here from the protocol and the documented seeds
    (not through the runner): their test rows and the outputs each fit gives on them."""
    protocol = BiasVariance(SETS["n_sets"], n_train=SETS["n_train"], n_test=SETS["n_test"],
                            random_state=SEED)
    if dataset == "wine":
        splits = list(protocol.split(load_builtin("wine")))
    else:
        splits = list(protocol.split(
            lambda n, rs: generate(dataset_generator(dataset), n_samples=n, random_state=rs)))
    fits = []
    for split in splits:
        seed = cell_seed(SEED, "estimator", dataset, [], ens_name, split.repeat, 0)
        kwargs = dict(params, random_state=seed)
        if alpha is not None:
            kwargs["alpha"] = alpha
        fits.append(getattr(treelab, estimator)(**kwargs).fit(split.train.X, split.train.y))
    test = splits[0].test
    for s in splits:  # one shared test set: the point of the protocol
        np.testing.assert_array_equal(s.test.X, test.X)
    return fits, test


def dataset_generator(name):
    return {"wave": "waveform"}[name]


@pytest.fixture(scope="module")
def direct():
    """bias_variance_01, bias_variance_diversity and margin_cdf called on member outputs
    computed by hand, for every grid point of ``config_dict``."""
    out = {}
    for dataset in ("wave", "wine"):
        for ens, estimator, alphas in (("VR", "VRTrees", (0.0, 0.5)),
                                       ("RF", "RandomForest", (None,))):
            for alpha in alphas:
                fits, test = by_hand(dataset, estimator, {"n_estimators": 4, "laplace": True},
                                     alpha, ens)
                classes = fits[0].classes_
                assert all(np.array_equal(f.classes_, classes) for f in fits)
                codes = np.searchsorted(classes, test.y)
                preds = np.stack([f.predict(test.X) for f in fits])
                member_p = np.stack([f.member_proba(test.X) for f in fits])
                cdfs = [margin_cdf(margins(f.member_predict(test.X), test.y, classes=classes))
                        for f in fits]
                out[dataset, ens, np.nan if alpha is None else alpha] = (
                    bias_variance_01(preds, test.y, method="kohavi_wolpert", classes=classes),
                    bias_variance_diversity(member_p, codes, loss="cross_entropy"),
                    cdfs)
    return out


def check_against_direct(ds, direct):
    assert ds.diversity.dims == ("dataset", "ensemble", "alpha")
    checked = 0
    for (dataset, ens, alpha), (bv01, bvd, cdfs) in direct.items():
        at = ds.sel(dataset=dataset, ensemble=ens, alpha=alpha)
        for name in ("loss", "bias", "variance", "noise"):
            assert at[name].item() == bv01[name].item(), (dataset, ens, alpha, name)
        for name in ("expected_loss", "average_bias", "average_variance", "diversity"):
            assert at[name].item() == bvd[name].item(), (dataset, ens, alpha, name)
        # the second measure's noise sits under its own name
        assert at["bias_variance_diversity_noise"].item() == bvd["noise"].item()
        # margin distributions are per cell (per training set)
        for repeat, cdf in enumerate(cdfs):
            got = at.margin_cdf.sel(repeat=repeat, fold=0)
            np.testing.assert_array_equal(got.margin_threshold, cdf.margin_threshold)
            np.testing.assert_allclose(got.values, cdf.values, rtol=0, atol=1e-15)
        checked += 1
    assert checked == 6
    # the decomposition's identity holds in the stored numbers
    np.testing.assert_allclose(
        ds.expected_loss, ds.bias_variance_diversity_noise + ds.average_bias
        + ds.average_variance - ds.diversity, atol=1e-12)


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serial")
    path = folder / "bv.toml"
    path.write_text(TOML)
    config = load_config(path)
    assert config.identity() == ExperimentConfig(**config_dict(folder)).identity()
    return run(config.replace(out=str(folder / "out")), progress=False), folder / "out"


def test_serial_run_from_toml_equals_direct_calls(serial, direct):
    ds, out = serial
    check_against_direct(ds, direct)
    assert not (out / "outputs").exists()  # every group reduced: its outputs deleted
    xr.testing.assert_identical(strip(xr.load_dataset(out / "result.nc")), strip(ds))


def test_local_processes_give_the_same_numbers(serial, direct, tmp_path):
    ds = run(config_dict(tmp_path / "local"), backend="local", n_workers=2, progress=False)
    check_against_direct(ds, direct)
    xr.testing.assert_identical(strip(ds), strip(serial[0]))


def test_dask_gives_the_same_numbers(serial, tmp_path):
    pytest.importorskip("distributed")
    ds = run(config_dict(tmp_path / "dask"), backend="dask", n_workers=2, progress=False)
    xr.testing.assert_identical(strip(ds), strip(serial[0]))


def test_true_proba_target_and_zero_one_loss(tmp_path):
    config = config_dict(
        tmp_path / "tp", datasets=[{"name": "wave", "generator": "waveform"}],
        ensembles=[{"name": "VR", "estimator": "VRTrees", "alphas": [0.0, 1.0],
                    "params": {"n_estimators": 5}}],
        measures={"bias_variance_01": {"target": "true_proba"},
                  "bias_variance_diversity": {"loss": "zero_one", "target": "true_proba"}})
    ds = run(config, progress=False)
    assert "phi_e" not in ds  # only what was asked for
    for alpha in (0.0, 1.0):
        fits, test = by_hand("wave", "VRTrees", {"n_estimators": 5}, alpha, "VR")
        classes = fits[0].classes_
        preds = np.stack([f.predict(test.X) for f in fits])
        labels = np.stack([np.searchsorted(classes, f.member_predict(test.X)) for f in fits])
        bv01 = bias_variance_01(preds, test.y, true_proba=test.true_proba, classes=classes)
        bvd = bias_variance_diversity(labels, test.true_proba, loss="zero_one")
        at = ds.sel(dataset="wave", ensemble="VR", alpha=alpha)
        for name in ("loss", "bias", "variance", "net_variance", "noise", "noise_effect"):
            assert at[name].item() == bv01[name].item(), (alpha, name)
        for name in ("expected_loss", "average_bias", "average_variance", "diversity"):
            assert at[name].item() == bvd[name].item(), (alpha, name)
        assert at["noise"].item() > 0  # the generator's noise, not 0 as with labels
    # alpha = 1 without sampling: every fit's members are the same tree, so no diversity
    assert ds.diversity.sel(alpha=1.0).item() == pytest.approx(0.0, abs=1e-12)
    assert ds.diversity.sel(alpha=0.0).item() > 0.01


# ----------------------------------------------------------------------------- resuming

def small(out):
    return config_dict(out, datasets=[{"name": "wave", "generator": "waveform"}],
                       ensembles=[{"name": "VR", "estimator": "VRTrees", "alphas": [0.0, 0.5],
                                   "params": {"n_estimators": 4, "laplace": True}}])


class Stopped(BaseException):
    """A run stopped from outside (as by a kill; not an error a cell or group records)."""


class Counting:
    """``execute`` that counts the cells it runs and can stop the run after ``stop`` cells
    (as a kill would, between two cells)."""

    def __init__(self, monkeypatch, stop=None):
        self.ran, self.stop, real = [], stop, REAL_EXECUTE

        def execute(cells, **kwargs):
            for item in real(cells, **kwargs):
                if self.stop is not None and len(self.ran) == self.stop:
                    raise Stopped
                self.ran.append(item[0].key)
                yield item

        monkeypatch.setattr(run_module, "execute", execute)


def test_stopped_run_resumes_to_the_same_result(tmp_path, monkeypatch, caplog):
    reference = run(small(tmp_path / "ref"), progress=False)
    out = tmp_path / "stopped"
    counter = Counting(monkeypatch, stop=4)  # group 1 (3 cells) reduced, 1 cell of group 2
    with pytest.raises(Stopped):
        run(small(out), progress=False)
    assert status(small(out)) == {"total": 6, "done": 4, "pending": 2, "failed": 0}
    # only the unreduced group's finished cell keeps its outputs
    kept = list((out / "outputs").glob("*.npz"))
    assert [p.stem for p in kept] == [counter.ran[3]]
    counter = Counting(monkeypatch)
    resumed = run(small(out), progress=False)
    assert len(counter.ran) == 2  # nothing finished is fitted again
    xr.testing.assert_identical(strip(resumed), strip(reference))
    assert not (out / "outputs").exists()


def test_damaged_or_missing_outputs_run_their_cell_again(tmp_path, monkeypatch, caplog):
    reference = run(small(tmp_path / "ref"), progress=False)
    out = tmp_path / "damaged"
    counter = Counting(monkeypatch, stop=5)
    with pytest.raises(Stopped):
        run(small(out), progress=False)
    damaged, missing = sorted((out / "outputs").glob("*.npz"))
    raw = damaged.read_bytes()
    damaged.write_bytes(raw[: len(raw) // 2])  # cut short
    missing.unlink()
    (out / "outputs" / "left.npz.tmp").write_bytes(b"half a file")  # a write cut short
    assert status(small(out))["done"] == 3
    counter = Counting(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="treelab.experiment"):
        resumed = run(small(out), progress=False)
    assert sorted(counter.ran[:2]) == sorted([damaged.stem, missing.stem])
    assert len(counter.ran) == 3
    assert "outputs for the measures over repeats are lost" in caplog.text
    xr.testing.assert_identical(strip(resumed), strip(reference))
    assert not (out / "outputs").exists()


def test_group_finished_but_not_reduced_is_reduced_on_resume(tmp_path, monkeypatch):
    reference = run(small(tmp_path / "ref"), progress=False)
    out = tmp_path / "unreduced"
    real = run_module.reduce_group

    def killed(group, outputs):
        raise Stopped  # stopped after the group's last cell line, before its own

    monkeypatch.setattr(run_module, "reduce_group", killed)
    with pytest.raises(Stopped):
        run(small(out), progress=False)
    assert len(list((out / "outputs").glob("*.npz"))) == 3
    monkeypatch.setattr(run_module, "reduce_group", real)
    counter = Counting(monkeypatch)
    resumed = run(small(out), progress=False)
    assert len(counter.ran) == 3  # the second group's cells; the first is only reduced
    xr.testing.assert_identical(strip(resumed), strip(reference))


def test_failing_reduction_is_recorded_or_raised(tmp_path, monkeypatch):
    def broken(group, outputs):
        raise ValueError("no reduction today")

    monkeypatch.setattr(run_module, "reduce_group", broken)
    with pytest.raises(run_module.ExperimentError, match="no reduction today"):
        run(small(tmp_path / "raise"), progress=False)
    ds = run(dict(small(tmp_path / "go-on"), on_error="continue"), progress=False)
    assert ds.attrs["failed_groups"] == 2
    assert "diversity" not in ds and np.all(np.isfinite(ds.strength))


# ------------------------------------------------------------------------- refused configs

@pytest.mark.parametrize(
    ("changes", "exc", "words"),
    [
        ({"protocol": {"name": "stratified_kfold", "n_splits": 3}}, ValueError,
         r"measures.bias_variance_01 needs the outputs of K training sets.*'stratified_kfold'"),
        ({"protocol": {"name": "draws", "n_repeats": 3}, "datasets": [
            {"name": "wave", "generator": "waveform"}]}, ValueError,
         r"measures.bias_variance_01 .*protocol 'draws' has none"),
        ({"measures": {"bias_variance_01": {"method": "vote"}}}, ValueError,
         r"measures.bias_variance_01.method must be one of"),
        ({"measures": {"bias_variance_diversity": {"loss": "hinge"}}}, ValueError,
         r"measures.bias_variance_diversity.loss must be one of"),
        ({"measures": {"bias_variance_01": {"classes": [0, 1]}}}, ValueError,
         r"measures.bias_variance_01: unknown options \['classes'\]"),
        ({"measures": {"bias_variance_01": {"target": "true_proba"}}}, ValueError,
         r"measures.bias_variance_01.target = 'true_proba' .*\['wine'\]"),
        ({"measures": {"bias_variance_diversity": {"target": "bayes"}}}, ValueError,
         r"measures.bias_variance_diversity.target must be one of"),
        ({"measures": {"bias_variance_diversity": {}}, "ensembles": [
            {"name": "sk", "estimator": "sklearn.ensemble:RandomForestClassifier"}]},
         ValueError, r"measures.bias_variance_diversity needs member outputs: "
                     r"ensembles\['sk'\]"),
        ({"measures": {"bias_variance_diversity": {"loss": "cross_entropy"}}, "ensembles": [
            {"name": "VR", "estimator": "VRTrees"}]}, ValueError,
         r"cross_entropy.*laplace = true in ensembles\['VR'\]"),
        ({"measures": {"bias_variance_01": []}}, TypeError,
         r"measures.bias_variance_01 options must be a table"),
    ],
)
def test_configuration_that_cannot_feed_them_is_refused_before_any_cell(tmp_path, changes,
                                                                        exc, words):
    with pytest.raises(exc, match=words):
        run(config_dict(tmp_path / "never", **changes), progress=False)
    assert not (tmp_path / "never").exists()


def test_sklearn_estimator_and_a_swept_transform(tmp_path):
    """bias_variance_01 reads predictions only, so any classifier can have it; a swept
    class-noise transform makes one group per rate, and its dim ``noise`` sends the measure's
    variable of that name to ``bias_variance_01_noise``."""
    from sklearn.tree import DecisionTreeClassifier

    config = config_dict(
        tmp_path / "sk", datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "sk", "estimator": "sklearn.tree:DecisionTreeClassifier"}],
        transforms=[{"kind": "class_noise", "values": [0.0, 0.2]}],
        measures={"bias_variance_01": {"method": "breiman"}})
    ds = run(config, progress=False)
    assert ds.bias_variance_01_noise.dims == ("dataset", "ensemble", "alpha", "noise")
    protocol = BiasVariance(SETS["n_sets"], n_train=SETS["n_train"], n_test=SETS["n_test"],
                            random_state=SEED)
    for rate in (0.0, 0.2):
        preds, test = [], None
        for split in protocol.split(load_builtin("wine")):
            train = add_class_noise(split.train, rate, random_state=cell_seed(
                SEED, "class_noise", "wine", rate, split.repeat, 0))
            seed = cell_seed(SEED, "estimator", "wine", [rate], "sk", split.repeat, 0)
            tree = DecisionTreeClassifier(random_state=seed).fit(train.X, train.y)
            preds.append(tree.predict(split.test.X))
            test = split.test
        bv01 = bias_variance_01(np.stack(preds), test.y, method="breiman")
        at = ds.sel(dataset="wine", ensemble="sk", alpha=np.nan, noise=rate)
        for name in ("loss", "bias", "variance"):
            assert at[name].item() == bv01[name].item(), (rate, name)
        assert at["bias_variance_01_noise"].item() == bv01["noise"].item() == 0.0
    assert ds.loss.sel(noise=0.2).item() > ds.loss.sel(noise=0.0).item()


def test_outputs_file_checks_its_contents_and_cell(tmp_path):
    arrays = {"y": np.array([0, 1, 1]), "member_proba": np.full((2, 3, 2), 0.5)}
    write_outputs(tmp_path, "a" * 32, arrays)
    back, why = read_outputs(tmp_path, "a" * 32)
    assert why == "" and back.keys() == arrays.keys()
    for name, value in arrays.items():
        np.testing.assert_array_equal(back[name], value)
        assert back[name].dtype == value.dtype
    # another cell's key: its digest does not match
    path = outputs_path(tmp_path, "a" * 32)
    path.rename(outputs_path(tmp_path, "b" * 32))
    assert read_outputs(tmp_path, "b" * 32)[0] is None
    # a value changed after writing, the old digest kept
    with np.load(outputs_path(tmp_path, "b" * 32)) as z:
        kept = {k: z[k] for k in z.files}
    kept["member_proba"][1, 2, 0] = 0.25
    with outputs_path(tmp_path, "a" * 32).open("wb") as fh:
        np.savez_compressed(fh, **kept)
    back, why = read_outputs(tmp_path, "a" * 32)
    assert back is None and "digest" in why
    assert read_outputs(tmp_path, "c" * 32) == (None, f"{outputs_path(tmp_path, 'c' * 32)} "
                                                      "is missing")
    outputs_path(tmp_path, "a" * 32).write_bytes(b"PK\x03\x04 not a zip")
    back, why = read_outputs(tmp_path, "a" * 32)
    assert back is None and "cannot be read" in why


def test_k_fits_must_have_scored_the_same_test_rows(tmp_path):
    # irrelevant attributes added to generated rows: drawn once for the K test sets
    config = config_dict(
        tmp_path / "irr", datasets=[{"name": "wave", "generator": "waveform"}],
        ensembles=[{"name": "VR", "estimator": "VRTrees", "alphas": [0.5],
                    "params": {"n_estimators": 3}}],
        transforms=[{"kind": "irrelevant", "values": [2]}],
        measures={"bias_variance_diversity": {}})
    ds = run(config, progress=False)  # the reduction checks the K test sets' digests
    assert np.isfinite(ds.diversity.item()) and ds.diversity.dims[-1] == "n_irrelevant"
    # outputs of different test rows are not combined
    group = groups_of(expand(ExperimentConfig(**config)), config["measures"])[0]
    one = {"classes": np.array([0, 1]), "y": np.array([0, 1]), "x_digest": np.array("a"),
           "member_proba": np.full((2, 2, 2), 0.5)}
    other = dict(one, x_digest=np.array("b"))
    with pytest.raises(ValueError, match="different test rows"):
        reduce_group(group, [one, one, other])
    with pytest.raises(ValueError, match="different test labels"):
        reduce_group(group, [one, one, dict(one, y=np.array([1, 1]))])
    ok = reduce_group(group, [one, one, one])
    assert ok["vars"]["diversity"]["data"] == 0.0


def test_command_line_runs_them_and_names_a_refused_entry(tmp_path, capsys):
    from treelab.cli import main

    path = tmp_path / "bv.toml"
    path.write_text(TOML.replace('[measures.diagnose]\nmeasures = ["margin_cdf"]\n', "")
                    .replace('    name = "wine"\n    builtin = "wine"\n', "")
                    .replace("alphas = [0.0, 0.5]", "alphas = [0.5]"))
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "result.nc" in printed and "summary.csv" not in printed  # no error to tabulate
    ds = xr.load_dataset(out / "result.nc")
    assert "ensemble_error" not in ds and ds.diversity.dims == ("dataset", "ensemble", "alpha")
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace('name = "bias_variance"', 'name = "holdout"')
                   .replace("n_sets = 3", "n_repeats = 3").replace("n_train = 60\n", "")
                   .replace("n_test = 50\n", ""))
    assert main(["run", str(bad), "--out", str(tmp_path / "never")]) == 2
    assert "measures.bias_variance_01 needs the outputs of K training sets" in \
        capsys.readouterr().err
    assert not (tmp_path / "never").exists()
