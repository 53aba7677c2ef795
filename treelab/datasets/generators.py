"""Registry of the data generators: look one up by name, or draw from it.

The generators themselves live in :mod:`treelab.datasets._breiman` (LED, waveform),
:mod:`treelab.datasets._geometric` (concepts A/B, Fan's synthetic problem, Gaussian mixture,
noisy 2-D function, image interpolation) and :mod:`treelab.datasets._logic` (tic-tac-toe, KRK,
MONK's problems, m-of-n, parity, balance scale) and :mod:`treelab.datasets._regression`
(Friedman #1, #2, #3 and Poisson counts: regression data with the noiseless target in
``true_target``). Every one takes ``random_state`` and returns a
:class:`~treelab.datasets.LabeledData`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from treelab.datasets._breiman import led, waveform
from treelab.datasets._data import LabeledData
from treelab.datasets._geometric import (
    concepts,
    concepts_lattice,
    fan_synthetic,
    gaussian_mixture,
    image_interpolation,
    noisy_function_2d,
)
from treelab.datasets._logic import balance_scale, krk, m_of_n, monks, parity, tictactoe
from treelab.datasets._regression import friedman1, friedman2, friedman3, poisson_counts

__all__ = ["GENERATORS", "SIZED_GENERATORS", "generate"]

#: Every generator by name.
GENERATORS: dict[str, Callable[..., LabeledData]] = {
    "led": led,
    "waveform": waveform,
    "concepts": concepts,
    "concepts_lattice": concepts_lattice,
    "fan_synthetic": fan_synthetic,
    "tictactoe": tictactoe,
    "balance_scale": balance_scale,
    "krk": krk,
    "monks": monks,
    "m_of_n": m_of_n,
    "parity": parity,
    "gaussian_mixture": gaussian_mixture,
    "noisy_function_2d": noisy_function_2d,
    "image_interpolation": image_interpolation,
    "friedman1": friedman1,
    "friedman2": friedman2,
    "friedman3": friedman3,
    "poisson_counts": poisson_counts,
}

#: Generators that draw a chosen number of rows (take ``n_samples``), so that independent
#: training and test sets can be drawn from them.
SIZED_GENERATORS = frozenset(
    {"led", "waveform", "concepts", "fan_synthetic", "krk", "monks", "m_of_n", "parity",
     "gaussian_mixture", "noisy_function_2d", "friedman1", "friedman2", "friedman3",
     "poisson_counts"}
)


def generate(name: str, **params: Any) -> LabeledData:
    """Call the generator ``name`` with ``params``.

    Parameters
    ----------
    name : str
        A key of :data:`GENERATORS`.
    **params
        Keyword arguments of that generator (``n_samples``, ``random_state``, ...).

    Returns
    -------
    LabeledData
        What the generator returns.
    """
    if not isinstance(name, str) or name not in GENERATORS:
        raise ValueError(f"name must be one of {sorted(GENERATORS)}; got {name!r}")
    return GENERATORS[name](**params)
