"""Label-agreement counts between ensemble members (Cohen's kappa of the diversity workbench).

As a matrix product, agreement between two members' labels needs one product per class (the
identity on C classes has rank C); counting equal labels pair by pair in compiled code costs
the same for any number of classes. Called by :mod:`treelab.analysis.kuncheva`.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from treelab.engine.kernels._config import NUMBA_FLAGS

__all__ = ["label_agreement", "pack_rows", "pair_mean_sums"]


@njit(**NUMBA_FLAGS)
def label_agreement(labels: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Rows on which members t and k give the same label, (tree, tree) int64, from class
    codes (tree, sample) of one integer dtype; the diagonal is the row count."""
    n_trees, n = labels.shape
    out = np.zeros((n_trees, n_trees), np.int64)
    for t in range(n_trees):
        out[t, t] = n
        a = labels[t]
        for k in range(t + 1, n_trees):
            b = labels[k]
            count = 0
            for i in range(n):
                count += np.int32(a[i] == b[i])  # int32 lanes keep the loop vectorised
            out[t, k] = count
            out[k, t] = count
    return out




@intrinsic
def _popcount(typingctx, x):
    """Set bits of a uint64 (LLVM's ctpop: one instruction where the CPU has it)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, args)

    return sig, codegen


def pack_rows(bits: np.ndarray) -> np.ndarray:
    """Booleans (..., sample) as bit sets (..., word) of uint64, 64 rows a word, the unused
    bits of the last word 0."""
    n = bits.shape[-1]
    n_words = max(1, (n + 63) // 64)
    packed = np.packbits(bits, axis=-1, bitorder="little")
    out = np.zeros(bits.shape[:-1] + (n_words * 8,), np.uint8)
    out[..., :packed.shape[-1]] = packed
    return np.ascontiguousarray(out).view(np.uint64)


@njit(**NUMBA_FLAGS)
def pair_mean_sums(right_bits: np.ndarray, code_planes: np.ndarray, n: int,
                   n_right: np.ndarray, share: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Sums over the pairs t < k of Yule's Q, the correlation rho of the oracle outputs and
    Cohen's kappa between the labels, each over the pairs where it is defined, and how many
    pairs those are: two arrays of three (Q, rho, kappa), without any pair matrix.

    ``right_bits`` (tree, word) are the rows each member gets right as bit sets
    (:func:`pack_rows`), so N^11 = popcount(a & b) word by word; ``code_planes`` (tree, plane,
    word) hold bit p of each row's class code in plane p, so two members give different labels
    exactly where some plane differs: the agreement is n - popcount(OR_p (a_p ^ b_p)) (unused
    bits are 0 in every set and never count). ``n_right`` (tree,) float64 are the rows each
    member gets right and ``share`` (tree, class) the share of rows it gives each label. The
    other cells and the formulas are those of ``treelab.analysis.kuncheva.pairwise_stats``
    (0/0 undefined; kappa undefined where p_e is within 1e-12 of 1)."""
    n_trees, n_words = right_bits.shape
    n_planes = code_planes.shape[1]
    n_classes = share.shape[1]
    sums = np.zeros(3)
    counts = np.zeros(3, np.int64)
    nf = float(n)
    for t in range(n_trees):
        a = n_right[t]
        row = np.zeros(3)  # sums of row t first: rounding grows with T, not with T^2
        for k in range(t + 1, n_trees):
            right = 0
            differ = 0
            for w in range(n_words):
                right += _popcount(right_bits[t, w] & right_bits[k, w])
                d = np.uint64(0)
                for p in range(n_planes):
                    d |= code_planes[t, p, w] ^ code_planes[k, p, w]
                differ += _popcount(d)
            same = n - differ
            b = n_right[k]
            n11 = float(right)
            n10 = a - n11
            n01 = b - n11
            n00 = nf - a - b + n11
            num = n11 * n00 - n01 * n10
            den_q = n11 * n00 + n01 * n10
            if den_q != 0.0:
                row[0] += num / den_q
                counts[0] += 1
            den_r = np.sqrt(a * (nf - a) * b * (nf - b))
            if den_r != 0.0:
                row[1] += num / den_r
                counts[1] += 1
            p_e = 0.0
            for c in range(n_classes):
                p_e += share[t, c] * share[k, c]
            if abs(p_e - 1.0) > 1e-12:
                row[2] += (same / nf - p_e) / (1.0 - p_e)
                counts[2] += 1
        for m in range(3):
            sums[m] += row[m]
    return sums, counts
