"""The report table's Bayesian columns: P(better) and P(rope) against the reference, the test
named in the caption."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treelab import report, stats


def test_bayesian_rows_and_caption():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.3, 8)
    errors = pd.DataFrame({"A": base - 0.03, "B": base, "C": base + 0.001},
                          index=pd.Index([f"d{i}" for i in range(8)], name="dataset"))
    t = report.table(errors, reference="B", rope=0.01)
    direct = stats.bayesian_signed_rank(
        errors.rename_axis(columns="ensemble").stack().to_xarray(), "A", "B", rope=0.01)
    assert t.bayesian.loc["A", "p_better"] == float(direct.p_a_better)
    assert t.bayesian.loc["A", "p_better"] > 0.9
    assert t.bayesian.loc["C", "p_rope"] > 0.5
    md = t.to_markdown()
    assert "| P(better) vs B |" in md and "| P(rope) vs B |" in md
    assert "Bayesian signed-rank test" in t.caption() and "rope = 0.01" in t.caption()
    plain = report.table(errors, reference="B")
    assert plain.bayesian is None and "P(better)" not in plain.to_markdown()
    with pytest.raises(ValueError, match="rope"):
        report.table(errors, reference="B", rope=-1.0)
