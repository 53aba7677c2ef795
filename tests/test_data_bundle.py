"""The UCI bundle ships with treelab: one copy in data/uci, its README in sync, carried by the
wheel and found by load_uci with no environment variable."""

import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from treelab import datasets as D
from treelab.datasets import loaders

REPO = Path(__file__).resolve().parents[1]
UCI = REPO / "data" / "uci"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_file_matches_its_index_checksum_and_the_readme():
    index = json.loads((UCI / "index.json").read_text())
    assert len(index) == 48
    files = sorted(p.name for p in UCI.glob("*.tsv.gz"))
    assert files == sorted(e["file"] for e in index)
    readme = (REPO / "data" / "README.md").read_text()
    listed = dict(re.findall(r"^([0-9a-f]{64})  uci/(\S+)$", readme, flags=re.M))
    listed = {name: digest for digest, name in listed.items()}
    assert set(listed) == set(files) | {"index.json"}
    for e in index:
        digest = _sha256(UCI / e["file"])
        assert digest == e["sha256"], e["file"]
        assert listed[e["file"]] == digest, e["file"]
    assert listed["index.json"] == _sha256(UCI / "index.json")


def test_readme_names_source_version_licence_and_citation_of_every_set():
    readme = (REPO / "data" / "README.md").read_text()
    for e in json.loads((UCI / "index.json").read_text()):
        row = next(line for line in readme.splitlines() if line.startswith(f"| {e['name']} |"))
        assert e["source_repo"] in row and e["source_commit"][:12] in row
        assert loaders.licence_label(e) in row and row.rstrip().endswith("|")
        assert "UCI" in row or "synthetic" in row


def test_readme_is_what_the_script_writes():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import make_data_readme
    finally:
        sys.path.pop(0)
    assert make_data_readme.render() == (REPO / "data" / "README.md").read_text()


def test_every_licence_note_has_a_short_label():
    for e in json.loads((UCI / "index.json").read_text()):
        assert loaders.licence_label(e) != e["license_note"], e["name"]


def test_default_search_finds_the_bundle_without_an_environment_variable(monkeypatch):
    monkeypatch.delenv(D.DATA_ENV, raising=False)
    assert D.find_uci_root().resolve() == UCI.resolve()
    assert D.load_uci("iris").n_samples == 150
    listing = D.list_uci()
    assert len(listing) == 48 and listing.loc["iris", "licence"].startswith("CC BY 4.0")


def test_environment_variable_points_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv(D.DATA_ENV, str(tmp_path))
    (tmp_path / "index.json").write_text("[]")
    assert D.find_uci_root() == tmp_path
    assert D.list_uci().empty


def test_nothing_in_the_package_reads_the_old_shared_folder():
    for path in (REPO / "treelab").rglob("*.py"):
        assert "shared/data" not in path.read_text(), path


def test_wheel_carries_the_bundle_and_load_uci_works_outside_the_checkout(tmp_path):
    """Build the wheel, unpack it away from the checkout and load a set with no TREELAB_DATA
    (the dependencies come from this environment)."""
    out = tmp_path / "wheel"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps",
                            "-q", "-w", str(out)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    (wheel,) = out.glob("treelab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "treelab/_data/uci/index.json" in names
    assert sum(n.startswith("treelab/_data/uci/") and n.endswith(".tsv.gz") for n in names) == 48
    assert not any(n.startswith("data/") for n in names)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {k: v for k, v in os.environ.items() if k not in (D.DATA_ENV, "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    code = ("import treelab, treelab.datasets as D; "
            f"assert treelab.__file__.startswith({str(site)!r}), treelab.__file__; "
            "d = D.load_uci('wine'); print(d.n_samples, D.find_uci_root())")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    n, root = run.stdout.split()
    assert n == "178" and Path(root) == site / "treelab" / "_data" / "uci"


@pytest.mark.parametrize("name", ["promoters", "splice", "audiology"])
def test_nominal_sets_load_with_their_schema(name):
    data = D.load_uci(name)
    index = {e["name"]: e for e in json.loads((UCI / "index.json").read_text())}
    assert data.n_samples == index[name]["n_samples"]
    assert data.categorical_features.all()
