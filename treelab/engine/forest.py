"""The fitted forest: flat node arrays for all trees, and the Python driver of the kernels.

``prepare_features`` (module ``engine.features``, re-exported here) turns an encoded feature
matrix into the arrays the growth kernel reads (feature-major values, global ranks, distinct
values); ``grow_forest`` grows the trees on a pool
of threads (the kernel releases the GIL) and concatenates them. Each tree's randomness comes
from its own seed, so the forest is identical whatever the number of threads. Where a
deterministic node's test depends on its rows alone (``rows_decide``), trees that make no random
draw (``draws_nothing``) are grown once and repeated, and trees mixing random and deterministic
nodes may copy their deterministic top from that one tree (``grow_tree``'s reference tree).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from treelab.engine import sharing
from treelab.engine._resources import empty_small_pages, release_freed_memory, run_threads
from treelab.engine._row_bounds import (  # noqa: F401 - MAX_WEIGHTED_ROWS read from here too
    MAX_WEIGHTED_ROWS,
    bootstrap_weight_bound,
    weighted_rows,
)
from treelab.engine._walk_cache import cached, store_of
from treelab.engine.features import (  # noqa: F401 - re-exported: this module was their home
    FeatureArrays,
    bin_cuts,
    bin_feature,
    check_nominal_codes,
    concat_values,
    prepare_features,
    row_major_codes,
)
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels import _predict as P
from treelab.engine.kernels._criteria import xlogx_table
from treelab.engine.kernels._grow import grow_tree
from treelab.engine.kernels._random_grow import RULES as RANDOM_RULES
from treelab.engine.kernels._random_grow import grow_random_tree


class Forest(NamedTuple):
    """Flat arrays of a fitted forest (see docs/architecture.md for every field)."""

    node_offsets: np.ndarray
    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    nan_child: np.ndarray
    random: np.ndarray
    depth: np.ndarray
    counts: np.ndarray
    alpha: np.ndarray
    ties_feature: np.ndarray
    ties_test: np.ndarray
    n_decision: np.ndarray
    rows_seen: np.ndarray
    seed: np.ndarray
    # (n_proj, w) float64 vectors of oblique (kind 3) nodes; empty for axis-aligned forests
    projections: np.ndarray = np.zeros((0, 0))
    # regression forests (engine.regression): each node's weighted mean target and summed
    # row weight; empty for classifiers
    value: np.ndarray = np.zeros(0)
    weight: np.ndarray = np.zeros(0)

    @property
    def n_trees(self) -> int:
        return self.node_offsets.shape[0] - 1

    def _node_arrays(self) -> tuple:
        """The arrays every cached prediction array derives from (``engine._walk_cache``)."""
        return (self.kind, self.node_offsets, self.feature, self.threshold, self.child_start,
                self.n_children, self.nan_child, self.counts)

    def walk_arrays(self, X: np.ndarray, lanes: bool = True) -> tuple:
        """The prediction kernels' node arguments for rows ``X`` (``_predict.apply_forest``):
        the lockstep walk's codes when the forest and ``X`` allow it (and ``lanes``), else the
        general walk's arrays (``first`` and ``feat`` None with the codes). Laid out on the
        forest's first prediction and kept with it (``engine._walk_cache``)."""
        keys = self._node_arrays()
        codes = np.empty(0, dtype=np.uint64)
        if lanes and not P.has_nan(X):
            codes = cached(keys, "lanes", lambda: P.lane_codes(
                self.node_offsets, self.kind, self.feature, self.child_start, self.threshold))
        if codes.shape[0] > 0:
            # None: the kernels' version with the lockstep walk alone (_predict._walk)
            first, feat = None, None
        else:
            first, feat = cached(keys, "general", lambda: P.pack_nodes(
                self.node_offsets, self.kind, self.feature, self.child_start))
        return (self.node_offsets, first, feat, self.threshold, self.n_children, self.nan_child,
                self.projections, codes)

    def answering_nodes(self, min_n: int) -> np.ndarray:
        """The node answering for each leaf under curtailment at ``min_n`` training rows;
        empty when every leaf answers itself (``_predict.answering_nodes``; kept with the
        forest)."""
        store = store_of(self._node_arrays())
        hit = store.get("answering")  # one slot: a sweep over curtail_min keeps one array
        if hit is not None and hit[0] == min_n:
            return hit[1]
        anchor = P.answering_nodes(self.node_offsets, self.kind, self.child_start,
                                   self.n_children, self.counts, min_n)
        store["answering"] = (min_n, anchor)
        return anchor

    def leaf_answers(self, min_n: int, laplace: bool, mode: int,
                     lookups: int) -> tuple[np.ndarray, np.ndarray]:
        """Every leaf's answer and vote for ``_predict.combine_forest`` (``leaf_answers``),
        kept with the forest; empty (each lookup computes its answer) until the forest's
        calls have made, with this one's ``lookups`` (rows x trees), as many lookups as it has
        nodes, so a single small call through a large forest does not pay for the table."""
        store = store_of(self._node_arrays())
        name = (min_n, bool(laplace), mode)
        hit = store.get("answers")  # one slot, the last settings' table
        if hit is not None and hit[0] == name:
            return hit[1]
        seen = store.get("lookups", 0) + lookups
        store["lookups"] = seen
        if seen < self.kind.shape[0]:
            return np.empty((0, 0)), np.empty(0, dtype=np.int64)
        table = P.leaf_answers(self.n_children, self.answering_nodes(min_n), self.counts,
                               laplace, mode)
        store["answers"] = (name, table)
        return table

    def tree_of_node(self) -> np.ndarray:
        """Tree index of every node."""
        return np.repeat(np.arange(self.n_trees), np.diff(self.node_offsets))


