"""Slow, obviously correct references for the analysis measures and combination functions.

Written straight from spec/analysis.md and spec/algorithms.md section 4 with plain Python loops
(pairs, trees, rows), sharing no code with treelab. Inputs are lists/arrays of class codes.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

# ----------------------------------------------------------------------------- errors, phi


def member_errors(L, y):
    T, n = len(L), len(y)
    return [sum(1 for i in range(n) if L[t][i] != y[i]) / n for t in range(T)]


def vote_label(column, C):
    """Uniform vote on one row, ties to the lowest class index."""
    votes = [0] * C
    for lab in column:
        votes[lab] += 1
    best = max(votes)
    return votes.index(best)


def vote_error(L, y, C):
    n = len(y)
    wrong = 0
    for i in range(n):
        if vote_label([row[i] for row in L], C) != y[i]:
            wrong += 1
    return wrong / n


def phi_e(L, y):
    T, n = len(L), len(y)
    if T < 2:
        return math.nan
    total = 0.0
    pairs = 0
    for a in range(T):
        for b in range(a + 1, T):
            same_wrong = sum(1 for i in range(n) if L[a][i] == L[b][i] and L[a][i] != y[i])
            total += same_wrong / n
            pairs += 1
    return total / pairs


def phi_star(L, y, C):
    T, n = len(L), len(y)
    if T < 2:
        return math.nan
    total = 0.0
    pairs = 0
    for a in range(T):
        for b in range(a + 1, T):
            s = 0.0
            for k in range(C):
                rows = [i for i in range(n) if y[i] == k]
                if not rows:
                    continue
                pk = len(rows) / n
                inner = 0.0
                for lab in range(C):
                    if lab == k:
                        continue
                    pa = sum(1 for i in rows if L[a][i] == lab) / len(rows)
                    pb = sum(1 for i in rows if L[b][i] == lab) / len(rows)
                    inner += pa * pb
                s += pk * inner
            total += s
            pairs += 1
    return total / pairs


# ----------------------------------------------------------------------------- strength


def strength(L, y, C):
    """Exact rational arithmetic (fractions) for margins, s, var(s), p1 and p2."""
    T, n = len(L), len(y)
    C = max(C, 2)
    margins, rivals = [], []
    for i in range(n):
        votes = [0] * C
        for t in range(T):
            votes[L[t][i]] += 1
        best_c, best_v = None, -1
        for c in range(C):
            if c != y[i] and votes[c] > best_v:
                best_c, best_v = c, votes[c]
        rivals.append(best_c)
        margins.append(Fraction(votes[y[i]], T) - Fraction(votes[best_c], T))
    s = sum(margins) / n
    var = sum(m * m for m in margins) / n - s * s
    sds = []
    for t in range(T):
        p1 = Fraction(sum(1 for i in range(n) if L[t][i] == y[i]), n)
        p2 = Fraction(sum(1 for i in range(n) if L[t][i] == rivals[i]), n)
        sds.append(math.sqrt(p1 + p2 - (p1 - p2) ** 2))
    mean_sd = sum(sds) / T
    rho = float(var) / mean_sd**2 if mean_sd > 0 else math.nan
    bound = rho * float(1 - s * s) / float(s * s) if s > 0 else math.nan
    return {
        "strength": float(s),
        "correlation": rho,
        "breiman_bound": bound,
        "margin": [float(m) for m in margins],
    }


# ----------------------------------------------------------------------------- arrangements


def independent_error(e):
    """P(more than floor(T/2) members err), errors independent; DP over members."""
    T = len(e)
    dist = [1.0]
    for p in e:
        new = [0.0] * (len(dist) + 1)
        for j, q in enumerate(dist):
            new[j] += q * (1 - p)
            new[j + 1] += q * p
        dist = new
    return sum(dist[T // 2 + 1 :])


def optimal_error_bruteforce(k, n):
    """Fewest rows with > floor(T/2) errors over every placement of each member's k_t errors."""
    T = len(k)
    m = T // 2
    best = n
    for choice in itertools.product(*[itertools.combinations(range(n), kt) for kt in k]):
        per_row = [0] * n
        for rows in choice:
            for r in rows:
                per_row[r] += 1
        best = min(best, sum(1 for c in per_row if c > m))
    return best / n


