"""Where ``treelab run`` writes (issue 27 item 6): a TOML's relative ``out`` is relative to the
file's folder, ``--out`` to the current folder, and the absolute folder is printed first."""

from __future__ import annotations

import os
from pathlib import Path

from treelab.cli import main

CONFIG = """
name = "where"
seed = 1
alphas = [0.5]
out = "o"

[protocol]
name = "stratified_kfold"
n_splits = 2

[[datasets]]
builtin = "wine"

[[ensembles]]
name = "Agg."
estimator = "VRTrees"
params = { n_estimators = 3 }
"""


def setup(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    conf.mkdir()
    path = conf / "exp.toml"
    path.write_text(CONFIG)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return path, elsewhere


def first_line(capsys):
    return capsys.readouterr().out.splitlines()[0]


def test_toml_out_is_relative_to_the_file_and_printed_first(tmp_path, monkeypatch, capsys):
    path, elsewhere = setup(tmp_path, monkeypatch)
    # the path as a user types it from the current folder
    assert main(["run", os.path.relpath(path), "--no-progress"]) == 0
    line = first_line(capsys)
    target = (tmp_path / "conf" / "o").resolve()
    assert line.startswith(f"output folder   : {target} (")
    assert "relative to its folder" in line
    assert (target / "result.nc").is_file()
    assert os.listdir(elsewhere) == []  # nothing written where the command ran


def test_command_line_out_is_relative_to_the_current_folder(tmp_path, monkeypatch, capsys):
    path, elsewhere = setup(tmp_path, monkeypatch)
    assert main(["run", str(path), "--out", "mine", "--no-progress"]) == 0
    line = first_line(capsys)
    target = (elsewhere / "mine").resolve()
    assert line == (f"output folder   : {target} (--out, relative to the current folder)")
    assert (target / "result.nc").is_file()
    assert not Path(tmp_path / "conf" / "o").exists()
