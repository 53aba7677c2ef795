"""Generators of logical concepts: tic-tac-toe endgames, KRK illegal positions, the MONK's
problems, m-of-n concepts, parity and the balance scale.

References
----------
Aha, D. W. (1991). Incremental constructive induction: an instance-based approach. *ML91*
(the tic-tac-toe endgame database: 958 boards, 626 wins for X).
Muggleton, S., Bain, M., Hayes-Michie, J. & Michie, D. (1989). An experimental comparison of
human and machine learning formalisms. *ML89* (KRK illegal positions).
Thrun, S. B. et al. (1991). The MONK's problems: a performance comparison of different learning
algorithms. Technical report CMU-CS-91-197.
Ali, K. M. & Pazzani, M. J. (1995). On the link between error correlation and error reduction
in decision tree ensembles. UCI ICS TR 95-38 (m-of-n, parity and gain ties).
Siegler, R. S. (1976). Three aspects of cognitive development. *Cognitive Psychology* 8,
481-520 (the balance scale task; the UCI "Balance Scale Weight & Distance" data enumerate it).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from treelab.datasets._data import CONTINUOUS, NOMINAL, LabeledData
from treelab.datasets._validation import (
    RandomState,
    check_int,
    check_n_samples,
    check_random_state,
    check_rate,
)

__all__ = ["balance_scale", "krk", "krk_illegal", "m_of_n", "monks", "parity", "tictactoe"]

_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
#: Codes of the tic-tac-toe square values.
TICTACTOE_CODES = {"x": 0, "o": 1, "b": 2}


def _binary_proba(label: np.ndarray, noise: float) -> np.ndarray:
    p1 = np.where(label == 1, 1.0 - noise, noise)
    return np.column_stack([1.0 - p1, p1])


def _flip(y: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    return np.where(rng.random(y.shape[0]) < noise, 1 - y, y)


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool; got {value!r}")
    return bool(value)


@lru_cache(maxsize=1)
def _tictactoe_boards() -> tuple[tuple[str, ...], ...]:
    """Every distinct final board, in order of first discovery by a depth-first game search."""

    def wins(board: list[str], player: str) -> bool:
        return any(all(board[i] == player for i in line) for line in _LINES)

    finals: dict[tuple[str, ...], None] = {}
    seen: set[tuple[str, ...]] = set()

    def play(board: list[str], player: str) -> None:
        key = tuple(board)
        if key in seen:
            return
        seen.add(key)
        if wins(board, "x") or wins(board, "o") or "b" not in board:
            finals[key] = None
            return
        for i in range(9):
            if board[i] == "b":
                board[i] = player
                play(board, "o" if player == "x" else "x")
                board[i] = "b"

    play(["b"] * 9, "x")
    return tuple(finals)


def tictactoe(*, shuffle: bool = False, random_state: RandomState = None) -> LabeledData:
    """Every final board of tic-tac-toe games where X moves first (the UCI endgame data).

    Games are enumerated move by move; play stops at a win or a full board. The distinct final
    boards are the rows (958 of them); the class is 1 when X has three in a row (626 boards).

    Parameters
    ----------
    shuffle : bool, default False
        Shuffle the rows (otherwise the order of a depth-first enumeration).
    random_state : int, numpy Generator or None, default None
        Seed of the shuffle (unused otherwise).

    Returns
    -------
    LabeledData
        Nine nominal attributes (squares top-left to bottom-right, codes x = 0, o = 1,
        blank = 2), labels 0/1 and one-hot ``true_proba``.
    """
    shuffle = _check_bool("shuffle", shuffle)
    rng = check_random_state(random_state)
    boards = _tictactoe_boards()
    X = np.array([[TICTACTOE_CODES[v] for v in b] for b in boards], dtype=np.float64)
    y = np.array(
        [any(all(b[i] == "x" for i in line) for line in _LINES) for b in boards], dtype=np.int64
    )
    order = rng.permutation(len(boards)) if shuffle else np.arange(len(boards))
    squares = ("top-left", "top-middle", "top-right", "middle-left", "middle-middle",
               "middle-right", "bottom-left", "bottom-middle", "bottom-right")
    return LabeledData(
        X=X[order],
        y=y[order],
        feature_types=(NOMINAL,) * 9,
        true_proba=_binary_proba(y[order], 0.0),
        name="tic-tac-toe",
        feature_names=squares,
        classes=np.arange(2),
        meta={"categories": ["x", "o", "b"]},
    )


def krk_illegal(X: np.ndarray) -> np.ndarray:
    """1 where a KRK placement is illegal, 0 where legal.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, 6)
        Files and ranks (1-8) of the white king, white rook and black king, in that order.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Illegal when two pieces share a square, the kings are adjacent, or the rook attacks the
        black king along a rank or file on which the white king does not stand between them.
    """
    wkf, wkr, wrf, wrr, bkf, bkr = (np.asarray(X)[:, j] for j in range(6))
    same = ((wkf == wrf) & (wkr == wrr)) | ((wkf == bkf) & (wkr == bkr)) | (
        (wrf == bkf) & (wrr == bkr)
    )
    adjacent = (np.abs(wkf - bkf) <= 1) & (np.abs(wkr - bkr) <= 1)

    def between(a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return (a > np.minimum(lo, hi)) & (a < np.maximum(lo, hi))

    file_attack = (wrf == bkf) & ~((wkf == wrf) & between(wkr, wrr, bkr))
    rank_attack = (wrr == bkr) & ~((wkr == wrr) & between(wkf, wrf, bkf))
    return (same | adjacent | file_attack | rank_attack).astype(np.int64)


def krk(
    n_samples: int = 1000,
    *,
    attribute_noise: float = 0.0,
    class_noise: float = 0.0,
    exhaustive: bool = False,
    random_state: RandomState = None,
) -> LabeledData:
    """KRK illegal positions (Muggleton et al. 1989): is a king-rook-king placement illegal?

    The file and rank (1-8) of the white king, white rook and black king are drawn
    independently and uniformly, i.e. uniformly from all 8^6 placements; see
    :func:`krk_illegal` for the rule (about 33% are illegal). Attribute noise replaces each value
    with probability ``attribute_noise`` by a uniform draw from 1-8 (the label stays that of the
    true placement); class noise flips each label with probability ``class_noise``.

    Parameters
    ----------
    n_samples : int, default 1000
        Number of rows (ignored when ``exhaustive``).
    attribute_noise : float, default 0.0
        Per-value attribute-noise rate.
    class_noise : float, default 0.0
        Label-flip rate.
    exhaustive : bool, default False
        Return all 262,144 placements in lexicographic order instead of a sample.
    random_state : int, numpy Generator or None, default None
        Seed of the draw and of the noise.

    Returns
    -------
    LabeledData
        Six attributes (file/rank numbers 1-8, typed continuous because they are ordered),
        labels 1 = illegal and 0 = legal; ``true_proba`` (one-hot, adjusted for class noise)
        unless attribute noise is used, when it is None.
    """
    n = check_n_samples(n_samples)
    attribute_noise = check_rate("attribute_noise", attribute_noise)
    class_noise = check_rate("class_noise", class_noise)
    exhaustive = _check_bool("exhaustive", exhaustive)
    rng = check_random_state(random_state)
    if exhaustive:
        X = np.array(list(itertools.product(range(1, 9), repeat=6)), dtype=np.float64)
    else:
        X = rng.integers(1, 9, size=(n, 6)).astype(np.float64)
    clean = krk_illegal(X)
    if attribute_noise > 0:
        hit = rng.random(X.shape) < attribute_noise
        X = np.where(hit, rng.integers(1, 9, size=X.shape), X).astype(np.float64)
    y = _flip(clean, class_noise, rng) if class_noise > 0 else clean
    proba = None if attribute_noise > 0 else _binary_proba(clean, class_noise)
    return LabeledData(
        X=X,
        y=y,
        feature_types=(CONTINUOUS,) * 6,
        true_proba=proba,
        name="krk",
        feature_names=("wk_file", "wk_rank", "wr_file", "wr_rank", "bk_file", "bk_rank"),
        classes=np.arange(2),
        meta={"attribute_noise": attribute_noise, "class_noise": class_noise},
    )


#: Number of values of the six MONK's attributes a1..a6.
MONKS_ARITY = (3, 3, 2, 3, 4, 2)


def _monks_rule(problem: int, A: np.ndarray) -> np.ndarray:
    """Target of MONK-``problem`` on attribute values (1-based, as in the source)."""
    a1, a2, a3, a4, a5, a6 = (A[:, j] for j in range(6))
    if problem == 1:
        t = (a1 == a2) | (a5 == 1)
    elif problem == 2:
        t = (A == 1).sum(axis=1) == 2
    else:
        t = ((a5 == 3) & (a4 == 1)) | ((a5 != 4) & (a2 != 3))
    del a3, a6
    return t.astype(np.int64)


def monks(
    problem: int = 1,
    n_samples: int | None = None,
    *,
    noise: float | None = None,
    random_state: RandomState = None,
) -> LabeledData:
    """The MONK's problems 1-3 (Thrun et al. 1991).

    Six nominal attributes a1..a6 with 3, 3, 2, 3, 4, 2 values (432 combinations). Targets:
    MONK-1 (a1 = a2) or (a5 = 1); MONK-2 exactly two attributes take their first value;
    MONK-3 (a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3). The source's training sets are random
    subsets (124, 169 and 122 rows); its test sets are all 432 combinations; MONK-3's training
    set has 5% misclassified rows.

    Parameters
    ----------
    problem : {1, 2, 3}, default 1
        Which problem.
    n_samples : int, optional
        Draw this many distinct combinations without replacement (at most 432); all 432 in
        lexicographic order when None.
    noise : float, optional
        Share of rows whose label is flipped: exactly round(noise * n) rows chosen at random.
        None means the source's setting: 0.05 for a MONK-3 training set (``n_samples`` given),
        otherwise 0.
    random_state : int, numpy Generator or None, default None
        Seed of the subset and the noise.

    Returns
    -------
    LabeledData
        Nominal attributes coded value - 1 (0-based), labels 0/1, ``true_proba`` one-hot of the
        noise-free rule (the flipped rows are errors against it).
    """
    problem = check_int("problem", problem, minimum=1, maximum=3)
    n = None if n_samples is None else check_int("n_samples", n_samples, minimum=1, maximum=432)
    if noise is None:
        noise = 0.05 if (problem == 3 and n is not None) else 0.0
    noise = check_rate("noise", noise)
    rng = check_random_state(random_state)
    A = np.array(list(itertools.product(*(range(1, m + 1) for m in MONKS_ARITY))))
    if n is not None:
        A = A[np.sort(rng.choice(A.shape[0], size=n, replace=False))]
    clean = _monks_rule(problem, A)
    y = clean.copy()
    n_noisy = int(round(noise * y.shape[0]))
    if n_noisy:
        flip = rng.choice(y.shape[0], size=n_noisy, replace=False)
        y[flip] = 1 - y[flip]
    return LabeledData(
        X=(A - 1).astype(np.float64),
        y=y,
        feature_types=(NOMINAL,) * 6,
        true_proba=_binary_proba(clean, 0.0),
        name=f"monk{problem}",
        feature_names=tuple(f"a{j + 1}" for j in range(6)),
        classes=np.arange(2),
        meta={"problem": problem, "noise": noise, "n_noisy": n_noisy},
    )


def _bits(n: int | None, d: int, rng: np.random.Generator) -> np.ndarray:
    if n is None:
        if d > 20:
            raise ValueError(f"n_samples=None enumerates 2**{d} rows; use at most 20 bits")
        return np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.int64)
    return rng.integers(0, 2, size=(n, d))


def m_of_n(
    n_samples: int | None = 1000,
    *,
    m: int = 2,
    n: int = 4,
    n_irrelevant: int = 0,
    noise: float = 0.0,
    random_state: RandomState = None,
) -> LabeledData:
    """An m-of-n concept over random bits: positive when at least ``m`` of ``n`` bits are 1.

    Parameters
    ----------
    n_samples : int or None, default 1000
        Number of rows; None enumerates all 2^(n + n_irrelevant) bit vectors.
    m : int, default 2
        Threshold, 1 <= m <= n.
    n : int, default 4
        Number of relevant bits (the first n columns).
    n_irrelevant : int, default 0
        Further random bits.
    noise : float, default 0.0
        Label-flip rate.
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        Binary nominal attributes, labels 0/1, ``true_proba`` adjusted for the noise.
    """
    rows = check_n_samples(n_samples, allow_none=True)
    n = check_int("n", n, minimum=1)
    m = check_int("m", m, minimum=1, maximum=n)
    k = check_int("n_irrelevant", n_irrelevant, minimum=0)
    noise = check_rate("noise", noise)
    rng = check_random_state(random_state)
    B = _bits(rows, n + k, rng)
    clean = (B[:, :n].sum(axis=1) >= m).astype(np.int64)
    return LabeledData(
        X=B.astype(np.float64),
        y=_flip(clean, noise, rng),
        feature_types=(NOMINAL,) * (n + k),
        true_proba=_binary_proba(clean, noise),
        name=f"{m}-of-{n}",
        feature_names=tuple(f"b{j + 1}" for j in range(n)) + tuple(f"r{j + 1}" for j in range(k)),
        classes=np.arange(2),
        meta={"m": m, "n": n, "n_irrelevant": k, "noise": noise},
    )


def parity(
    n_samples: int | None = 1000,
    *,
    n_relevant: int = 2,
    n_irrelevant: int = 0,
    noise: float = 0.0,
    random_state: RandomState = None,
) -> LabeledData:
    """Parity (XOR) of ``n_relevant`` random bits, with irrelevant bits and label noise.

    No single relevant bit shows any information gain on the full truth table (every bit is
    independent of the label), the hardest case for gain-based test selection.

    Parameters
    ----------
    n_samples : int or None, default 1000
        Number of rows; None enumerates all 2^(n_relevant + n_irrelevant) bit vectors.
    n_relevant : int, default 2
        Number of bits whose parity is the label (2 is XOR; PMLB's parity5+5 is 5 + 5).
    n_irrelevant : int, default 0
        Further random bits.
    noise : float, default 0.0
        Label-flip rate.
    random_state : int, numpy Generator or None, default None
        Seed of the draw.

    Returns
    -------
    LabeledData
        Binary nominal attributes, labels 0/1, ``true_proba`` adjusted for the noise.
    """
    rows = check_n_samples(n_samples, allow_none=True)
    r = check_int("n_relevant", n_relevant, minimum=1)
    k = check_int("n_irrelevant", n_irrelevant, minimum=0)
    noise = check_rate("noise", noise)
    rng = check_random_state(random_state)
    B = _bits(rows, r + k, rng)
    clean = (B[:, :r].sum(axis=1) % 2).astype(np.int64)
    return LabeledData(
        X=B.astype(np.float64),
        y=_flip(clean, noise, rng),
        feature_types=(NOMINAL,) * (r + k),
        true_proba=_binary_proba(clean, noise),
        name=f"parity{r}+{k}",
        feature_names=tuple(f"b{j + 1}" for j in range(r)) + tuple(f"r{j + 1}" for j in range(k)),
        classes=np.arange(2),
        meta={"n_relevant": r, "n_irrelevant": k, "noise": noise},
    )


#: The balance scale's class labels, in code order (B = 0, L = 1, R = 2: sorted).
BALANCE_CLASSES = ("B", "L", "R")


def balance_scale(*, shuffle: bool = False, random_state: RandomState = None) -> LabeledData:
    """Every balance-scale problem of Siegler's task: which way does the scale tip?

    The attributes are the left weight, left distance, right weight and right distance, each
    1-5; the rows are all 5^4 = 625 of their combinations, in the order of the UCI file
    (left weight slowest, right distance fastest). The class compares the torques:
    L when ``left_weight * left_distance > right_weight * right_distance``, R when it is less,
    B (balanced) when equal: 288 L, 49 B and 288 R rows. These are the UCI "Balance Scale
    Weight & Distance" data (Liu et al. 2008, Table 6: 625 rows, 4 attributes, 3 classes),
    which are this enumeration.

    Parameters
    ----------
    shuffle : bool, default False
        Shuffle the rows (otherwise the enumeration order).
    random_state : int, numpy Generator or None, default None
        Seed of the shuffle (unused otherwise).

    Returns
    -------
    LabeledData
        Four continuous attributes (the integers 1-5), labels 0, 1, 2 for B, L, R
        (``meta["class_names"]``) and one-hot ``true_proba``.

    Examples
    --------
    >>> from treelab.datasets import balance_scale
    >>> data = balance_scale()
    >>> data.X.shape, [int((data.y == c).sum()) for c in range(3)]
    ((625, 4), [49, 288, 288])
    """
    shuffle = _check_bool("shuffle", shuffle)
    rng = check_random_state(random_state)
    X = np.array(list(itertools.product(range(1, 6), repeat=4)), dtype=np.float64)
    torque = np.sign(X[:, 0] * X[:, 1] - X[:, 2] * X[:, 3]).astype(np.int64)
    # sign -1 (R), 0 (B), +1 (L) -> the sorted labels' codes B = 0, L = 1, R = 2
    y = np.select([torque > 0, torque < 0], [1, 2], default=0)
    order = rng.permutation(len(y)) if shuffle else np.arange(len(y))
    return LabeledData(
        X=X[order],
        y=y[order],
        feature_types=(CONTINUOUS,) * 4,
        true_proba=np.eye(3)[y[order]],
        name="balance",
        feature_names=("left_weight", "left_distance", "right_weight", "right_distance"),
        classes=np.arange(3),
        meta={"class_names": BALANCE_CLASSES},
    )
