"""The tree engine: everything below the estimators, and the only hot code in treelab.

What the engine promises:

- **plain arrays in, flat arrays out**: kernels and drivers take NumPy arrays and scalars (encoded
  features, class codes, integer/float parameter vectors, per-tree seeds) and return a
  :class:`~treelab.engine.forest.Forest`, a ``NamedTuple`` of flat node arrays concatenated over
  trees; nothing here sees pandas, xarray or an estimator object;
- **seeds in Python**: every tree is grown from one 64-bit seed drawn by the caller, so a tree does
  not depend on which thread grew it or in what order;
- **bit-identical across threads**: the same seeds give the same forest for any number of threads
  (trees grow on a pool of Python threads; kernels release the GIL).

One growth routine, :func:`treelab.engine.kernels._grow.grow_tree`, grows every axis-aligned tree
(deterministic, variable-random, complete-random, random-forest, Extra, stochastic ID3 and
PERT nodes are parameters of it); :func:`treelab.engine.forest.grow_forest` drives it over trees.
Complete-random trees on continuous features take a shortcut,
:func:`treelab.engine.kernels._random_grow.grow_random_tree`: the same trees bit for bit, about
three times faster (no per-node reference counting of arrays).

Modules:

- :mod:`treelab.engine.kernels`: the numba kernels (growth, test selection, split search and
  criteria, presorted lists, oblique trees, pruning marks, prediction);
- :mod:`treelab.engine.forest`: the flat ``Forest``, feature preparation and the forest driver;
- :mod:`treelab.engine.oblique`: drivers of MMDT, rotation and CV-selected (CVDT) trees, which
  grow into the same ``Forest``;
- :mod:`treelab.engine.pruning`: reduced-error and pessimistic pruning of a grown tree;
- :mod:`treelab.engine.sharing`: what fits on the same training rows share (feature
  preparation, all-deterministic trees) inside a sharing scope.
"""

from treelab.engine._notice import install as _install_compile_notice

# a one-line notice the first time a group of kernels compiles (see _notice)
_install_compile_notice()
