"""Why bagged MMDT loses accuracy when irrelevant N(0, 1) attributes are added (issue: vowel).

Small controlled experiments behind ``docs/reproductions/mmdt.md`` (section "Why MMDT degrades
under irrelevant attributes"). Each uses one 2-fold CV per seed on the real features of a bundle
set (numeric columns mean-imputed, nominal columns one-hot) with k N(0, 1) columns appended:

- ``amplitude``: bagged MMDT under each ``scale``, and unscaled with the noise at a tenth of
  its amplitude;
- ``direction``: the share of each split direction's squared norm that lies on the noise
  columns, by node size (trees grown unscaled on standardised features, so the direction is
  in z-units), and |mu_T - mu_F|^2 over the real features at the root;
- ``grouping``: the label scatter's eigenvalues at the root (power iteration only finds a
  direction when the first is well above the second), |mu_T - mu_F|^2 under the spec's
  grouping, a uniformly random grouping and a grouping by the two farthest class means, and
  bagged accuracy under each grouping (a NumPy prototype of MMDT that takes the grouping as
  a parameter; checked against treelab's MMDT on a two-class set, where no grouping is drawn);
- ``classes``: vowel restricted to 2, 4 or 11 of its classes (45 training rows per class), and
  all 11 classes with 20%, 50% or 90% of the rows for training;
- ``cvdt``: how many of bagged CVDT's trees choose MMDT.

Usage::

    python benchmarks/diagnose_mmdt_noise.py                 # every experiment, about 2 min
    python benchmarks/diagnose_mmdt_noise.py amplitude --sets vowel wine segmentation
"""

from __future__ import annotations

import argparse

import numpy as np

import treelab
from treelab.datasets import add_irrelevant, load_uci
from treelab.engine.kernels._oblique import POWER_ITERATIONS, label_component
from treelab.engine.oblique import apply_real_map, fit_real_map

KS = (0, 16, 64)


def real_data(name: str, k: int, seed: int):
    """(real features with k N(0, 1) columns, class codes, number of classes, CV halves)."""
    d = add_irrelevant(load_uci(name), k, random_state=seed)
    cf = np.asarray(d.categorical_features)
    nominal = cf.copy() if cf.dtype == bool else np.isin(np.arange(d.n_features), cf)
    arity = np.array([int(np.nanmax(d.X[:, j])) + 1 if nominal[j] else 0
                      for j in range(d.n_features)])
    Z = apply_real_map(fit_real_map(d.X, nominal, arity), d.X)
    classes, y = np.unique(d.y, return_inverse=True)
    perm = np.random.default_rng(seed).permutation(d.n_samples)
    half = d.n_samples // 2
    return Z, y.astype(np.int64), len(classes), (perm[:half], perm[half:])


def mmdt_accuracy(Z, y, trees, seed, train, test, **params) -> float:
    est = treelab.BaggedMMDT(n_estimators=trees, random_state=seed, **params)
    return float(est.fit(Z[train], y[train]).score(Z[test], y[test]))


def cv_mean(halves, fn, *args, **params) -> float:
    """Mean of ``fn(*args, train, test, **params)`` over the two folds of ``halves``."""
    return float(np.mean([fn(*args, halves[h], halves[1 - h], **params) for h in (0, 1)]))


def show(label: str, rows: dict) -> None:
    print(label, {key: round(float(np.mean(v)), 3) for key, v in rows.items()}, flush=True)


def amplitude(a) -> None:
    for name in a.sets:
        for k in KS:
            rows: dict[str, list] = {}
            for seed in range(a.seeds):
                Z, y, _, halves = real_data(name, k, seed)
                for scale in ("standard", "minmax", None):
                    rows.setdefault(str(scale), []).append(
                        cv_mean(halves, mmdt_accuracy, Z, y, a.trees, seed, scale=scale))
                if k:
                    Zq = Z.copy()
                    Zq[:, -k:] *= 0.1
                    rows.setdefault("None, noise x 0.1", []).append(
                        cv_mean(halves, mmdt_accuracy, Zq, y, a.trees, seed, scale=None))
            show(f"{name} k={k}", rows)


