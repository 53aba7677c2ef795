from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


#: The UCI bundle that ships with treelab (the repository's one copy).
UCI_ROOT = REPO / "data" / "uci"


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def uci_root():
    return UCI_ROOT


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return
    plt.close("all")
