"""Python's own random stream inside compiled code: the Mersenne Twister of CPython's
``random.Random`` (``_randommodule.c``), with ``_randbelow`` as ``shuffle`` and
``choice`` use it, so a kernel draws exactly the numbers NetworkX's Python code would
draw from the same ``random.Random``.

Given the state of a ``random.Random`` (:func:`load`), the kernels advance it as Python
would; :func:`store` writes it back, so the caller's generator continues where NetworkX's
would have left it. CPython's ``getrandbits(k)`` for ``k <= 32`` is one 32-bit output
shifted right by ``32 - k``; ``_randbelow(n)`` draws ``getrandbits(n.bit_length())``
until the value is below ``n`` (Python 3.9 to 3.14); :func:`matches_python` checks
both against the running interpreter.
"""

from __future__ import annotations

import random

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["load", "matches_python", "randbelow", "shuffle_identity", "store"]

_N = 624
_M = 397
_MATRIX_A = np.uint64(0x9908B0DF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_MASK32 = np.uint64(0xFFFFFFFF)
#: ``_randbelow`` of larger bounds needs more than one 32-bit word per draw
MAX_BOUND = 2**32 - 1


def load(rng: random.Random):
    """``(state, gauss_next)`` of ``rng``: ``state`` holds the 624 words and, last, the
    position of the next one (``random.Random.getstate``'s layout)."""
    version, words, gauss_next = rng.getstate()
    return np.array(words, dtype=np.uint64), (version, gauss_next)


def store(rng: random.Random, state, extra) -> None:
    """Give ``rng`` the state a kernel advanced (``extra``: what :func:`load` returned)."""
    version, gauss_next = extra
    rng.setstate((version, tuple(int(x) for x in state), gauss_next))


@njit(**NUMBA_FLAGS)
def _twist(mt):
    for kk in range(_N):
        y = (mt[kk] & _UPPER) | (mt[(kk + 1) % _N] & _LOWER)
        v = mt[(kk + _M) % _N] ^ (y >> np.uint64(1))
        if y & np.uint64(1):
            v ^= _MATRIX_A
        mt[kk] = v


@njit(**NUMBA_FLAGS)
def _next32(state):
    """The next 32-bit output (CPython's ``genrand_uint32``); ``state[624]`` is the
    position."""
    i = state[_N]
    if i >= _N:
        _twist(state[:_N])
        i = np.uint64(0)
    y = state[i]
    state[_N] = i + np.uint64(1)
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & _MASK32


@njit(**NUMBA_FLAGS)
def randbelow(state, n):
    """``random.Random._randbelow(n)`` for ``1 <= n <= 2**32 - 1``."""
    k = 0
    t = n
    while t > 0:
        k += 1
        t >>= 1
    shift = np.uint64(32 - k)
    r = np.int64(_next32(state) >> shift)
    while r >= n:
        r = np.int64(_next32(state) >> shift)
    return r


@njit(**NUMBA_FLAGS)
def shuffle_identity(state, n):
    """``random.Random.shuffle`` applied to ``list(range(n))``."""
    x = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = randbelow(state, i + 1)
        x[i], x[j] = x[j], x[i]
    return x


@njit(**NUMBA_FLAGS)
def _draws(state, bounds):
    out = np.empty(bounds.shape[0], dtype=np.int64)
    for t in range(bounds.shape[0]):
        out[t] = randbelow(state, bounds[t])
    return out


_checked: list[bool] = []


def matches_python() -> bool:
    """Whether these kernels give the running interpreter's ``shuffle`` and ``choice``
    (checked once per process on a few thousand draws, bounds up to ``2**32 - 1``)."""
    if not _checked:
        a, b = random.Random(12345), random.Random(12345)
        want = list(range(1000))
        a.shuffle(want)
        bounds = [1, 2, 3, 5, 7, 100, 2**31 - 1, 2**31, 2**32 - 1, 6, 1]
        want_draws = [a.choice(range(m)) for m in bounds]
        state, extra = load(b)
        got = shuffle_identity(state, 1000).tolist()
        got_draws = _draws(state, np.array(bounds, dtype=np.int64)).tolist()
        store(b, state, extra)
        _checked.append(got == want and got_draws == want_draws and a.getstate() == b.getstate())
    return _checked[0]