# ----------------------------------------------------------------------------- probabilities


def thresholded_se(p_row, t, v):
    ratio = 1.0 if p_row[t] >= v else p_row[t] / v
    return (1.0 - min(1.0, ratio)) ** 2


def kth_highest(p_row, k):
    s = sorted(p_row, reverse=True)
    return s[k - 1] if k <= len(s) else 0.0


def thresholded_mse(P, y, name_or_v):
    n = len(y)
    total = 0.0
    for i in range(n):
        if isinstance(name_or_v, str):
            if name_or_v == "1.0":
                v = 1.0
            elif name_or_v == "bayes":
                v = 0.5
            else:
                v = kth_highest(P[i], int(name_or_v[3:]))
        else:
            v = name_or_v[i]
        total += thresholded_se(P[i], y[i], v)
    return total / n


def exact_mse(P, Q):
    n = len(P)
    return sum(sum((Q[i][c] - P[i][c]) ** 2 for c in range(len(P[i]))) for i in range(n)) / n


def topk_error(P, y, k):
    n = len(y)
    wrong = 0
    for i in range(n):
        order = sorted(range(len(P[i])), key=lambda c: (-P[i][c], c))
        if y[i] not in order[:k]:
            wrong += 1
    return wrong / n


def reliability_uniform(P, y, bins):
    n, C = len(P), len(P[0])
    mean_p = np.full((C, bins), np.nan)
    freq = np.full((C, bins), np.nan)
    count = np.zeros((C, bins), dtype=int)
    for c in range(C):
        for b in range(bins):
            lo, hi = b / bins, (b + 1) / bins
            members = [
                i for i in range(n) if (lo <= P[i][c] < hi) or (b == bins - 1 and P[i][c] == 1.0)
            ]
            count[c, b] = len(members)
            if members:
                mean_p[c, b] = sum(P[i][c] for i in members) / len(members)
                freq[c, b] = sum(1 for i in members if y[i] == c) / len(members)
    return mean_p, freq, count


def profit(P, y, benefit, cost, positive):
    total = 0.0
    for i in range(len(y)):
        if P[i][positive] * benefit[i] > cost[i]:
            total += (benefit[i] if y[i] == positive else 0.0) - cost[i]
    return total


def bias_variance(probas, target):
    K, n, C = len(probas), len(target), len(target[0])
    bias, var, loss = [], [], []
    for i in range(n):
        main = [sum(probas[k][i][c] for k in range(K)) / K for c in range(C)]
        bias.append(sum((target[i][c] - main[c]) ** 2 for c in range(C)))
        var.append(
            sum(sum((probas[k][i][c] - main[c]) ** 2 for c in range(C)) for k in range(K)) / K
        )
        loss.append(
            sum(sum((target[i][c] - probas[k][i][c]) ** 2 for c in range(C)) for k in range(K)) / K
        )
    return bias, var, loss


# ----------------------------------------------------------------------------- combination


def leaf_probability(counts_row, laplace=False):
    C = len(counts_row)
    n = sum(counts_row)
    if laplace:
        return [(x + 1) / (n + C) for x in counts_row]
    if n == 0:
        return [1.0 / C] * C
    return [x / n for x in counts_row]


def average(counts, laplace=False):
    T, n, C = len(counts), len(counts[0]), len(counts[0][0])
    out = np.zeros((n, C))
    for i in range(n):
        for t in range(T):
            out[i] += np.array(leaf_probability(list(counts[t][i]), laplace)) / T
    return out


def vote_predict(counts):
    T, n, C = len(counts), len(counts[0]), len(counts[0][0])
    out = []
    for i in range(n):
        votes = [0] * C
        summed = [0.0] * C
        for t in range(T):
            row = list(counts[t][i])
            votes[row.index(max(row))] += 1
            for c, p in enumerate(leaf_probability(row)):
                summed[c] += p
        cands = [c for c in range(C) if votes[c] == max(votes)]
        best = max(summed[c] for c in cands)
        out.append(min(c for c in cands if summed[c] >= best - 1e-9))
    return out