def rows_decide(iparams: np.ndarray, row_mode: int, n_sub: int, d: int) -> bool:
    """Whether a deterministic node's test depends on nothing but the node's rows (and the
    nominal features used above it): every row and feature in the tree, every feature a
    candidate (``max_features`` >= d), exact thresholds, no stochastic choice. Ties go to the
    lowest feature index and the lowest threshold, never to a draw."""
    return bool(row_mode == G.ROWS_ALL and (n_sub <= 0 or n_sub >= d)
                and iparams[G.P_MAX_FEATURES] >= d and iparams[G.P_DET_THRESHOLD] == 0
                and iparams[G.P_STOCHASTIC] == 0)


def draws_nothing(iparams: np.ndarray, alphas: np.ndarray, row_mode: int, n_sub: int,
                  d: int) -> np.ndarray:
    """Per tree: True when growing it makes no random draw, so its seed cannot matter.

    That holds for a tree whose every node is deterministic (alpha >= 1) where ``rows_decide``:
    e.g. aggregated VR-Trees at alpha = 1, or a random forest with ``max_features=None`` and no
    bootstrap. Such trees are all the same tree.
    """
    if rows_decide(iparams, row_mode, n_sub, d):
        return np.asarray(alphas, dtype=np.float64) >= 1.0
    return np.zeros(len(alphas), dtype=bool)


# A tree with alpha in (0, 1) reaches a row's k-th test through deterministic splits only with
# chance alpha**k, so copying its deterministic top from a reference tree saves about
# alpha / (1 - alpha) levels of deterministic search per tree, while growing the reference
# costs one all-deterministic tree. The reference is grown when the trees' summed saving
# reaches REFERENCE_MIN_SAVING levels: e.g. 100 trees at alpha >= 0.67, 30 at alpha >= 0.87.
# Measured with 100 trees on adult, magic and letter (fit time with / without): 0.62-0.71 at
# alpha 0.9, 0.92-1.04 at 0.6, 0.99-1.05 at 0.3 (small nodes, whose search it cannot save,
# dominate below); with 30 trees on five sets, 0.79-0.89 at alpha 0.8.
REFERENCE_MIN_SAVING = 200.0


def reference_arrays(tree: tuple) -> tuple[np.ndarray, np.ndarray]:
    """An all-deterministic tree, as ``grow_tree`` returns it, laid out as its reference:
    (node, REF_*) int64 columns and the thresholds."""
    kind, feature, threshold, child_start, _, nan_child = tree[:6]
    ref_i = np.empty((kind.shape[0], 6), dtype=np.int64)
    ref_i[:, G.REF_KIND] = kind
    ref_i[:, G.REF_FEATURE] = feature
    ref_i[:, G.REF_CHILD] = child_start
    ref_i[:, G.REF_NAN] = nan_child
    ref_i[:, G.REF_TF] = tree[13]
    ref_i[:, G.REF_TT] = tree[14]
    return ref_i, threshold


