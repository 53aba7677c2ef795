"""Slow, obviously correct references for the regression measures: plain Python loops over
training sets, trees, pairs and rows, written from the papers' definitions and sharing no code
with treelab. ``f[k][i][s]`` is member i trained on training set k, on row s."""

from __future__ import annotations

import math


def ambiguity(f, y, w=None):
    """Krogh & Vedelsby (1995): per row the ensemble error, the weighted member error and the
    weighted spread around the ensemble."""
    M, n = len(f), len(y)
    w = [1.0 / M] * M if w is None else [wi / sum(w) for wi in w]
    ens, avg, amb = [], [], []
    for s in range(n):
        fbar = sum(w[i] * f[i][s] for i in range(M))
        ens.append((fbar - y[s]) ** 2)
        avg.append(sum(w[i] * (f[i][s] - y[s]) ** 2 for i in range(M)))
        amb.append(sum(w[i] * (f[i][s] - fbar) ** 2 for i in range(M)))
    return ens, avg, amb


def _mean(values):
    values = list(values)
    return sum(values) / len(values)


def _divergence(loss, a, b):
    if loss == "squared":
        return (a - b) ** 2
    return (a * math.log(a / b) if a > 0 else 0.0) - a + b


def _grad(loss, u):
    return 2.0 * u if loss == "squared" else math.log(u)


def _centroid(loss, values):
    """The point whose phi' is the mean phi' of ``values``: arithmetic or geometric mean."""
    if loss == "squared":
        return _mean(values)
    return math.exp(_mean(math.log(v) for v in values))


def bvd(f, y, target=None, loss="squared"):
    """Wood et al. (2023) per row: loss, noise, noise cross term, bias, variance, diversity,
    and for Poisson the arithmetic-mean loss and the non-centroid term."""
    K, M, n = len(f), len(f[0]), len(y)
    out = {k: [] for k in ("loss", "noise", "cross", "bias", "variance", "diversity",
                           "loss_arith", "non_centroid")}
    for s in range(n):
        star = y[s] if target is None else target[s]
        ens = [_centroid(loss, [f[k][i][s] for i in range(M)]) for k in range(K)]
        cent = [_centroid(loss, [f[k][i][s] for k in range(K)]) for i in range(M)]
        out["loss"].append(_mean(_divergence(loss, y[s], ens[k]) for k in range(K)))
        out["bias"].append(_mean(_divergence(loss, star, cent[i]) for i in range(M)))
        out["variance"].append(_mean(_mean(_divergence(loss, cent[i], f[k][i][s])
                                           for k in range(K)) for i in range(M)))
        out["diversity"].append(_mean(_mean(_divergence(loss, ens[k], f[k][i][s])
                                            for i in range(M)) for k in range(K)))
        if target is not None:
            out["noise"].append(_divergence(loss, y[s], star))
            out["cross"].append((y[s] - star) * (_grad(loss, star)
                                                 - _mean(_grad(loss, e) for e in ens)))
        if loss == "poisson":
            arith = [_mean(f[k][i][s] for i in range(M)) for k in range(K)]
            out["loss_arith"].append(_mean(_divergence(loss, y[s], a) for a in arith))
            out["non_centroid"].append(_mean(
                y[s] * math.log(ens[k] / arith[k]) + arith[k] - ens[k] for k in range(K)))
    return out


def bvc(f, t):
    """Ueda & Nakano (1996) per row: E(fbar - t)^2, bias^2, var, covar."""
    K, M, n = len(f), len(f[0]), len(t)
    rows = {k: [] for k in ("loss", "bias2", "var", "covar")}
    for s in range(n):
        ef = [_mean(f[k][i][s] for k in range(K)) for i in range(M)]
        rows["loss"].append(_mean((_mean(f[k][i][s] for i in range(M)) - t[s]) ** 2
                                  for k in range(K)))
        rows["bias2"].append(_mean(ef[i] - t[s] for i in range(M)) ** 2)
        rows["var"].append(_mean(_mean((f[k][i][s] - ef[i]) ** 2 for k in range(K))
                                 for i in range(M)))
        pairs = [_mean((f[k][i][s] - ef[i]) * (f[k][j][s] - ef[j]) for k in range(K))
                 for i in range(M) for j in range(M) if i != j]
        rows["covar"].append(_mean(pairs) if pairs else float("nan"))
    return rows


def breiman(f, y, oob=None):
    """Breiman (2001) section 11 from the residuals, pair by pair; ``oob[i][s]`` True where
    member i did not see row s (None: every row counts)."""
    M, n = len(f), len(y)
    seen = [[True] * n for _ in range(M)] if oob is None else oob
    r = [[y[s] - f[i][s] for s in range(n)] for i in range(M)]

    def e(i, j):
        rows = [s for s in range(n) if seen[i][s] and seen[j][s]]
        return sum(r[i][s] * r[j][s] for s in rows) / len(rows) if rows else None

    mse = [e(i, i) for i in range(M)]
    sd = [math.sqrt(v) for v in mse]
    cross = [e(i, j) for i in range(M) for j in range(M) if i != j]
    cross = [c for c in cross if c is not None]
    rho_bar = _mean(cross) / _mean(sd) ** 2
    corr = [e(i, j) / (sd[i] * sd[j]) for i in range(M) for j in range(M)
            if i != j and e(i, j) is not None]
    forest = []
    for s in range(n):
        members = [i for i in range(M) if seen[i][s]]
        if members:
            forest.append((y[s] - _mean(f[i][s] for i in members)) ** 2)
    return {"forest_mse": _mean(forest), "tree_mse": _mean(mse), "rho_bar": rho_bar,
            "mean_residual_correlation": _mean(corr), "member_mse": mse}


def louppe(f):
    """Louppe (2014): per row sigma^2 = E phi^2 - (E phi)^2, rho sigma^2 = E phi phi' - (E phi)^2
    over two trees of the same training set, and the forest's variance over training sets,
    each expectation of a product estimated by the mean over independent draws: (E phi)^2 from
    the forests of two distinct training sets."""
    K, M, n = len(f), len(f[0]), len(f[0][0])
    rows = {k: [] for k in ("sigma2", "pairs", "forest")}
    for s in range(n):
        forest = [_mean(f[k][i][s] for i in range(M)) for k in range(K)]
        mean_sq = _mean(forest[k] * forest[m] for k in range(K) for m in range(K) if k != m)
        rows["sigma2"].append(_mean(f[k][i][s] ** 2 for k in range(K) for i in range(M))
                              - mean_sq)
        rows["pairs"].append(_mean(f[k][i][s] * f[k][j][s] for k in range(K)
                                   for i in range(M) for j in range(M) if i != j) - mean_sq)
        rows["forest"].append(_mean(forest[k] ** 2 for k in range(K)) - mean_sq)
    return rows
