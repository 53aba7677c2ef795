"""Data sets for tree-ensemble experiments: generators, loaders and transforms.

Every generator and loader returns a :class:`LabeledData`: features ``X`` (nominal columns as
integer codes 0..m-1 stored as floats), labels ``y``, the feature types, and where the source
defines them the true class probabilities of every row. Regression data (real-valued ``y``,
``meta["task"] == "regression"``) come from the Friedman and count generators, with the
noiseless target ``true_target``, and from :func:`load_regression`.
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
from treelab.datasets._logic import (
    balance_scale,
    krk,
    krk_illegal,
    m_of_n,
    monks,
    parity,
    tictactoe,
)
from treelab.datasets._regression import (
    friedman1,
    friedman1_function,
    friedman2,
    friedman3,
    friedman23_function,
    poisson_counts,
)
from treelab.datasets._regression_data import (
    REGRESSION_DATASETS,
    list_regression,
    load_regression,
)
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
    "REGRESSION_DATASETS",
    "SIZED_GENERATORS",
    "LabeledData",
    "forest_importance",
    "friedman1",
    "friedman1_function",
    "friedman2",
    "friedman23_function",
    "friedman3",
    "keep_important",
    "UCIDataNotFoundError",
    "add_attribute_noise",
    "add_class_noise",
    "add_irrelevant",
    "balance_scale",
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
    "list_regression",
    "list_uci",
    "load_builtin",
    "load_regression",
    "load_table",
    "load_uci",
    "m_of_n",
    "monks",
    "noisy_function_2d",
    "noisy_function_label",
    "parity",
    "poisson_counts",
    "subsample",
    "subsample_indices",
    "tictactoe",
    "waveform",
]