# bytes of tree parts copied into the flat arrays between two returns of their freed memory
# to the system: a return walks the whole heap, and returning after every 8 trees whatever
# their size cost 3-5% of a 100-tree fit on a UCI-size set (about 110 calls a fit) while
# freeing nothing worth a system call
JOIN_TRIM_BYTES = 4 << 20

# the least rows x trees a forest must have to grow on several threads: below it the trees
# take less time than handing them to the pool's helpers and waking them (measured in
# benchmarks/README.md, "Threads"), and grow on the calling thread alone
THREADS_MIN_ROW_TREES = 4096
# the least nodes a forest must have to join its node arrays on several threads
JOIN_THREADS_MIN_NODES = 1 << 18


def grow_forest(
    feats: FeatureArrays,
    y: np.ndarray,
    n_classes: int,
    iparams: np.ndarray,
    alphas: np.ndarray,
    seeds: np.ndarray,
    row_mode: int,
    part: np.ndarray,
    n_sub: int,
    n_threads: int,
    sample_weight: np.ndarray | None = None,
) -> Forest:
    """Grow ``len(seeds)`` trees and concatenate them into one ``Forest``.

    ``sample_weight``: None, or non-negative integer row weights that multiply every tree's
    row multiplicities (``grow_tree``'s ``sw``; not with ``ROWS_WEIGHTS``, whose callers fold
    them into ``part``)."""
    n = y.shape[0]
    # rows pack (row << 32 | weight << 16 | class): weights and class codes need 16 bits
    if n_classes > 0xFFFF:
        raise ValueError(f"at most {0xFFFF} classes are supported, got {n_classes}")
    if row_mode == G.ROWS_WEIGHTS and part.shape[0] and (part.min() < 0 or part.max() > 0xFFFF):
        raise ValueError("row multiplicities must be in 0..65535")
    sw = None
    if sample_weight is not None:
        if row_mode == G.ROWS_WEIGHTS:
            raise ValueError("fold sample weights into the multiplicities of ROWS_WEIGHTS")
        sw = np.ascontiguousarray(sample_weight, dtype=np.int32)
        if sw.shape != (n,) or (n and (sw.min() < 0 or sw.max() > 0xFFFF)):
            raise ValueError("sample weights must be n integers in 0..65535")
    if n * len(seeds) < THREADS_MIN_ROW_TREES:
        n_threads = 1
    bound = weighted_rows(n, row_mode, part, sw)
    if sw is not None and bound > MAX_WEIGHTED_ROWS:
        raise ValueError(
            f"sample weights let a tree count up to {bound} rows (their sum, or about that of "
            f"a bootstrap sample), beyond the {MAX_WEIGHTED_ROWS} that the fit's x log2 x "
            "table (8 bytes a row) is allowed; use smaller sample weights")
    table = xlogx_table(bound)
    # unit weights when none are given: one compiled growth routine serves weighted and
    # unweighted fits (multiplying by 1 moves nothing)
    ones = np.ones(n, dtype=np.int32)
    y32 = np.ascontiguousarray(y, dtype=np.int32)
    # None: grow_tree's version without stochastic ID3's selection (compiled on its own)
    stochastic = True if iparams[G.P_STOCHASTIC] > 0 else None
    general = True
    binned = True

    # complete-random trees on continuous features have their own routine (the same trees)
    random_routine = (int(iparams[G.P_RANDOM_SPLIT]) in RANDOM_RULES
                      and not np.any(feats.nominal) and feats.Xc.shape[1] == n)
    # its localized subtrees copy their rows' values from a row-major copy (n x d x 8 bytes,
    # one per fit; _random_grow.localize_rows says why)
    Xr = np.zeros((0, 0))
    if (random_routine and np.any(np.asarray(alphas) == 0.0) and iparams[G.P_LOCAL] != 0
            and feats.Xc.shape[0] <= G.LOCAL_MAX_FEATURES_RANDOM):
        Xr = np.ascontiguousarray(feats.Xc.T)

    # the bin codes as rows of bytes, for binned trees without localized blocks (too many
    # features for them): their small nodes gather the candidates' codes from it
    Rt = np.zeros((0, 0), dtype=np.uint8)
    if (iparams[G.P_BINNED] != 0 and np.any(np.asarray(alphas) > 0.0)
            and feats.R.shape[0] > G.LOCAL_MAX_FEATURES and feats.R.shape[1] == n):
        Rt = row_major_codes(feats.R, n_threads)

    def one(t: int, alpha: float | None = None, ref=G.NO_REFERENCE, ip=iparams):
        a = float(alphas[t]) if alpha is None else alpha
        if a == 0.0 and random_routine:
            return grow_random_tree(feats.Xc, Xr, y32, n_classes, ip, np.uint64(seeds[t]),
                                    row_mode, part, t, n_sub, ones if sw is None else sw)
        return grow_tree(
            feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq,
            feats.uniq_off, feats.nominal, y32, n_classes, ip,
            a, table, np.uint64(seeds[t]), row_mode,
            part, t, n_sub, *ref, stochastic, general, ones if sw is None else sw, binned, Rt,
        )

    if len(seeds) and lean_suffices(feats, iparams, alphas):
        # the general routine where numba has it (this process, or its cache: a warm-up
        # compiled it), else the lean one, which compiles in about two thirds of the time
        sig = [feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq, feats.uniq_off,
               feats.nominal, y32, n_classes, iparams, 1.0, table, np.uint64(0), row_mode,
               part, 0, n_sub, *G.NO_REFERENCE, stochastic, True, ones]
        if not compiled_or_cached(grow_tree, sig + [True, Rt]):
            general = None
            # nor the binned search where the ranks are not bin codes (the general routine
            # keeps it: one version serves every fit after a warm-up)
            if iparams[G.P_BINNED] == 0:
                binned = None

    T = len(seeds)
    alphas = np.asarray(alphas, dtype=np.float64)
    trees = _grow_trees(one, feats, y32, n_classes, iparams, alphas, seeds, row_mode, part,
                        n_sub, n_threads, sw)
    sizes = np.array([tr[0].shape[0] for tr in trees], dtype=np.int64)
    offsets = np.zeros(T + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)

    stats = [np.array([tr[i] for tr in trees], dtype=np.int64) for i in range(9, 13)]
    # the nine node arrays are joined on the fit's threads (NumPy's copy releases the GIL):
    # joining them one after the other took a quarter of a 100-tree complete-random fit
    # on two threads, most of it spent touching the new memory. Each tree's part is let go as
    # soon as it is copied, so the fit holds its nodes about once, not twice (a forest of
    # 1,000,000 rows and 100 trees is about 330 MB)
    parts = [[tr[i] for tr in trees] for i in range(9)]
    del trees
    # the threads' growth buffers: about a row-sized copy of the features each
    release_freed_memory(n * (max(feats.Xc.shape[0], feats.R.shape[0]) + 8) * 8 * n_threads)

    def join(i: int) -> np.ndarray:
        first = parts[i][0]
        joined = empty_small_pages((int(offsets[-1]),) + first.shape[1:], first.dtype)
        if joined.nbytes < JOIN_TRIM_BYTES:
            # nothing to hand back on the way: one copy call, not one slice per tree (a
            # small set's forest spent more in those slices than in copying)
            np.concatenate(parts[i], axis=0, out=joined)
            parts[i] = []
            return joined
        freed = 0
        for t in range(T):
            joined[offsets[t]:offsets[t + 1]] = parts[i][t]
            freed += parts[i][t].nbytes
            parts[i][t] = None
            if freed >= JOIN_TRIM_BYTES:
                release_freed_memory()
                freed = 0
        return joined

    kind, feature, threshold, child_start, n_children, nan_child, rnd, depth, counts = (
        run_threads(join, range(9), n_threads if offsets[-1] >= JOIN_THREADS_MIN_NODES else 1))
    return Forest(
        node_offsets=offsets,
        kind=kind,
        feature=feature,
        threshold=threshold,
        child_start=child_start,
        n_children=n_children,
        nan_child=nan_child,
        random=rnd,
        depth=depth,
        counts=counts,
        alpha=alphas,
        ties_feature=stats[0],
        ties_test=stats[1],
        n_decision=stats[2],
        rows_seen=stats[3],
        seed=np.asarray(seeds, dtype=np.uint64),
    )