def distribution_sum(counts):
    T, n, C = len(counts), len(counts[0]), len(counts[0][0])
    out = np.zeros((n, C))
    for i in range(n):
        tot = [sum(counts[t][i][c] for t in range(T)) for c in range(C)]
        out[i] = leaf_probability(tot)
    return out


def likelihood(counts, totals):
    T, n, C = len(counts), len(counts[0]), len(counts[0][0])
    mean_tot = [sum(totals[t][c] for t in range(T)) / T for c in range(C)]
    out = np.zeros((n, C))
    for i in range(n):
        post = []
        for c in range(C):
            prior = (mean_tot[c] + 1) / (sum(mean_tot) + C)
            odds = prior / (1 - prior) if C > 1 else 1.0
            for t in range(T):
                n_leaf = sum(counts[t][i])
                N = sum(totals[t])
                p_in_c = (counts[t][i][c] + 1) / (totals[t][c] + 2)
                p_in_not = (n_leaf - counts[t][i][c] + 1) / (N - totals[t][c] + 2)
                odds *= p_in_c / p_in_not
            post.append(odds / (1 + odds))
        s = sum(post)
        out[i] = [p / s for p in post]
    return out


def log_evidence(leaves_per_tree):
    """leaves_per_tree: list (tree) of lists of leaf count vectors."""
    out = []
    for leaves in leaves_per_tree:
        total = 0.0
        for counts in leaves:
            C = len(counts)
            total += math.lgamma(C) - math.lgamma(sum(counts) + C)
            total += sum(math.lgamma(x + 1) for x in counts)
        out.append(total)
    return out


def bayesian(counts, log_ev):
    T, n, C = len(counts), len(counts[0]), len(counts[0][0])
    mx = max(log_ev)
    w = [math.exp(v - mx) for v in log_ev]
    s = sum(w)
    w = [x / s for x in w]
    out = np.zeros((n, C))
    for i in range(n):
        for t in range(T):
            out[i] += w[t] * np.array(leaf_probability(list(counts[t][i]), laplace=True))
    return out


# ----------------------------------------------------------------------------- strategies

try:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    st = hnp = None

if st is not None:

    @st.composite
    def member_problem(draw, max_trees=6, max_samples=12, max_classes=4):
        """(L (tree, sample), y (sample,), C) with ties, absent classes and edge cases."""
        C = draw(st.integers(1, max_classes))
        T = draw(st.integers(1, max_trees))
        n = draw(st.integers(1, max_samples))
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, C - 1)))
        kind = draw(st.sampled_from(["random", "random", "random", "right", "wrong", "same"]))
        if kind == "right":
            L = np.tile(y, (T, 1))
        elif kind == "wrong" and C > 1:
            L = (y[None, :] + draw(st.integers(1, C - 1))) % C + np.zeros((T, 1), dtype=np.int64)
        elif kind == "same":
            row = draw(hnp.arrays(np.int64, n, elements=st.integers(0, C - 1)))
            L = np.tile(row, (T, 1))
        else:
            L = draw(hnp.arrays(np.int64, (T, n), elements=st.integers(0, C - 1)))
        return L, y, C

    @st.composite
    def proba_problem(draw, max_samples=12, max_classes=5):
        """(P (sample, class), y (sample,)) with rows summing to 1 and frequent ties."""
        C = draw(st.integers(1, max_classes))
        n = draw(st.integers(1, max_samples))
        raw = draw(hnp.arrays(np.int64, (n, C), elements=st.integers(0, 4)))
        raw[raw.sum(axis=1) == 0, 0] = 1
        P = raw / raw.sum(axis=1, keepdims=True)
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, C - 1)))
        return P, y

    @st.composite
    def counts_problem(draw, max_trees=5, max_samples=6, max_classes=4):
        """Leaf counts (tree, sample, class) as small integers stored as floats."""
        C = draw(st.integers(1, max_classes))
        T = draw(st.integers(1, max_trees))
        n = draw(st.integers(1, max_samples))
        counts = draw(hnp.arrays(np.int64, (T, n, C), elements=st.integers(0, 6)))
        return counts.astype(np.float64)


# ------------------------------------------------------- independent voting error, any C


