"""The split search of a regression node over its weighted target sums (the node statistics
of ``_regression_node``, for ``_grow.grow_tree``'s regression version): thresholds on
continuous features, with the node's missing rows sent to the side the criterion prefers, and
the multiway split of a nominal feature, one child per code.

Every split is scored by the proxy ``split_score`` sums over the children: the sum over the
children of S^2 / W (squared error) or of S log(S / W) (half Poisson deviance), S the summed
w y and W the summed w of a child; the node's own term is the same for every split of the node,
so binary and multiway splits compare on one scale (the impurity reduction less a constant).

Missing values of a continuous feature (NaN; their rank is the feature's number of distinct
values, ``engine.features``) follow scikit-learn's ``DecisionTreeRegressor`` (version >= 1.8):
every threshold between two consecutive distinct non-missing values is scored with the missing
rows in the right child, then with them in the left child, and then the split of the
non-missing rows (left, threshold +inf) from the missing ones (right); the first best in that
order is kept, so missing rows go left only where that is strictly better. A feature whose
non-missing values are all equal at the node is available where the node has missing rows of
it: its one split is the non-missing rows against the missing ones (scikit-learn >= 1.8, which
skipped such a feature as constant before: its issue 32272); without missing rows, or with no
non-missing value, it is not. Node sizes for ``min_samples_leaf`` count the missing rows in
their child.
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from treelab.engine.kernels._config import inner
from treelab.engine.kernels._split import row_of, wt_of

# scikit-learn's EPSILON for the Poisson criterion: a child whose summed w y is at most this
# cannot be split off (its mean is 0, its deviance undefined)
POISSON_EPS = np.finfo(np.float64).eps
_LOW32 = np.int64(0xFFFFFFFF)
# where a threshold split sends the node's missing rows: right, left, or the split of the
# non-missing rows (left, threshold +inf) from the missing ones (right)
NAN_RIGHT = 0
NAN_LEFT = 1
NAN_APART = 2
# a node's ranks are walked in per-rank chains (``best_exact_split``) rather than sorted where
# their span is at most this many ranks per row plus CHAIN_SPAN_MIN: every node of a binned
# feature (at most 256 codes), and an exact feature's nodes whose values are dense enough
CHAIN_SPAN_PER_ROW = 8
CHAIN_SPAN_MIN = 256
# nodes of at most this many rows sort their few keys by insertion instead (12 while the
# chains cleared and scanned a head per rank of the span; with the bitmap of ranks present,
# 8 and 4 took 9% less CPU than 12 at 40,000 x 20, binned, 8 trees: paired, one process)
INSERTION_MAX_ROWS = 8


@inner
def split_score(sl, wl, sr, wr, poisson):
    """The proxy of a split's impurity reduction that the search maximises (the reduction less
    terms equal for every split of the node).

    Squared error: SL^2 / WL + SR^2 / WR, with S the summed w y and W the summed w of a child
    (the reduction of the weighted sum of squares is this less S^2 / W of the node). Poisson:
    SL log(SL / WL) + SR log(SR / WR), the reduction of the half Poisson deviance
    sum w (y log(y / mu) - y + mu) less the node's term; -inf where a child's S <= eps (its
    mean is 0), as scikit-learn's ``PoissonCriterion.proxy_impurity_improvement``.
    """
    if poisson:
        if sl <= POISSON_EPS or sr <= POISSON_EPS:
            return -np.inf
        return sl * np.log(sl / wl) + sr * np.log(sr / wr)
    return sl * sl / wl + sr * sr / wr


@inner
def child_term(sb, wb, poisson):
    """One child's term of ``split_score`` (-inf for a Poisson child of mean 0)."""
    if poisson:
        if sb <= POISSON_EPS:
            return -np.inf
        return sb * np.log(sb / wb)
    return sb * sb / wb


@inner
def _both_sides(sl, wl, ml, W, S, M, Wn, Sn, Mn, min_leaf, poisson):
    """Scores of one threshold with the missing rows (Wn, Sn, Mn) right and left; (sl, wl,
    ml) the non-missing rows at or below it. -inf where a child would hold fewer than
    ``min_leaf`` rows, or (left) where there are no missing rows."""
    right = -np.inf
    left = -np.inf
    if ml >= min_leaf and M - ml >= min_leaf:
        right = split_score(sl, wl, S - sl, W - wl, poisson)
    if Mn > 0 and ml + Mn >= min_leaf and M - ml - Mn >= min_leaf:
        left = split_score(sl + Sn, wl + Wn, S - sl - Sn, W - wl - Wn, poisson)
    return right, left