def direction(a, k: int = 64) -> None:
    bins = ((200, None), (50, 200), (10, 50), (2, 10))
    for name in a.sets:
        share: dict[str, list] = {}
        signal = []
        for seed in range(a.seeds):
            Z, y, _, halves = real_data(name, k, seed)
            for h in (0, 1):
                Zt = Z[halves[h]]
                sd = Zt.std(axis=0)
                Zs = (Zt - Zt.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
                fr = treelab.BaggedMMDT(n_estimators=a.trees, scale=None, random_state=seed)
                fr = fr.fit(Zs, y[halves[h]]).forest_
                inner = np.flatnonzero(fr.kind == 3)
                W = fr.projections[fr.feature[inner]]
                part = (W[:, -k:] ** 2).sum(axis=1) / (W ** 2).sum(axis=1)
                n = fr.counts[inner].sum(axis=1)
                for lo, hi in bins:
                    sel = (n >= lo) & (n < (hi or np.inf))
                    share.setdefault(f"{lo}-{hi or ''} rows", []).extend(part[sel])
                roots = fr.projections[fr.feature[fr.node_offsets[:-1]]]
                signal.extend((roots[:, :-k] ** 2).sum(axis=1))
        print(f"{name} k={k}: |mu_T - mu_F|^2 on the real features at the root "
              f"{np.mean(signal):.2f}; noise share of |nu|^2 by node size",
              {b: (round(float(np.mean(v)), 2) if v else None) for b, v in share.items()},
              flush=True)


# -- a NumPy MMDT whose class grouping is a parameter (the engine's is the spec's only) ----------
def group_spec(counts, means, rng):
    """Algorithms spec 2.8: by class for two classes, else the sign on the labels' first
    principal component after POWER_ITERATIONS steps from a standard-normal start."""
    present = np.flatnonzero(counts > 0)
    if present.size == 2:
        return np.isin(np.arange(counts.size), present[:1])
    nu, mu = label_component(counts.astype(float), rng.standard_normal(counts.size),
                             POWER_ITERATIONS)
    return (counts > 0) & (nu - mu @ nu >= 0)


def group_random(counts, means, rng):
    """Every present class to T or F with chance 1/2, both non-empty."""
    present = np.flatnonzero(counts > 0)
    while True:
        t = np.isin(np.arange(counts.size), present[rng.random(present.size) < 0.5])
        if 0 < t.sum() < present.size:
            return t


def group_farthest(counts, means, rng):
    """The two classes with the farthest-apart means seed T and F; every other class joins
    the seed whose mean is nearer."""
    present = np.flatnonzero(counts > 0)
    M = means[present]
    D = ((M[:, None, :] - M[None, :, :]) ** 2).sum(axis=-1)
    a, b = np.unravel_index(np.argmax(D), D.shape)
    t = np.zeros(counts.size, dtype=bool)
    t[present[D[:, a] < D[:, b]]] = True
    t[present[a]] = True
    return t


GROUPINGS = {"spec": group_spec, "random": group_random, "farthest": group_farthest}


def proto_tree(Z, y, w, C, group, rng, f2):
    """One MMDT as nested dicts (rows of multiplicity w; f2 the squared scaling factors)."""
    def grow(rows):
        counts = np.bincount(y[rows], weights=w[rows], minlength=C)
        node = {"counts": counts}
        if (counts > 0).sum() <= 1:
            return node
        means = np.zeros((C, Z.shape[1]))
        for c in np.flatnonzero(counts):
            r = rows[y[rows] == c]
            means[c] = w[r] @ Z[r] / w[r].sum()
        in_t = group(counts, means, rng)[y[rows]]
        wr = w[rows]
        mt = wr[in_t] @ Z[rows[in_t]] / wr[in_t].sum()
        mf = wr[~in_t] @ Z[rows[~in_t]] / wr[~in_t].sum()
        nu = (mt - mf) * f2
        t = 0.5 * (mt + mf) @ nu
        right = Z[rows] @ nu >= t
        if right.all() or not right.any():
            return node
        node.update(nu=nu, t=t, kids=(grow(rows[~right]), grow(rows[right])))
        return node

    return grow(np.flatnonzero(w > 0))


def proto_proba(node, Z):
    out = []
    for z in Z:
        nd = node
        while "nu" in nd:
            nd = nd["kids"][int(z @ nd["nu"] >= nd["t"])]
        out.append(nd["counts"] / nd["counts"].sum())
    return np.array(out)


def proto_bagged_accuracy(Z, y, C, trees, group, seed, train, test) -> float:
    """Bagged prototype MMDTs, each standardised with its bootstrap sample's statistics."""
    rng = np.random.default_rng(seed)
    n = train.size
    P = 0.0
    for _ in range(trees):
        w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        Zt, inbag = Z[train], w > 0
        mean = w[inbag] @ Zt[inbag] / w[inbag].sum()
        sd = np.sqrt(w[inbag] @ (Zt[inbag] - mean) ** 2 / w[inbag].sum())
        sd = np.where(np.ptp(Zt[inbag], axis=0) > 0, sd, 1.0)
        P = P + proto_proba(proto_tree(Zt, y[train], w, C, group, rng, 1 / sd ** 2), Z[test])
    return float(np.mean(np.argmax(P, axis=1) == y[test]))


def check_prototype() -> None:
    """The prototype grows treelab's MMDT where no grouping is drawn (two classes): the same
    class counts at every node."""
    Z, y, C, _ = real_data("heart-statlog", 4, 0)
    ours = sorted(map(tuple, treelab.MMDT(scale=None, random_state=0).fit(Z, y).forest_.counts))
    root = proto_tree(Z, y, np.ones(len(y)), C, group_spec, np.random.default_rng(0),
                      np.ones(Z.shape[1]))
    proto = sorted(tuple(nd["counts"].astype(int)) for nd in _walk(root))
    if proto != ours:
        raise AssertionError("the prototype does not grow treelab's MMDT on heart-statlog")
    print(f"prototype check: the same {len(ours)} nodes as treelab's MMDT on heart-statlog")


def _walk(node):
    yield node
    for kid in node.get("kids", ()):
        yield from _walk(kid)


def grouping(a, name: str = "vowel") -> None:
    check_prototype()
    Z, y, C, halves = real_data(name, 0, 0)
    tr = halves[0]
    sd = Z[tr].std(axis=0)
    Zt = (Z[tr] - Z[tr].mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    counts = np.bincount(y[tr], minlength=C).astype(float)
    centred = np.eye(C) - counts / counts.sum()
    ev = np.sort(np.linalg.eigvalsh(centred.T @ (centred * counts[:, None])))[::-1]
    print(f"{name}: label scatter eigenvalues / largest {np.round(ev[:4] / ev[0], 3)} ...")
    means = np.array([Zt[y[tr] == c].mean(axis=0) for c in range(C)])
    rng = np.random.default_rng(0)
    for label, group in GROUPINGS.items():
        d2 = []
        for _ in range(1 if label == "farthest" else 200):
            in_t = group(counts, means, rng)[y[tr]]
            d2.append(((Zt[in_t].mean(axis=0) - Zt[~in_t].mean(axis=0)) ** 2).sum())
        print(f"  grouping {label}: |mu_T - mu_F|^2 at the root {np.mean(d2):.2f}")
    for k in KS:
        rows: dict[str, list] = {}
        for seed in range(a.seeds):
            Z, y, C, halves = real_data(name, k, seed)
            for label, group in GROUPINGS.items():
                rows.setdefault(label, []).append(
                    cv_mean(halves, proto_bagged_accuracy, Z, y, C, a.trees, group, seed))
        show(f"  prototype, k={k}", rows)


def holdout(Z, y, rows, frac, rng, trees, seed) -> float:
    """Bagged MMDT trained on a random ``frac`` of ``rows``, tested on the others."""
    p = rng.permutation(rows)
    m = int(round(frac * p.size))
    return mmdt_accuracy(Z, y, trees, seed, p[:m], p[m:])


def classes(a, name: str = "vowel") -> None:
    for k in (0, 64):
        rows: dict[str, list] = {}
        for seed in range(a.seeds):
            Z, y, C, _ = real_data(name, k, seed)
            rng = np.random.default_rng(100 + seed)
            for c in (2, 4, C):
                for _ in range(3 if c < C else 1):
                    keep = np.flatnonzero(np.isin(y, rng.choice(C, c, replace=False)))
                    rows.setdefault(f"{c} classes", []).append(
                        holdout(Z, y, keep, 0.5, rng, a.trees, seed))
            for frac in (0.2, 0.5, 0.9):
                rows.setdefault(f"{C} classes, train {frac}", []).append(
                    holdout(Z, y, np.arange(y.size), frac, rng, a.trees, seed))
        show(f"{name} k={k}", rows)


def cvdt(a) -> None:
    for name in a.sets:
        for k in KS:
            acc, share = [], []
            for seed in range(a.seeds):
                Z, y, _, halves = real_data(name, k, seed)
                for h in (0, 1):
                    tr, te = halves[h], halves[1 - h]
                    est = treelab.BaggedCVDT(n_estimators=a.trees, random_state=seed)
                    est.fit(Z[tr], y[tr])
                    acc.append(est.score(Z[te], y[te]))
                    share.append(np.mean(est.learners_ == "mmdt"))
            print(f"{name} k={k}: CVDT accuracy {np.mean(acc):.3f}, "
                  f"share of trees that chose MMDT {np.mean(share):.2f}", flush=True)


EXPERIMENTS = {"amplitude": amplitude, "direction": direction, "grouping": grouping,
               "classes": classes, "cvdt": cvdt}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("experiments", nargs="*", choices=[*EXPERIMENTS, []],
                    help="which experiments (default: all)")
    ap.add_argument("--sets", nargs="+", default=["vowel", "wine", "segmentation"])
    ap.add_argument("--trees", type=int, default=25)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args(argv)
    for name in a.experiments or EXPERIMENTS:
        print(f"== {name}", flush=True)
        EXPERIMENTS[name](a)


if __name__ == "__main__":
    main()
