"""Weighted draws without replacement (Efraimidis-Spirakis), sorted fast and small.

Item ``i`` gets the key ``log E_i - log w_i`` with ``E_i`` a unit exponential
from the counter hash of ``i``; the ``k`` smallest keys, in increasing order
(ties by index), are a draw of ``k`` items without replacement, each next
item chosen with probability proportional to its weight among those left.
Keys are compared in log space: ``E_i / w_i`` overflows to infinity for a
tiny positive weight, which would tie it with a zero weight. A zero weight's
key is ``+inf`` and every positive weight's key is finite, so zero weights
sort after all positive ones and are never chosen.

NOTE (speed and memory): the order is exactly "sort by (key, index)", but it
is not computed with ``argsort``/``lexsort`` of float keys (an index sort is
~10x slower than a value sort and needs a second n-array). Instead each
item is packed into one uint64 word -- a monotone quantization of its key
in the high bits, its index in the low ``ceil(log2 n)`` bits -- and the words
are sorted *by value, in place* (numpy's SIMD sort). Words order by
(quantized key, index); items whose quantized keys tie (a few per million at
2**24 items) get their exact keys recomputed from the hash (random access)
and are re-sorted by (key, index) within their run, so the result equals the
exact sort bit for bit (tests compare it with the plain lexsort). The keys
are computed in cache-sized chunks (4x faster than large chunks), straight
into the buffer that becomes the packed words and then the order: beyond the
weights, the build needs 8 bytes per item plus O(chunk) scratch, and the
order kept for the epoch is int32 (4 bytes per draw) below 2**31 items.

NOTE (world size): each rank needs the draws at its own positions of the
global order, and a position's item is known only after all keys are
ordered, so every rank computes the whole order: the build does not get
cheaper with more ranks (the epoch's iteration does, 1/W of the draws each).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._random.counter import counter_hash, uniform_open

__all__ = ["exponential_keys_order"]

_CHUNK = 1 << 16  # items per vectorized pass: the temporaries stay in cache
_MAX_QUANT_BITS = 52  # quantized keys stay exact integers in float64


def _keys(
    w: NDArray[np.float64],
    hash_keys: NDArray[np.uint64],
    items: NDArray[np.int64],
    out: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """(m,) exact keys ``log E_i - log w_i`` of ``items`` (weights ``w``); ``+inf`` where 0."""
    e = -np.log(uniform_open(counter_hash(hash_keys, items)))
    positive = w > 0
    if out is None:
        out = np.empty(w.shape[0])
    out.fill(np.inf)
    # E_i > 0 (uniform_open excludes 1), so both logs are finite for w_i > 0.
    np.subtract(np.log(e), np.log(w, where=positive, out=np.ones_like(w)), out=out, where=positive)
    return out


def exponential_keys_order(
    weights: NDArray[np.float64],
    num_samples: int,
    keys: NDArray[np.uint64],
    *,
    quant_bits: int | None = None,
) -> NDArray[np.int64] | NDArray[np.int32]:
    """The first ``num_samples`` items of a weighted draw without replacement.

    Args:
        weights: (n,) float64, finite, non-negative, at least ``num_samples``
            of them positive.
        num_samples: How many items to draw.
        keys: (2,) uint64 hash keys.
        quant_bits: Bits of the quantized key (default: all that fit beside
            the index, at most 52). Fewer bits only make more ties to
            resolve exactly -- the result is the same; tests use it to
            exercise that path.

    Returns:
        (num_samples,) distinct items in draw order: int32 when
        ``n <= 2**31``, else int64.
    """
    n = int(weights.shape[0])
    index_bits = max(1, (n - 1).bit_length())
    bits = min(64 - index_bits, _MAX_QUANT_BITS) if quant_bits is None else quant_bits
    if not 1 <= bits <= min(64 - index_bits, _MAX_QUANT_BITS):
        raise ValueError(f"quant_bits={quant_bits} does not fit beside {index_bits} index bits")
    buf = np.empty(n, dtype=np.float64)  # keys, then packed words, then the order
    low, high = np.inf, -np.inf
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        k = _keys(weights[lo:hi], keys, np.arange(lo, hi, dtype=np.int64), out=buf[lo:hi])
        low = min(low, float(k.min()))
        high = max(high, float(np.max(k, where=k < np.inf, initial=-np.inf)))
    _pack(buf, low, high, bits, index_bits)
    words = buf.view(np.uint64)
    m = num_samples
    if m < n:
        words.partition(m - 1)  # the m smallest words first (words are distinct)
    head = words[:m]
    head.sort()
    _resolve_ties(head, words[m:], weights, keys, index_bits)
    head &= np.uint64((1 << index_bits) - 1)
    del words, head
    return _compact(buf, m)


def _pack(buf: NDArray[np.float64], low: float, high: float, bits: int, index_bits: int) -> None:
    """Overwrite the keys in ``buf`` with ``quantized key << index_bits | index``.

    The quantization ``floor((key - low) * scale)`` is monotone (every step
    rounds monotonically), so a smaller word never holds a larger key. Positive
    weights map into ``[0, 2**bits - 2]``; zero weights (key ``+inf``) get
    ``2**bits - 1``, so they never tie with a positive weight.
    """
    top = float((1 << bits) - 2)
    span = high - low
    scale = top / span if span > 0 else 0.0
    words = buf.view(np.uint64)
    shift = np.uint64(index_bits)
    for lo in range(0, buf.shape[0], _CHUNK):
        hi = min(buf.shape[0], lo + _CHUNK)
        k = buf[lo:hi]
        zero = k == np.inf
        with np.errstate(invalid="ignore"):
            q = np.floor((k - low) * scale)
            np.minimum(q, top, out=q)
        q[zero] = top + 1.0
        packed = q.astype(np.uint64)
        packed <<= shift
        packed |= np.arange(lo, hi, dtype=np.uint64)
        words[lo:hi] = packed


def _resolve_ties(
    head: NDArray[np.uint64],
    rest: NDArray[np.uint64],
    weights: NDArray[np.float64],
    keys: NDArray[np.uint64],
    index_bits: int,
) -> None:
    """Reorder runs of equal quantized keys in sorted ``head`` by exact (key, index).

    Works chunk by chunk (a chunk is extended to the end of the run it cuts),
    so the scratch is O(chunk). The last run of ``head`` may continue into
    ``rest`` (the unsorted words after it): those candidates compete for its
    slots, so the head holds exactly the ``len(head)`` smallest exact keys.
    """
    shift = np.uint64(index_bits)
    m = head.shape[0]
    last_q = head[m - 1] >> shift
    found = [c[(c >> shift) == last_q] for c in _chunks(rest)]
    extras = np.concatenate(found) if found else np.empty(0, np.uint64)
    lo = 0
    while lo < m:
        hi = min(m, lo + _CHUNK)
        if hi < m and (head[hi] >> shift) == (head[hi - 1] >> shift):
            # Never cut a run: head holds positive weights only, so q + 1 fits.
            hi = int(np.searchsorted(head, ((head[hi - 1] >> shift) + np.uint64(1)) << shift))
        _resolve_run_chunk(head[lo:hi], extras if hi == m else None, weights, keys, index_bits)
        lo = hi


def _chunks(words: NDArray[np.uint64]) -> list[NDArray[np.uint64]]:
    return [words[lo : lo + _CHUNK] for lo in range(0, words.shape[0], _CHUNK)]


def _resolve_run_chunk(
    chunk: NDArray[np.uint64],
    extras: NDArray[np.uint64] | None,
    weights: NDArray[np.float64],
    keys: NDArray[np.uint64],
    index_bits: int,
) -> None:
    """``_resolve_ties`` on whole runs; ``extras`` compete for the last run's slots."""
    shift = np.uint64(index_bits)
    q = chunk >> shift
    at = np.flatnonzero(q[1:] == q[:-1])
    tied = [at, at + 1]
    if extras is not None and extras.size:
        tied.append(np.arange(np.searchsorted(q, q[-1]), q.shape[0]))
    else:
        extras = np.empty(0, np.uint64)
    slots = np.unique(np.concatenate(tied))  # sorted positions in chunk
    if slots.size == 0:
        return
    words = np.concatenate([chunk[slots], extras])
    items = (words & np.uint64((1 << index_bits) - 1)).astype(np.int64)
    order = np.lexsort((items, _keys(weights[items], keys, items), words >> shift))
    chunk[slots] = words[order[: slots.shape[0]]]


def _compact(buf: NDArray[np.float64], m: int) -> NDArray[np.int64] | NDArray[np.int32]:
    """The first ``m`` words of ``buf`` (item ids) as int32 in place, freeing the rest.

    Below ``2**31`` items an id fits in 4 bytes: the ids are moved down into
    the first half of the buffer, chunk by chunk (a chunk's writes land on
    bytes already read), and the buffer is shrunk to that half.
    """
    ids = buf.view(np.int64)
    if buf.shape[0] > (1 << 31):
        if m == buf.shape[0]:
            return np.asarray(ids, dtype=np.int64)
        return np.array(ids[:m], dtype=np.int64)
    small = buf.view(np.int32)
    for lo in range(0, m, _CHUNK):
        hi = min(m, lo + _CHUNK)
        small[lo:hi] = ids[lo:hi]  # numpy buffers the overlap of the first chunks
    del ids, small
    buf.resize((m + 1) // 2, refcheck=False)  # sole owner: no view of buf is alive
    return buf.view(np.int32)[:m]