@inner
def _keep_best(sl, wl, ml, r_lo, r_hi, best_r, lo_r, hi_r, best_l, lo_l, hi_l, W, S, M, Wn,
               Sn, Mn, min_leaf, poisson):
    """The threshold between ranks ``r_lo`` and ``r_hi`` (non-missing rows at or below it:
    sl, wl, ml) against the best so far with the missing rows right and left: the first best
    of each is kept (a strictly larger score replaces it)."""
    right, left = _both_sides(sl, wl, ml, W, S, M, Wn, Sn, Mn, min_leaf, poisson)
    if right > best_r:
        best_r = right
        lo_r = r_lo
        hi_r = r_hi
    if left > best_l:
        best_l = left
        lo_l = r_lo
        hi_l = r_hi
    return best_r, lo_r, hi_r, best_l, lo_l, hi_l


@inner
def _resolve(best_r, lo_r, hi_r, best_l, lo_l, hi_l, W, S, M, Wn, Sn, Mn, min_leaf, poisson):
    """The first best of (missing right at their best threshold, missing left at theirs,
    missing apart): (found, score, rank below, rank above, where missing rows go)."""
    found = best_r > -np.inf
    best = best_r
    r_lo = lo_r
    r_hi = hi_r
    mode = NAN_RIGHT
    if best_l > best:
        found = True
        best = best_l
        r_lo = lo_l
        r_hi = hi_l
        mode = NAN_LEFT
    if Mn > 0 and M - Mn >= min_leaf and Mn >= min_leaf:
        score = split_score(S - Sn, W - Wn, Sn, Wn, poisson)
        if score > best:
            found = True
            best = score
            mode = NAN_APART
    return found, best, r_lo, r_hi, mode