def member_vote_model(L, y, C, n_known=None):
    """P(member t votes l | true class k) under the independence model of error_arrangement:
    correct with 1 - e_t (e_t over all rows); a wrong vote splits as t's wrong votes on rows
    of class k, else as its wrong votes of other classes l != k, else uniformly over the
    classes l != k below ``n_known`` (classes from there on are test classes no member saw)."""
    T, n = len(L), len(y)
    n_known = C if n_known is None else n_known
    model = [[[0.0] * C for _ in range(C)] for _ in range(T)]
    for t in range(T):
        e = sum(1 for i in range(n) if L[t][i] != y[i]) / n
        for k in range(C):
            on_k = [0] * C
            anywhere = [0] * C
            for i in range(n):
                if L[t][i] != y[i]:
                    anywhere[L[t][i]] += 1
                    if y[i] == k:
                        on_k[L[t][i]] += 1
            anywhere[k] = 0
            split = on_k if sum(on_k) else anywhere
            if sum(split) == 0:
                split = [0 if l == k or l >= n_known else 1 for l in range(C)]
            # with no class to err to, t votes k
            model[t][k][k] = 1.0 - e if sum(split) else 1.0
            for l in range(C):
                if l != k and sum(split):
                    model[t][k][l] += e * split[l] / sum(split)
    return model


def independent_vote_error_bruteforce(L, y, C, n_known=None):
    """Sum over every combination of member votes: the true class must win (most votes; a tie
    goes to the lower class index), weighted by p(y = k) from the rows; a class from
    ``n_known`` on, which no member saw, is lost."""
    T, n = len(L), len(y)
    n_known = C if n_known is None else n_known
    model = member_vote_model(L, y, C, n_known)
    total = 0.0
    for k in range(C):
        share = sum(1 for v in y if v == k) / n
        if share == 0:
            continue
        if k >= n_known:  # no member can vote it
            total += share
            continue
        lost = 0.0
        for combo in itertools.product(range(C), repeat=T):
            p = 1.0
            for t, c in enumerate(combo):
                p *= model[t][k][c]
            if p == 0.0:
                continue
            votes = [combo.count(c) for c in range(C)]
            winner = max(range(C), key=lambda c: (votes[c], -c))
            if winner != k:
                lost += p
        total += share * lost
    return total


def thresholded_mse_any_c(P, y, name_or_v):
    """Thresholded MSE where "bayes" is the 0-1 decision for any number of classes: v = 0.5
    for two classes, else the largest probability of another class."""
    if name_or_v != "bayes" or len(P[0]) <= 2:
        return thresholded_mse(P, y, name_or_v)
    total = 0.0
    for i in range(len(y)):
        v = max(P[i][c] for c in range(len(P[i])) if c != y[i])
        total += thresholded_se(P[i], y[i], v)
    return total / len(y)


def cost_thresholds(y, benefit, cost, positive):
    """Threshold of the true class: c / a for positive rows, 1 - c / a for the others."""
    out = []
    for yi, a, c in zip(y, benefit, cost, strict=True):
        r = c / a if a > 0 else float("inf")
        v = r if yi == positive else 1.0 - r
        out.append(min(1.0, max(0.0, v)))
    return out


def strength_oob(L, y, C, in_bag):
    """Out-of-bag strength and correlation: row i scored only by the trees t with
    in_bag[t][i] == 0; p1_t, p2_t over the rows tree t did not see (loops, fractions)."""
    T, n = len(L), len(y)
    C = max(C, 2)
    rows, margins, rivals = [], [], {}
    for i in range(n):
        oob = [t for t in range(T) if in_bag[t][i] == 0]
        if not oob:
            continue
        votes = [0] * C
        for t in oob:
            votes[L[t][i]] += 1
        best_c, best_v = None, -1
        for c in range(C):
            if c != y[i] and votes[c] > best_v:
                best_c, best_v = c, votes[c]
        rivals[i] = best_c
        rows.append(i)
        margins.append(Fraction(votes[y[i]] - votes[best_c], len(oob)))
    if not rows:
        return {"strength": math.nan, "correlation": math.nan, "n_rows": 0}
    s = sum(margins) / len(rows)
    var = sum(m * m for m in margins) / len(rows) - s * s
    sds = []
    for t in range(T):
        mine = [i for i in rows if in_bag[t][i] == 0]
        if not mine:
            continue
        p1 = Fraction(sum(1 for i in mine if L[t][i] == y[i]), len(mine))
        p2 = Fraction(sum(1 for i in mine if L[t][i] == rivals[i]), len(mine))
        sds.append(math.sqrt(p1 + p2 - (p1 - p2) ** 2))
    mean_sd = sum(sds) / len(sds)
    rho = float(var) / mean_sd**2 if mean_sd > 0 else math.nan
    return {"strength": float(s), "correlation": rho, "n_rows": len(rows),
            "margin": [float(m) for m in margins]}


