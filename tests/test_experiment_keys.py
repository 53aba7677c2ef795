"""What a cell's key holds: a run on another configuration must not take a stored cell whose
values that configuration would store otherwise."""

from treelab.experiment import ExperimentConfig, expand, run


def _config(out, order):
    measures = {"diagnose": {"k": [1, 2]}, "topk_error": {"k": [3, 1]}}
    if order == "reversed":
        measures = dict(reversed(list(measures.items())))
    return ExperimentConfig(
        datasets=[{"name": "wine", "builtin": "wine"}], seed=1, out=str(out),
        ensembles=[{"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 5}}],
        protocol={"name": "stratified_kfold", "n_splits": 2}, measures=measures)


def _topk_dims(ds):
    return {name: ds[name].dims[-1] for name in ds.data_vars if "topk" in name}


def test_the_order_of_the_measures_is_part_of_the_key(tmp_path):
    # the first measure keeps the dim k and the variable topk_error that diagnose and
    # topk_error both report; the keys sorted the measures, so a run with the other order
    # took the stored cells and their names: topk_error over diagnose's k = [1, 2], where
    # the same configuration run afresh has topk_error's k = [3, 1]
    first = run(_config(tmp_path / "o", "given"), progress=False)
    assert _topk_dims(first) == {"topk_error": "k", "topk_error_topk_error": "topk_error_k"}
    assert first["k"].values.tolist() == [1, 2]
    resumed = run(_config(tmp_path / "o", "reversed"), progress=False)
    assert _topk_dims(resumed) == {"topk_error": "k", "diagnose_topk_error": "diagnose_k"}
    assert resumed["k"].values.tolist() == [3, 1]
    assert (tmp_path / "o" / "cells.jsonl").read_text().count("\n") == 4  # two more cells
    # a sorted order leaves the key as it was (tests/test_experiment_cell_digests.py pins
    # such keys); another order adds itself
    assert "measure_order" not in expand(_config(None, "given"))[0].spec
    assert expand(_config(None, "reversed"))[0].spec["measure_order"] == ["topk_error",
                                                                          "diagnose"]


def test_the_order_of_data_sets_and_ensembles_is_not():
    def keys(config):
        return {tuple(sorted(map(str, c.coords.items()))): c.key for c in expand(config)}

    datasets = [{"name": "wine", "builtin": "wine"}, {"name": "iris", "builtin": "iris"}]
    ensembles = [{"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 5}},
                 {"name": "Agg.", "estimator": "VRTrees",
                  "params": {"sampling": "none", "n_estimators": 5}}]
    config = ExperimentConfig(datasets=datasets, ensembles=ensembles, alphas=[0.0, 1.0],
                              protocol={"name": "stratified_kfold", "n_splits": 2})
    turned = config.replace(datasets=datasets[::-1], ensembles=[
        ensembles[1] | {"params": {"n_estimators": 5, "sampling": "none"}}, ensembles[0]])
    assert keys(turned) == keys(config)
    assert len(keys(config)) == 2 * (2 + 1) * 2
