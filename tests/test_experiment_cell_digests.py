"""Cells of the 48-set spectrum study (``examples/spectrum_uci.toml``) store the values they
stored before the evaluation's speed work of 2026-11-26 (one pass over the trees, values
without a Dataset, the Monte Carlo's guide table), bit for bit.

The digests were computed at commit be88791 (before that work) with ``_digest_of`` below.
They cover every construction and alpha of iris's fold 0 (three classes), and primary-tumor
cells whose independent-errors error is simulated (22 classes, some with fewer rows than the
folds: 73 Monte Carlo estimates over the six cells).

The later cases were computed at commit 591385b, before the member pass from one walk and the
exact independent-errors DP in a kernel: two classes (vote; the exact DP over one wrong
class), three (waveform-21; over two), six (glass) and nineteen with classes the training
rows miss (soybean).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
import warnings
from pathlib import Path

import pytest

from treelab.experiment import expand, load_config
from treelab.experiment.cells import TIMING_VARS, run_cell

CONFIG = Path(__file__).resolve().parents[1] / "examples" / "spectrum_uci.toml"


def _digest_of(dataset: str, fold: int, pick) -> str:
    with open(CONFIG, "rb") as fh:
        cfg = tomllib.load(fh)
    cfg["datasets"] = [d for d in cfg["datasets"] if d["uci"] == dataset]
    h = hashlib.sha256()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes smaller than the folds
        cells = expand(load_config(cfg))
    for cell in cells:
        if cell.coords["fold"] != fold or not pick(cell):
            continue
        rec = run_cell(cell.spec)
        kept = {k: v for k, v in rec["vars"].items() if k not in TIMING_VARS}
        h.update(json.dumps([cell.key, kept, rec["coords"], rec["warnings"]]).encode())
    return h.hexdigest()[:16]


CASES = {
    "iris-fold0-all": ("iris", 0, lambda c: True, "3e14c2a70cb74855"),
    "primary-tumor-mc": ("primary-tumor", 0, lambda c: float(c.coords["alpha"]) in (0.0, 0.5),
                         "81e82853db878b01"),
    "vote-fold0-all": ("vote", 0, lambda c: True, "27bf919a5e172a96"),
    "waveform-21-fold2": ("waveform-21", 2, lambda c: float(c.coords["alpha"]) in (0.0, 0.3, 1.0),
                          "d5b4d7b0855517f7"),
    "glass-fold0-all": ("glass", 0, lambda c: True, "8c594f2b623bfdac"),
    "soybean-fold4": ("soybean", 4, lambda c: float(c.coords["alpha"]) in (0.0, 0.6, 1.0),
                      "d0aa0f5c26bcc42a"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cells_store_the_values_of_before(case):
    dataset, fold, pick, want = CASES[case]
    assert _digest_of(dataset, fold, pick) == want
