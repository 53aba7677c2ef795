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

The digests cover each variable's dims and values, not its attributes: a description may be
reworded (where a value is NaN and why) without a value moving. They were recomputed so on
2026-11-30 from cells whose full records, attributes included, still gave the digests of
be88791 and 591385b, and whose values the new code's cells equal variable by variable (123
cells; only Breiman's correlation's description differed).
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
        kept = {k: {"dims": v["dims"], "data": v["data"]} for k, v in rec["vars"].items()
                if k not in TIMING_VARS}
        h.update(json.dumps([cell.key, kept, rec["coords"], rec["warnings"]]).encode())
    return h.hexdigest()[:16]


CASES = {
    "iris-fold0-all": ("iris", 0, lambda c: True, "dee423d4e5fb5ccf"),
    "primary-tumor-mc": ("primary-tumor", 0, lambda c: float(c.coords["alpha"]) in (0.0, 0.5),
                         "a6ca0b98b271730e"),
    "vote-fold0-all": ("vote", 0, lambda c: True, "8abd973d5be12d17"),
    "waveform-21-fold2": ("waveform-21", 2, lambda c: float(c.coords["alpha"]) in (0.0, 0.3, 1.0),
                          "4ad15053a84ca038"),
    "glass-fold0-all": ("glass", 0, lambda c: True, "ba6ddf1a6b42f715"),
    "soybean-fold4": ("soybean", 4, lambda c: float(c.coords["alpha"]) in (0.0, 0.6, 1.0),
                      "8b170e4feb9d5082"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cells_store_the_values_of_before(case):
    dataset, fold, pick, want = CASES[case]
    assert _digest_of(dataset, fold, pick) == want