def lean_suffices(feats: FeatureArrays, iparams: np.ndarray, alphas: np.ndarray) -> bool:
    """Whether ``grow_tree``'s lean version (``general=None``) grows these trees: continuous
    features only, none with more distinct values than presorted lists need (so no lists, and
    no node sorts enough keys for the radix sort), exact thresholds, no stochastic choice, and
    random nodes (if any) drawing ``pair_midpoint`` thresholds. Either version grows the same
    trees; the lean one compiles faster. Trees below alpha 0.5 keep no lists
    (``_presort.presort_plan``): for them only ``LIST_MIN_DISTINCT`` bounds the features."""
    if (iparams[G.P_STOCHASTIC] != 0 or iparams[G.P_DET_THRESHOLD] != 0
            or iparams[G.P_PRESORT] == 2 or np.any(feats.nominal)):
        return False
    if np.any(feats.n_distinct > G.LIST_MIN_DISTINCT):
        return False
    list_min = G.list_min_distinct.py_func(feats.R.shape[1])  # R: (feature, row) ranks
    if np.any(alphas >= 0.5) and np.any(feats.n_distinct > list_min):
        return False
    return bool(iparams[G.P_RANDOM_SPLIT] == G.RS_PAIR or np.all(alphas >= 1.0))


# (kernel, signature) pairs whose cache was read without finding them: read once a process
_NOT_CACHED: set = set()


