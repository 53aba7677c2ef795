import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_uci_root() -> Path | None:
    """The shared UCI bundle: $TREELAB_DATA, or ../shared/data/uci beside the repository."""
    env = os.environ.get("TREELAB_DATA")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "data" / "uci"]:
        if (cand / "index.json").is_file():
            return cand
    return None


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def uci_root():
    root = shared_uci_root()
    if root is None:
        pytest.skip("the shared UCI bundle (../shared/data/uci or $TREELAB_DATA) is not present")
    return root


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return
    plt.close("all")
