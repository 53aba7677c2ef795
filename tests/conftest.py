import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


#: The UCI bundle that ships with treelab (the repository's one copy).
UCI_ROOT = REPO / "data" / "uci"


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: the cores this process may run on. pytest-xdist's own count asks psutil for
    physical cores, which is 1 on a two-vCPU machine that shares one core's two threads, and
    ignores the CPU affinity a container or ``taskset`` sets."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


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