@inner
def best_exact_split(f, nd_f, rows, s, e, R, nw, ny, nm, W, S, M, min_leaf, poisson, keys, hw,
                     hs, hm):
    """Best exact split of the node's rows ``rows[s:e]`` on continuous feature f.

    ``nw``, ``ny``, ``nm``: each node position's weight, target and multiplicity; ``W``, ``S``,
    ``M``: their sums (w, w y, multiplicity). Every boundary between two consecutive distinct
    ranks ``R[f, row]`` present at the node is scored (``split_score``) with the missing rows
    (rank ``nd_f``) on either side (module docstring); ties keep the lowest threshold. The
    node's rows are summarised per rank in the dense histograms ``hw``, ``hs``, ``hm`` when
    their ranks span at most 2 m + 16 values (m the node's rows: bin codes, the top of the
    tree), else walked in increasing rank in per-rank chains of positions (``hm`` the chains'
    heads followed by a bitmap of the ranks present, ``keys`` their links) where the span is
    at most ``CHAIN_SPAN_PER_ROW`` m + ``CHAIN_SPAN_MIN`` and the node holds more than
    ``INSERTION_MAX_ROWS`` rows, else sorted by rank (``keys``; by insertion up to
    ``INSERTION_MAX_ROWS`` rows); the chains and the sort sum the rows in one order (rank,
    then position), so they find the same split bit for bit.
    Returns (available, found, score, rank below, rank above, where missing rows go):
    available when f takes two distinct non-missing values at the node, or one and the node
    has missing rows of f.
    """
    m = e - s
    # the node's ranks gathered once (one pass of scattered reads), then read in place; the
    # missing rows' sums apart
    lo = nd_f
    hi = np.int64(-1)
    Wn = 0.0
    Sn = 0.0
    Mn = np.int64(0)
    for j in range(m):
        r = np.int64(R[f, row_of(rows[s + j])])
        keys[j] = r
        if r == nd_f:
            Wn += nw[j]
            Sn += nw[j] * ny[j]
            Mn += nm[j]
            continue
        if r < lo:
            lo = r
        if r > hi:
            hi = r
    # no non-missing value, or one and no missing row: no split (with missing rows, one value
    # still splits them off: no threshold below, only the split apart in _resolve)
    if hi < lo or (hi == lo and Mn == 0):
        return False, False, -np.inf, 0, 0, NAN_RIGHT
    best_r = -np.inf
    best_l = -np.inf
    lo_r = np.int64(0)
    hi_r = np.int64(0)
    lo_l = np.int64(0)
    hi_l = np.int64(0)
    wl = 0.0
    sl = 0.0
    ml = np.int64(0)
    span = hi - lo + 1
    if span <= 2 * m + 16:
        for k in range(span):
            hw[k] = 0.0
            hs[k] = 0.0
            hm[k] = 0
        for j in range(m):
            if keys[j] == nd_f:
                continue
            k = keys[j] - lo
            hw[k] += nw[j]
            hs[k] += nw[j] * ny[j]
            hm[k] += nm[j]
        prev = np.int64(-1)
        for k in range(span):
            if hm[k] == 0:
                continue
            if prev >= 0:
                best_r, lo_r, hi_r, best_l, lo_l, hi_l = _keep_best(
                    sl, wl, ml, prev + lo, k + lo, best_r, lo_r, hi_r, best_l, lo_l, hi_l,
                    W, S, M, Wn, Sn, Mn, min_leaf, poisson)
            wl += hw[k]
            sl += hs[k]
            ml += hm[k]
            prev = k
    elif m > INSERTION_MAX_ROWS and span + (span >> 6) + 1 <= hm.shape[0] and span <= (
            CHAIN_SPAN_PER_ROW * m + CHAIN_SPAN_MIN):
        # a chain of rows per rank (hm[k]: the first position of rank lo + k, keys[j]: the
        # next position of j's rank, -1 at the end), built from the last position down so
        # each chain runs in increasing position: walked rank by rank, the rows are summed
        # in the order of the sort below (rank, then position), so the sums and the split
        # are the sort's bit for bit, at O(m + span / 64) instead of O(m log m). The ranks
        # present are bits of a bitmap behind the heads (hm[span:], one word per 64 ranks):
        # only the heads of present ranks are written, and the walk visits the set bits in
        # increasing order, so a node of 20 rows over 255 bin codes touches a few words
        # instead of clearing and scanning 255 heads
        n_words = (span + 63) >> 6
        for b in range(n_words):
            hm[span + b] = 0
        for j in range(m - 1, -1, -1):
            r = keys[j]
            if r == nd_f:
                continue
            k = r - lo
            bit = np.int64(1) << (k & 63)
            word = hm[span + (k >> 6)]
            keys[j] = hm[k] if word & bit else np.int64(-1)
            hm[span + (k >> 6)] = word | bit
            hm[k] = j
        prev = np.int64(-1)
        for b in range(n_words):
            word = hm[span + b]
            while word != 0:
                k = (np.int64(b) << 6) + trailing_zeros(word)
                word &= word - 1
                j = hm[k]
                if prev >= 0:
                    best_r, lo_r, hi_r, best_l, lo_l, hi_l = _keep_best(
                        sl, wl, ml, prev + lo, k + lo, best_r, lo_r, hi_r, best_l, lo_l,
                        hi_l, W, S, M, Wn, Sn, Mn, min_leaf, poisson)
                while j >= 0:
                    wl += nw[j]
                    sl += nw[j] * ny[j]
                    ml += nm[j]
                    j = keys[j]
                prev = k
    else:
        for j in range(m):
            keys[j] = (keys[j] << 32) | np.int64(j)
        ks = keys[:m]
        if m <= INSERTION_MAX_ROWS:
            # the keys are distinct (their low bits the position): any sort orders them alike
            for a in range(1, m):
                v = ks[a]
                b = a - 1
                while b >= 0 and ks[b] > v:
                    ks[b + 1] = ks[b]
                    b -= 1
                ks[b + 1] = v
        else:
            ks.sort()
        # the missing rows (the largest rank) sort last
        m_in = m
        while m_in > 0 and (ks[m_in - 1] >> 32) == nd_f:
            m_in -= 1
        for k in range(m_in - 1):
            j = ks[k] & _LOW32
            wl += nw[j]
            sl += nw[j] * ny[j]
            ml += nm[j]
            rk = ks[k] >> 32
            rk1 = ks[k + 1] >> 32
            if rk == rk1:
                continue
            best_r, lo_r, hi_r, best_l, lo_l, hi_l = _keep_best(
                sl, wl, ml, rk, rk1, best_r, lo_r, hi_r, best_l, lo_l, hi_l,
                W, S, M, Wn, Sn, Mn, min_leaf, poisson)
    found, best, r_lo, r_hi, mode = _resolve(best_r, lo_r, hi_r, best_l, lo_l, hi_l, W, S, M,
                                             Wn, Sn, Mn, min_leaf, poisson)
    return True, found, best, r_lo, r_hi, mode