def profit_estimated(P, y, benefit, cost, positive, decision_benefit):
    """Decide with the estimated benefit, pay out the realised one."""
    total = 0.0
    for i in range(len(y)):
        if P[i][positive] * decision_benefit[i] > cost[i]:
            total += (benefit[i] if y[i] == positive else 0.0) - cost[i]
    return total
# ------------------------------------------------------ Kuncheva & Whitaker (2003) diversity


def _ratio(num, den):
    return num / den if den != 0 else math.nan


def pair_table(L, y, t, k):
    """(N11, N10, N01, N00) for members t and k by a loop over rows."""
    n11 = n10 = n01 = n00 = 0
    for i in range(len(y)):
        a, b = L[t][i] == y[i], L[k][i] == y[i]
        if a and b:
            n11 += 1
        elif a:
            n10 += 1
        elif b:
            n01 += 1
        else:
            n00 += 1
    return n11, n10, n01, n00


def pairwise(L, y, C):
    """Dict of T x T nested lists: Q, rho, disagreement, double fault, label kappa."""
    T, n = len(L), len(y)
    out = {k: [[0.0] * T for _ in range(T)] for k in
           ("q_statistic", "correlation", "disagreement", "double_fault", "kappa")}
    for t in range(T):
        for k in range(T):
            n11, n10, n01, n00 = pair_table(L, y, t, k)
            out["q_statistic"][t][k] = _ratio(n11 * n00 - n01 * n10, n11 * n00 + n01 * n10)
            den = math.sqrt((n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00))
            out["correlation"][t][k] = _ratio(n11 * n00 - n01 * n10, den)
            out["disagreement"][t][k] = (n01 + n10) / n
            out["double_fault"][t][k] = n00 / n
            p_o = sum(1 for i in range(n) if L[t][i] == L[k][i]) / n
            p_e = sum((sum(1 for i in range(n) if L[t][i] == c) / n)
                      * (sum(1 for i in range(n) if L[k][i] == c) / n) for c in range(C))
            out["kappa"][t][k] = math.nan if abs(1 - p_e) < 1e-12 else (p_o - p_e) / (1 - p_e)
    return out


def pair_average(M):
    vals = [M[t][k] for t in range(len(M)) for k in range(t + 1, len(M))]
    vals = [v for v in vals if not math.isnan(v)]
    return sum(vals) / len(vals) if vals else math.nan


def nonpairwise(L, y):
    """Kuncheva & Whitaker's non-pairwise measures by loops over rows."""
    T, n = len(L), len(y)
    ell = [sum(1 for t in range(T) if L[t][i] == y[i]) for i in range(n)]
    p_bar = sum(ell) / (n * T)
    out = {"kw_variance": sum(x * (T - x) for x in ell) / (n * T * T), "mean_member_accuracy":
           p_bar}
    mean_x = sum(x / T for x in ell) / n
    out["difficulty"] = sum((x / T - mean_x) ** 2 for x in ell) / n
    if T < 2:
        for key in ("entropy", "interrater_kappa", "generalized_diversity",
                    "coincident_failure_diversity"):
            out[key] = math.nan
        return out
    out["entropy"] = sum(min(x, T - x) for x in ell) / n / (T - math.ceil(T / 2))
    if p_bar in (0.0, 1.0):
        out["interrater_kappa"] = math.nan
    else:
        out["interrater_kappa"] = 1 - (sum(x * (T - x) for x in ell) / T) / (
            n * (T - 1) * p_bar * (1 - p_bar))
    p = [sum(1 for x in ell if T - x == j) / n for j in range(T + 1)]
    p1 = sum(j / T * p[j] for j in range(T + 1))
    p2 = sum(j * (j - 1) / (T * (T - 1)) * p[j] for j in range(T + 1))
    out["generalized_diversity"] = 1 - p2 / p1 if p1 > 0 else math.nan
    out["coincident_failure_diversity"] = 0.0 if p[0] == 1 else sum(
        (T - j) / (T - 1) * p[j] for j in range(1, T + 1)) / (1 - p[0])
    return out