def compiled_or_cached(kernel, args: list) -> bool:
    """Whether numba has ``kernel``'s version for ``args`` without compiling: in this process,
    or in its cache (then loaded now, as a call would; the cache is read once a process). Any
    failure of numba's internals answers False (the caller then only compiles more than it
    needed)."""
    try:
        from numba.core import types
        from numba.core.compiler_lock import global_compiler_lock

        # the parameters ``args`` leave out are in numba's key as their defaults, omitted
        params = list(inspect.signature(kernel.py_func).parameters.values())
        sig = (tuple(kernel.typeof_pyval(a) for a in args)
               + tuple(types.Omitted(p.default) for p in params[len(args):]))
        if sig in kernel.overloads:
            return True
        with global_compiler_lock:
            if sig in kernel.overloads:
                return True
            if (id(kernel), sig) in _NOT_CACHED:
                return False
            cres = kernel._cache.load_overload(sig, kernel.targetctx)
            if cres is None or tuple(cres.signature.args) != sig:
                _NOT_CACHED.add((id(kernel), sig))
                return False
            # as numba's Dispatcher.compile does with what it loads from the cache
            kernel.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                  [cres.library])
            kernel.add_overload(cres)
            return True
    except Exception:  # noqa: BLE001 - an internal of numba moved: compile the lean version
        return False


def tests_follow_rows(iparams: np.ndarray, n_sub: int, d: int) -> bool:
    """Whether a deterministic node's test depends on nothing but the node's rows (with their
    multiplicities), the tree's visible features and the nominal features used above it:
    every visible feature a candidate, exact thresholds, no stochastic choice. Then tree t
    grown from the same seed, rows and parameters at any alpha finds, at a node reached
    through deterministic splits only, the test of the all-deterministic tree t's node at the
    same place (``rows_decide`` adds: the same for every tree, all rows and features in)."""
    n_visible = n_sub if 0 < n_sub < d else d
    return bool(iparams[G.P_MAX_FEATURES] >= n_visible and iparams[G.P_DET_THRESHOLD] == 0
                and iparams[G.P_STOCHASTIC] == 0)


# The inputs of grow_forest that shape a tree, in the order the key of shared trees
# (_grow_trees, ``engine.sharing``) digests them: ``feats`` by its digest of the values and
# bins (FeatureArrays.key), ``iparams`` without P_KEEP_TIES (which changes what an
# all-deterministic tree returns, not the tree)
FOREST_KEY_INPUTS = ("feats", "y", "n_classes", "iparams", "seeds", "row_mode", "part",
                     "n_sub", "sample_weight")
