"""TOML tables checked key by key against the configuration schema (issue 26 item 4).

TOML puts a key written below a table header into that table, so a top-level key written
after ``[protocol]`` became a protocol parameter and the run failed deep inside scikit-learn
("StratifiedKFold.__init__() got an unexpected keyword argument 'alphas'").
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from treelab.cli import main
from treelab.experiment import load_config
from treelab.experiment.config import ExperimentConfig, check_table_keys
from treelab.protocols import make_protocol

REPO = Path(__file__).resolve().parents[1]

HEAD = 'name = "keys"\nseed = 1\n'
PROTOCOL = '[protocol]\nname = "stratified_kfold"\nn_splits = 2\n'
DATASETS = '[[datasets]]\nbuiltin = "wine"\n'
ENSEMBLE = '[[ensembles]]\nname = "vr"\nestimator = "VRTrees"\n'
PARAMS = "[ensembles.params]\nn_estimators = 3\n"


def write(tmp_path, text):
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return path


def test_top_level_key_below_protocol_names_where_it_belongs(tmp_path):
    path = write(tmp_path, HEAD + PROTOCOL + "alphas = [0.0, 1.0]\n" + DATASETS + ENSEMBLE)
    with pytest.raises(ValueError, match=r"`alphas` is a top-level key; move it above "
                                         r"`\[protocol\]`"):
        load_config(path)
    # the same keys in the right place load
    good = write(tmp_path, HEAD + "alphas = [0.0, 1.0]\n" + PROTOCOL + DATASETS + ENSEMBLE)
    assert load_config(good).alphas == (0.0, 1.0)


@pytest.mark.parametrize("key,value,header", [
    ("seed", "3", "[[ensembles]]"),
    ("out", '"o"', "[[datasets]]"),
    ("backend", '"serial"', "[measures]"),
    ("on_error", '"continue"', "[[ensembles]]"),
])
def test_top_level_keys_in_any_table_are_reported(tmp_path, key, value, header):
    tables = {"[[datasets]]": DATASETS, "[[ensembles]]": ENSEMBLE,
              "[measures]": "[measures]\ndiagnose = {}\n"}
    text = HEAD + PROTOCOL + DATASETS + ENSEMBLE
    text = text.replace(tables.get(header, ""), "") + tables[header] + f"{key} = {value}\n"
    with pytest.raises(ValueError, match=f"`{key}` is a top-level key; move it above "
                                         f"`{re.escape(header)}`"):
        load_config(write(tmp_path, text))


def test_entry_key_inside_params_is_moved_to_its_entry(tmp_path):
    text = HEAD + PROTOCOL + DATASETS + ENSEMBLE + PARAMS + "alphas = [0.5]\n"
    with pytest.raises(ValueError, match=r"`alphas` is a key of the `\[\[ensembles\]\]` entry"
                                         r".*move it above `\[ensembles.params\]`"):
        load_config(write(tmp_path, text))


def test_keys_valid_in_their_table_pass_even_when_also_top_level():
    # `name` is a key of the top level, of the protocol and of every entry; an estimator may
    # take a parameter named like a top-level key: none of these is misplaced
    spec = tomllib.loads(HEAD + PROTOCOL + DATASETS + ENSEMBLE + PARAMS)
    check_table_keys(spec)
    ExperimentConfig.from_dict(spec)


def test_protocol_table_keys_are_validated_for_dicts_too():
    with pytest.raises(ValueError, match=r"protocol 'stratified_kfold': unknown keys "
                                         r"\['folds'\]; allowed \['n_repeats', 'n_splits'"):
        make_protocol({"name": "stratified_kfold", "folds": 3})


def test_the_cli_reports_the_misplaced_key_as_a_configuration_error(tmp_path, capsys):
    path = write(tmp_path, HEAD + PROTOCOL + "alphas = [0.0, 1.0]\n" + DATASETS + ENSEMBLE)
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    assert "move it above `[protocol]`" in capsys.readouterr().err


def test_shipped_examples_have_no_misplaced_keys():
    for path in sorted((REPO / "examples").glob("*.toml")):
        check_table_keys(tomllib.loads(path.read_text()))