def margin_row(column, y_i, C):
    """Voting margin of one row by counting votes."""
    T = len(column)
    share = [sum(1 for lab in column if lab == c) / T for c in range(max(C, 2))]
    return share[y_i] - max(share[c] for c in range(len(share)) if c != y_i)


# ------------------------------------------------------ 0-1 bias-variance, Wood et al. (2023)


def _mode_of(values, C):
    counts = [sum(1 for v in values if v == c) for c in range(C)]
    return counts.index(max(counts))


def bias_variance_01(P, y, C, method, true_proba=None):
    """Per-row terms by loops over rows, repeats and classes; P (K, n) class codes."""
    K, n = len(P), len(y)
    out = {key: [] for key in ("loss", "bias", "variance", "noise", "net_variance",
                               "noise_effect")}
    for i in range(n):
        tau = list(true_proba[i]) if true_proba is not None else [float(c == y[i])
                                                                   for c in range(C)]
        pd = [sum(1 for k in range(K) if P[k][i] == c) / K for c in range(C)]
        loss = sum(sum(tau[c] for c in range(C) if c != P[k][i]) for k in range(K)) / K
        y_m, y_star = _mode_of([P[k][i] for k in range(K)], C), tau.index(max(tau))
        out["loss"].append(loss)
        if method == "kohavi_wolpert":
            out["bias"].append(0.5 * sum((tau[c] - pd[c]) ** 2 for c in range(C)))
            out["variance"].append(0.5 * (1 - sum(p * p for p in pd)))
            out["noise"].append(0.5 * (1 - sum(t * t for t in tau)))
        elif method == "breiman":
            acc = sum(tau[P[k][i]] for k in range(K)) / K
            excess = tau[y_star] - acc
            out["bias"].append(0.0 if y_m == y_star else excess)
            out["variance"].append(excess if y_m == y_star else 0.0)
            out["noise"].append(1 - tau[y_star])
        else:
            var = sum(1 for k in range(K) if P[k][i] != y_m) / K
            bias = float(y_m != y_star)
            if bias:
                away = [P[k][i] for k in range(K) if P[k][i] != y_m]
                c2 = -sum(1 for v in away if v == y_star) / len(away) if away else 0.0
            else:
                c2 = 1.0
            noise = 1 - tau[y_star]
            both = sum(tau[P[k][i]] for k in range(K) if P[k][i] != y_star) / K
            out["bias"].append(bias)
            out["variance"].append(var)
            out["net_variance"].append(c2 * var)
            out["noise"].append(noise)
            out["noise_effect"].append(pd[y_star] * noise - both)
    return {k: v for k, v in out.items() if v}