# and those that shape no shared tree: ``alphas`` (only all-deterministic forests are kept, and
# a later fit takes tree t at its own alpha), ``n_threads`` (the same trees on any number).
# A new input of grow_forest belongs to one of the two; tests/test_engine_sharing.py checks
# that, and grows two forests in one scope differing in each input of the first alone
FOREST_KEY_IGNORED = ("alphas", "n_threads")


def _grow_trees(one: Callable, feats: FeatureArrays, y32: np.ndarray, n_classes: int,
                iparams: np.ndarray, alphas: np.ndarray, seeds: np.ndarray, row_mode: int,
                part: np.ndarray, n_sub: int, n_threads: int, sw: np.ndarray | None) -> list:
    """Every tree of ``grow_forest`` as ``grow_tree`` returns it (a tree may appear several
    times in the list: trees that draw nothing are grown once)."""
    T = len(seeds)
    d = feats.Xc.shape[0]
    mixed = (alphas > 0.0) & (alphas < 1.0)
    store = sharing.current()
    key = None
    if (store is not None and feats.key and np.any(alphas > 0.0)
            and tests_follow_rows(iparams, n_sub, d)):
        plain = iparams.copy()
        plain[G.P_KEEP_TIES] = 0
        inputs = {"feats": feats.key, "y": y32, "n_classes": n_classes, "iparams": plain,
                  "seeds": np.asarray(seeds, np.uint64), "row_mode": row_mode, "part": part,
                  "n_sub": n_sub, "sample_weight": sw}
        key = sharing.digest(*(inputs[name] for name in FOREST_KEY_INPUTS))
        known = store.forests.peek(key)
        if known is not None:  # the all-deterministic trees of these seeds (engine.sharing)
            store.hits["trees"] += 1
            # each tree's reference layout, made once for every later fit of the scope (a
            # fold batch's nine mixed alphas read the same ones), by the id of a tree of
            # ``known``, which the entry holds so that no id is reused while it lives
            held, refs = store.references.get(key, lambda: (known, {}))
            if held is not known:  # the forest was kept again since: its trees are new
                held, refs = known, {}
                store.references.put(key, (held, refs))

            def with_reference(t: int) -> tuple:
                ref = refs.get(id(known[t]))
                if ref is None:
                    ref = refs.setdefault(id(known[t]), reference_arrays(known[t]))
                return one(t, ref=ref)

            grown = [t for t in range(T) if alphas[t] < 1.0]
            done = dict(zip(grown, run_threads(
                lambda t: with_reference(t) if mixed[t] else one(t), grown, n_threads),
                strict=True))
            return [known[t] if alphas[t] >= 1.0 else done[t] for t in range(T)]
    keep = key is not None and bool(np.all(alphas >= 1.0))
    if keep:  # kept for later fits: each node's ties, which a reference passes on
        iparams = iparams.copy()
        iparams[G.P_KEEP_TIES] = 1
    # a tree that draws nothing is the same whatever its seed: grown once. Trees mixing
    # random and deterministic nodes copy the tests of their deterministic top from that
    # all-deterministic tree (grow_tree's reference tree)
    same = draws_nothing(iparams, alphas, row_mode, n_sub, d)
    saving = float(np.sum(alphas[mixed] / (1.0 - alphas[mixed])))
    use_reference = (saving >= REFERENCE_MIN_SAVING
                     and rows_decide(iparams, row_mode, n_sub, d))
    reference = None
    if same.any() or use_reference:
        # only a reference keeps each node's ties (reference_arrays reads them)
        ref_params = iparams.copy()
        ref_params[G.P_KEEP_TIES] = int(use_reference or keep)
        reference = one(int(np.argmax(same | mixed)), alpha=1.0, ip=ref_params)
    ref = reference_arrays(reference) if use_reference else G.NO_REFERENCE
    grown = [t for t in range(T) if not same[t]]
    done = dict(zip(grown, run_threads(lambda t: one(t, ref=ref, ip=iparams), grown,
                                       n_threads), strict=True))
    trees = [reference if same[t] else done[t] for t in range(T)]
    if keep:
        store.forests.put(key, trees)
    return trees