@inner
def best_list_split(lists, q, nd_f, s, e, wrow, y, mult, W, S, M, min_leaf, poisson):
    """``best_exact_split`` reading the node's segment ``[s, e)`` of presorted list q
    (``_presort``: entries rank << 32 | row, in increasing rank order, missing rows last), with
    each row's weight ``wrow``, target ``y`` and multiplicity ``mult``: no sort."""
    Wn = 0.0
    Sn = 0.0
    Mn = np.int64(0)
    e_in = e
    while e_in > s and (lists[q, e_in - 1] >> 32) == nd_f:
        row = lists[q, e_in - 1] & _LOW32
        Wn += wrow[row]
        Sn += wrow[row] * y[row]
        Mn += mult[row]
        e_in -= 1
    # (as best_exact_split: one non-missing value splits off the missing rows, if any)
    if e_in == s or (Mn == 0 and (lists[q, s] >> 32) == (lists[q, e_in - 1] >> 32)):
        return False, False, -np.inf, 0, 0, NAN_RIGHT
    best_r = -np.inf
    best_l = -np.inf
    lo_r = np.int64(0)
    hi_r = np.int64(0)
    lo_l = np.int64(0)
    hi_l = np.int64(0)
    wl = 0.0
    sl = 0.0
    ml = np.int64(0)
    for j in range(s, e_in - 1):
        entry = lists[q, j]
        row = entry & _LOW32
        wl += wrow[row]
        sl += wrow[row] * y[row]
        ml += mult[row]
        rk = entry >> 32
        rk1 = lists[q, j + 1] >> 32
        if rk == rk1:
            continue
        best_r, lo_r, hi_r, best_l, lo_l, hi_l = _keep_best(
            sl, wl, ml, rk, rk1, best_r, lo_r, hi_r, best_l, lo_l, hi_l,
            W, S, M, Wn, Sn, Mn, min_leaf, poisson)
    found, best, r_lo, r_hi, mode = _resolve(best_r, lo_r, hi_r, best_l, lo_l, hi_l, W, S, M,
                                             Wn, Sn, Mn, min_leaf, poisson)
    return True, found, best, r_lo, r_hi, mode


@inner
def score_value_threshold(f, t, rows, s, e, Xc, nw, ny, nm, W, S, M, min_leaf, poisson):
    """(found, score, missing rows left) of the split x_f <= t (Extra-Trees' random
    threshold), the node's missing rows on the side of the better score (right on a tie): not
    found when a child would hold fewer than ``min_leaf`` rows either way."""
    wl = 0.0
    sl = 0.0
    ml = 0
    Wn = 0.0
    Sn = 0.0
    Mn = 0
    for j in range(e - s):
        v = Xc[f, row_of(rows[s + j])]
        if v <= t:
            wl += nw[j]
            sl += nw[j] * ny[j]
            ml += nm[j]
        elif v != v:
            Wn += nw[j]
            Sn += nw[j] * ny[j]
            Mn += nm[j]
    right, left = _both_sides(sl, wl, ml, W, S, M, Wn, Sn, Mn, min_leaf, poisson)
    if left > right:
        return True, left, True
    return right > -np.inf, right, False


@inner
def summarize_codes(f, arity, rows, s, e, Xc, sw, y, hw, hs, hm):
    """Sums per code 0..arity-1 of nominal feature f at the node (``hw``: w, ``hs``: w y,
    ``hm``: rows with multiplicity), w a row's multiplicity times its sample weight ``sw``;
    returns the missing rows' (W, S, M) and the number of codes present."""
    for b in range(arity):
        hw[b] = 0.0
        hs[b] = 0.0
        hm[b] = 0
    Wn = 0.0
    Sn = 0.0
    Mn = np.int64(0)
    for j in range(e - s):
        p = rows[s + j]
        r = row_of(p)
        mj = wt_of(p)
        wj = mj * sw[r]
        v = Xc[f, r]
        if np.isnan(v):
            Wn += wj
            Sn += wj * y[r]
            Mn += mj
        else:
            b = np.int64(v)
            hw[b] += wj
            hs[b] += wj * y[r]
            hm[b] += mj
    present = 0
    for b in range(arity):
        if hm[b] > 0:
            present += 1
    return Wn, Sn, Mn, present


@inner
def largest_code(arity, hm):
    """The code with the most rows (the first on a tie): the child that missing values follow
    where the node had none, as the classifiers' nominal tests."""
    best_b = 0
    for b in range(arity):
        if hm[b] > hm[best_b]:
            best_b = b
    return best_b


@inner
def best_nominal_split(arity, hw, hs, hm, Wn, Sn, Mn, min_leaf, poisson):
    """Best multiway split on a nominal feature summarised by ``summarize_codes`` (at least two
    codes present): one child per code, the missing rows tried in every non-empty child (the
    first best kept, as the classifiers' ``_nominal.eval_nominal``). Returns (found, score,
    the child of the missing rows); not found where a non-empty child would hold fewer than
    ``min_leaf`` rows wherever the missing rows go."""
    best = -np.inf
    best_b = -1
    n_try = arity if Mn > 0 else 1
    for target in range(n_try):
        if Mn > 0 and hm[target] == 0:
            continue
        score = 0.0
        ok = True
        for b in range(arity):
            wb = hw[b]
            sb = hs[b]
            mb = hm[b]
            if Mn > 0 and b == target:
                wb += Wn
                sb += Sn
                mb += Mn
            if mb == 0:
                continue
            if mb < min_leaf:
                ok = False
                break
            score += child_term(sb, wb, poisson)
        if ok and score > best:
            best = score
            best_b = target
    if best == -np.inf:
        return False, -np.inf, -1
    if Mn == 0:
        best_b = largest_code(arity, hm)
    return True, best, best_b