def bias_variance_diversity(Q, tau, loss):
    """Per-row terms of Wood et al. (2023) by loops; Q[k][m][i] a probability list (squared,
    cross_entropy) or a class code (zero_one); tau[i] a target distribution."""
    K, M, n = len(Q), len(Q[0]), len(tau)
    C = len(tau[0])
    out = {key: [] for key in ("expected_loss", "noise", "average_bias", "average_variance",
                               "diversity")}
    for i in range(n):
        t = tau[i]
        if loss == "squared":
            def sq(a, b):
                return sum((a[c] - b[c]) ** 2 for c in range(C))
            bars = [[sum(Q[k][m][i][c] for m in range(M)) / M for c in range(C)]
                    for k in range(K)]
            onehots = [[float(c == j) for c in range(C)] for j in range(C)]
            el = sum(sum(t[j] * sq(onehots[j], bars[k]) for j in range(C))
                     for k in range(K)) / K
            cents = [[sum(Q[k][m][i][c] for k in range(K)) / K for c in range(C)]
                     for m in range(M)]
            bias = sum(sq(cents[m], t) for m in range(M)) / M
            var = sum(sq(Q[k][m][i], cents[m]) for m in range(M) for k in range(K)) / (M * K)
            div = sum(sq(Q[k][m][i], bars[k]) for m in range(M) for k in range(K)) / (M * K)
            noise = sum(t[j] * sq(onehots[j], t) for j in range(C))
        elif loss == "cross_entropy":
            def kl(a, b):
                return sum(a[c] * math.log(a[c] / b[c]) for c in range(C) if a[c] > 0)

            def geo(vectors):
                raw = [math.exp(sum(math.log(v[c]) for v in vectors) / len(vectors))
                       for c in range(C)]
                return [r / sum(raw) for r in raw]
            bars = [geo([Q[k][m][i] for m in range(M)]) for k in range(K)]
            el = sum(-sum(t[c] * math.log(bars[k][c]) for c in range(C)) for k in range(K)) / K
            cents = [geo([Q[k][m][i] for k in range(K)]) for m in range(M)]
            noise = -sum(t[c] * math.log(t[c]) for c in range(C) if t[c] > 0)
            bias = sum(kl(t, cents[m]) for m in range(M)) / M
            var = sum(kl(cents[m], Q[k][m][i]) for m in range(M) for k in range(K)) / (M * K)
            div = sum(kl(bars[k], Q[k][m][i]) for m in range(M) for k in range(K)) / (M * K)
        else:
            def lo(c, t=t):
                return 1 - t[c]
            votes = [_mode_of([Q[k][m][i] for m in range(M)], C) for k in range(K)]
            el = sum(lo(v) for v in votes) / K
            noise = 1 - max(t)
            cents = [_mode_of([Q[k][m][i] for k in range(K)], C) for m in range(M)]
            bias = sum(lo(c) for c in cents) / M - noise
            var = sum(sum(lo(Q[k][m][i]) for k in range(K)) / K - lo(cents[m])
                      for m in range(M)) / M
            div = sum(sum(lo(Q[k][m][i]) for m in range(M)) / M - lo(votes[k])
                      for k in range(K)) / K
        for key, val in zip(out, (el, noise, bias, var, div), strict=True):
            out[key].append(val)
    return out


# ------------------------------------------------------------ probability quality, paired tests


def ece(P, y, bins, equal_count):
    """Expected calibration error by loops over bins; equal-count bins split the rows sorted
    by confidence into bins of sizes differing by at most one, larger bins first, and then
    move every row to the bin of the first row of equal confidence."""
    n = len(y)
    conf = [max(row) for row in P]
    right = [1.0 if row.index(max(row)) == y[i] else 0.0 for i, row in enumerate(P)]
    if equal_count:
        order = sorted(range(n), key=lambda i: conf[i])
        sizes = [n // bins + (1 if b < n % bins else 0) for b in range(bins)]
        place_bin = []
        for b, size in enumerate(sizes):
            place_bin += [b] * size
        first = {}
        for place, i in enumerate(order):
            first.setdefault(conf[i], place_bin[place])
        groups = [[i for i in range(n) if first[conf[i]] == b] for b in range(bins)]
    else:
        groups = [[i for i in range(n) if (b == 0 and conf[i] <= 1 / bins)
                   or (b / bins < conf[i] <= (b + 1) / bins)] for b in range(bins)]
    total = 0.0
    for g in groups:
        if g:
            total += len(g) / n * abs(sum(right[i] for i in g) / len(g)
                                      - sum(conf[i] for i in g) / len(g))
    return total


def auc_ovr(P, y, C):
    """Macro one-vs-rest AUC by counting correctly ordered (positive, negative) pairs."""
    aucs = []
    for c in range(C):
        pos = [P[i][c] for i in range(len(y)) if y[i] == c]
        neg = [P[i][c] for i in range(len(y)) if y[i] != c]
        wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
        aucs.append(wins / (len(pos) * len(neg)))
    return aucs[1] if C == 2 else sum(aucs) / C


def holm(pvalues):
    """Holm's step-down adjusted p-values."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
