"""Data sets for tree-ensemble experiments: generators, loaders and transforms.

Every generator and loader returns a :class:`LabeledData`: features ``X`` (nominal columns as
integer codes 0..m-1 stored as floats), labels ``y``, the feature types, and where the source
defines them the true class probabilities of every row.
"""

from treelab.datasets._breiman import LED_SEGMENTS, led, led_bayes_error, waveform
from treelab.datasets._data import CONTINUOUS, NOMINAL, LabeledData
from treelab.datasets._geometric import (
    concepts,
    concepts_lattice,
    fan_synthetic,
    gaussian_mixture,
    image_interpolation,
    noisy_function_2d,
    noisy_function_label,
)
from treelab.datasets._importance import forest_importance, keep_important
from treelab.datasets._logic import krk, krk_illegal, m_of_n, monks, parity, tictactoe
from treelab.datasets.generators import GENERATORS, SIZED_GENERATORS, generate
from treelab.datasets.loaders import (
    DATA_ENV,
    UCIDataNotFoundError,
    find_uci_root,
    list_uci,
    load_builtin,
    load_table,
    load_uci,
)
from treelab.datasets.transforms import (
    add_attribute_noise,
    add_class_noise,
    add_irrelevant,
    subsample,
    subsample_indices,
)

__all__ = [
    "CONTINUOUS",
    "DATA_ENV",
    "GENERATORS",
    "LED_SEGMENTS",
    "NOMINAL",
    "SIZED_GENERATORS",
    "LabeledData",
    "forest_importance",
    "keep_important",
    "UCIDataNotFoundError",
    "add_attribute_noise",
    "add_class_noise",
    "add_irrelevant",
    "concepts",
    "concepts_lattice",
    "fan_synthetic",
    "find_uci_root",
    "gaussian_mixture",
    "generate",
    "image_interpolation",
    "krk",
    "krk_illegal",
    "led",
    "led_bayes_error",
    "list_uci",
    "load_builtin",
    "load_table",
    "load_uci",
    "m_of_n",
    "monks",
    "noisy_function_2d",
    "noisy_function_label",
    "parity",
    "subsample",
    "subsample_indices",
    "tictactoe",
    "waveform",
]
