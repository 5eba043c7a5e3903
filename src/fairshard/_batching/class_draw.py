"""Pure draws behind ``ClassBatchSampler``: per-class streams and class choices.

All functions take the plan's generator and are pure functions of their
arguments, so the sampler's plan depends only on (config, seed, epoch).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["choose_recycle", "choose_stop", "class_stream", "group_members"]

_STOP_BLOCK = 1 << 18  # uniforms drawn per block by choose_stop


def group_members(codes: NDArray[np.int64], num_classes: int) -> list[NDArray[np.int64]]:
    """Dataset indices of each class: ``members[c]`` for class code ``c``.

    Codes below ``2**16`` are sorted as uint16, which numpy sorts stably by
    radix (several times faster than the int64 merge sort; the same order).
    """
    narrow = codes.astype(np.uint16) if num_classes <= (1 << 16) else codes
    order = np.argsort(narrow, kind="stable").astype(np.int64)
    bounds = np.zeros(num_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=num_classes), out=bounds[1:])
    return [order[bounds[c] : bounds[c + 1]] for c in range(num_classes)]


def class_stream(
    members: NDArray[np.int64], need: int, chunk: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """``need`` samples of one class, drawn without replacement until exhausted.

    The stream is consumed in chunks of ``chunk`` (one chunk per batch). When
    ``need`` exceeds the class size, the class is reshuffled and the stream
    continues (``recycle``); a chunk that straddles two passes never holds a
    sample twice: the new pass's first samples avoid the ones the chunk
    already has.

    Args:
        members: (n,) the class's dataset indices, ``n >= chunk``.
        need: Samples to draw (a multiple of ``chunk``).
        chunk: Samples per batch.
        rng: The plan's generator.

    Returns:
        (need,) int64 dataset indices.
    """
    n = members.size
    if need <= n:
        return members[rng.permutation(n)[:need]]
    passes = -(-need // n)
    order = np.argsort(rng.random((passes, n)), axis=1)  # (passes, n) one permutation per pass
    for p in range(1, passes):
        r = (p * n) % chunk  # samples of the straddling chunk taken from pass p - 1
        if r == 0:
            continue
        left = order[p - 1, n - r :]
        row = order[p]
        clash = np.isin(row, left)
        if clash[: chunk - r].any():  # move the clean ones to the front, keep the rest in order
            order[p] = np.concatenate([row[~clash][: chunk - r], _rest(row, clash, chunk - r)])
    return members[order.reshape(-1)[:need]]


def _rest(row: NDArray[np.int64], clash: NDArray[np.bool_], head: int) -> NDArray[np.int64]:
    """``row`` without its first ``head`` clash-free entries, in order."""
    clean_positions = np.flatnonzero(~clash)[:head]
    keep = np.ones(row.size, dtype=bool)
    keep[clean_positions] = False
    return row[keep]


def choose_stop(
    chunks: NDArray[np.int64], per_batch: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Classes of each batch until fewer than ``per_batch`` classes have samples left.

    Each batch draws ``per_batch`` distinct classes, with probability
    proportional to the chunks each has left (Efraimidis-Spirakis keys), so
    classes deplete at a similar pace and the class mix stays steady through
    the epoch.

    NOTE (speed): batch ``b`` uses the ``b``-th row of ``C`` uniforms of the
    generator. They are drawn in blocks of rows (one ``random`` call, the
    same numbers as one call per row) with their logs taken once per block,
    and a class with nothing left gets ``log(u) / 0 = -inf`` instead of a
    masked write -- the same key values, so the same classes. When the draw
    stops inside a block, the generator is rewound to just after the rows
    used (``PCG64.advance``), so whatever the plan draws next is unchanged.

    Args:
        chunks: (C,) whole chunks each class can still give.
        per_batch: Classes per batch ``P``.
        rng: The plan's generator (PCG64).

    Returns:
        (num_batches, P) int64 class codes.
    """
    left = chunks.astype(np.float64)
    num_classes = left.size
    alive = int(np.count_nonzero(left))
    rows: list[NDArray[np.int64]] = []
    block = max(1, _STOP_BLOCK // max(1, num_classes))
    keys = np.empty(num_classes)
    with np.errstate(divide="ignore"):
        while alive >= per_batch:
            saved = rng.bit_generator.state
            logs = np.log(rng.random((block, num_classes)))  # (block, C)
            np.negative(logs, out=logs)  # -(a / b) == (-a) / b exactly: one negation per block
            used = 0
            while used < block and alive >= per_batch:
                np.divide(logs[used], left, out=keys)
                pick = keys.argpartition(per_batch - 1)[:per_batch].copy()  # not a view: kept
                pick.sort()
                left[pick] -= 1
                alive -= int(np.count_nonzero(left[pick] == 0))
                rows.append(pick)
                used += 1
            if used < block:  # rewind: only `used` rows of uniforms were consumed
                rng.bit_generator.state = saved
                rng.bit_generator.advance(used * num_classes)  # type: ignore[attr-defined]
    if not rows:
        return np.zeros((0, per_batch), dtype=np.int64)
    return np.stack(rows)


def choose_recycle(
    num_classes: int, per_batch: int, num_batches: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """``per_batch`` distinct classes per batch, uniformly at random.

    Returns:
        (num_batches, P) int64 class codes, each row sorted.
    """
    out = np.empty((num_batches, per_batch), dtype=np.int64)
    rows = max(1, (1 << 20) // max(1, num_classes))  # keep each key block near 8 MiB
    for begin in range(0, num_batches, rows):
        end = min(num_batches, begin + rows)
        keys = rng.random((end - begin, num_classes))
        pick = np.argpartition(keys, per_batch - 1, axis=1)[:, :per_batch]
        out[begin:end] = np.sort(pick, axis=1)
    return out
