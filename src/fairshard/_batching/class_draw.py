"""Pure draws behind ``ClassBatchSampler``: per-class streams and class choices.

All functions take the plan's generator and are pure functions of their
arguments, so the sampler's plan depends only on (config, seed, epoch).

Two draws exist (the sampler's ``draw``, recorded in its config): draw 1,
the order of fairshard 0.2, kept for the states saved by it, and draw 2, the
current one. They differ in how ``choose_stop_shuffled`` replaces
``choose_stop`` and in how ``class_stream`` shuffles a class's later passes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.labels import code_dtype

__all__ = [
    "DRAWS",
    "choose_recycle",
    "choose_stop",
    "choose_stop_shuffled",
    "class_stream",
    "group_members",
]

#: The draws a sampler can reproduce: 1 (fairshard 0.2's order) and 2 (the current one).
DRAWS = (1, 2)
_STOP_BLOCK = 1 << 18  # uniforms drawn per block by choose_stop
_COUNT_BLOCK = 1 << 20  # codes counted per block by group_members
_REPAIR_ROUNDS = 32  # rounds of swaps choose_stop_shuffled tries before the exact tail
_REPAIR_REACH = 4  # how many batches away a swap partner may be


def group_members(
    codes: NDArray[np.integer[Any]], num_classes: int
) -> list[NDArray[np.integer[Any]]]:
    """Dataset indices of each class, in dataset order: ``members[c]`` for class code ``c``."""
    return split_groups(*group_order(codes, num_classes))


def split_groups(
    order: NDArray[np.integer[Any]], bounds: NDArray[np.int64]
) -> list[NDArray[np.integer[Any]]]:
    """``group_order``'s result as one view of ``order`` per class."""
    return [order[bounds[c] : bounds[c + 1]] for c in range(bounds.size - 1)]


def group_order(
    codes: NDArray[np.integer[Any]], num_classes: int
) -> tuple[NDArray[np.integer[Any]], NDArray[np.int64]]:
    """``(order, bounds)``: every index grouped by class, class ``c``'s at ``bounds[c:c + 2]``.

    NOTE (memory, speed): a stable counting sort run block by block: each
    block of ``_COUNT_BLOCK`` codes is sorted stably (as uint16 where the codes
    fit, which numpy sorts by radix) and its indices are written after those
    of earlier blocks of the same class -- the order of one stable argsort of
    all codes, without its two int64 arrays of the labels' size (the result
    and the radix sort's buffer). The indices are int32 where the dataset
    allows (below ``2**31`` items): the sampler keeps them for every epoch.
    """
    index = np.int32 if codes.size < (1 << 31) else np.int64
    narrow = code_dtype(num_classes)
    counts = np.zeros(num_classes, dtype=np.int64)
    for begin in range(0, codes.size, _COUNT_BLOCK):
        counts += np.bincount(codes[begin : begin + _COUNT_BLOCK], minlength=num_classes)
    bounds = np.zeros(num_classes + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    order = np.empty(codes.size, dtype=index)
    cursor = bounds[:-1].copy()  # (C,) where each class's next index goes
    # Sorted position p of class c goes to cursor[c] + (p - first[c]): a ramp that
    # jumps at each class's run. Written as the running sum of steps (1, plus the
    # jump at a run's start) into buffers reused by every block, so the loop
    # allocates no block-sized temporaries but the sort's result (a per-item
    # gather of the classes took two more, and freed heap the plan's peak counted).
    steps = np.empty(min(codes.size, _COUNT_BLOCK), dtype=np.int64)
    where = np.empty_like(steps)
    for begin in range(0, codes.size, _COUNT_BLOCK):
        block = codes[begin : begin + _COUNT_BLOCK].astype(narrow, copy=False)
        local = np.argsort(block, kind="stable")  # (block,) grouped by class, in order
        seen = np.bincount(block, minlength=num_classes)  # (C,)
        first = np.cumsum(seen) - seen  # where each class starts within the block
        runs = np.flatnonzero(seen)  # the classes present, in sorted order
        target = cursor[runs] - first[runs]  # (runs,) each run's destination shift
        n = local.size
        step, at = steps[:n], where[:n]
        step.fill(1)
        # 1 + the shift's change at each run's start; the first run starts at 0,
        # where the sum begins at its shift: at[p] = p + shift.
        step[first[runs]] += np.diff(target, prepend=1)
        np.cumsum(step, out=at)
        local += begin
        order[at] = local
        cursor += seen
    return order, bounds


def class_stream(
    members: NDArray[np.integer[Any]],
    need: int,
    chunk: int,
    rng: np.random.Generator,
    draw: int,
) -> NDArray[np.integer[Any]]:
    """``need`` samples of one class, drawn without replacement until exhausted.

    The stream is consumed in chunks of ``chunk`` (one chunk per batch). When
    ``need`` exceeds the class size, the class is reshuffled and the stream
    continues (``recycle``); a chunk that straddles two passes never holds a
    sample twice: the new pass's first samples avoid the ones the chunk
    already has.

    NOTE (speed): draw 2 shuffles each full pass with ``permutation`` (a
    Fisher-Yates pass) and draws only what the stream takes of the last one
    (``choice`` without replacement, plus as many as the straddling chunk
    may refuse); draw 1 sorted ``passes x n`` uniforms, several times slower,
    and stays for the states saved by it. A single pass is the same
    permutation in both.

    Args:
        members: (n,) the class's dataset indices, ``n >= chunk``.
        need: Samples to draw (a multiple of ``chunk``).
        chunk: Samples per batch.
        rng: The plan's generator.
        draw: The sampler's draw (``DRAWS``).

    Returns:
        (need,) dataset indices, of ``members``' dtype.
    """
    n = members.size
    if need <= n:
        return members[rng.permutation(n)[:need]]
    passes = -(-need // n)
    if draw == 1:
        order = list(np.argsort(rng.random((passes, n)), axis=1))  # one permutation per pass
    else:
        order = [rng.permutation(n) for _ in range(passes - 1)]
        taken = (passes - 1) * n
        order.append(rng.choice(n, min(n, need - taken + taken % chunk), replace=False))
    for p in range(1, passes):
        r = (p * n) % chunk  # samples of the straddling chunk taken from pass p - 1
        if r == 0:
            continue
        left = order[p - 1][n - r :]
        row = order[p]
        clash = np.isin(row, left)
        if clash[: chunk - r].any():  # move the clean ones to the front, keep the rest in order
            order[p] = np.concatenate([row[~clash][: chunk - r], _rest(row, clash, chunk - r)])
    stream: NDArray[np.integer[Any]] = members[np.concatenate(order)[:need]]
    return stream


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


def choose_stop_shuffled(
    chunks: NDArray[np.int64], per_batch: int, rng: np.random.Generator
) -> NDArray[np.integer[Any]]:
    """``choose_stop``'s batches, drawn for the whole epoch at once (draw 2).

    Every chunk the classes can give is shuffled into one sequence, which is
    cut into batches of ``per_batch``: a uniform shuffle of the chunks is
    the sequence of draws in proportion to the chunks each class has left,
    so the classes deplete together as under ``choose_stop``. A batch that
    holds a class twice is repaired by swapping the extra chunk with one of a
    batch at most ``_REPAIR_REACH`` batches away (each batch keeps distinct
    classes; chunks move a few batches, so the pace is the same). From the
    first batch no swap could repair, the chunks left go to ``choose_stop``
    itself, which ends the epoch by its rule: when fewer than ``per_batch``
    classes have a chunk left.

    NOTE (speed): ``choose_stop`` runs one Python step per batch (156k at
    1e7 items as 16 classes of 4); this runs a shuffle, a sort of each batch
    and a few vectorized rounds of swaps (about 10% of batches hold a class
    twice at 16 of 1000 classes). The exact tail is short unless a class
    holds so many of the chunks that batches cannot all keep it once.

    Args:
        chunks: (C,) whole chunks each class can give.
        per_batch: Classes per batch ``P``.
        rng: The plan's generator.

    Returns:
        (num_batches, P) class codes (uint16 where they fit), each row sorted.
    """
    seq = np.repeat(np.arange(chunks.size, dtype=code_dtype(chunks.size)), chunks)  # (M,)
    rng.shuffle(seq)  # one entry per chunk, shuffled
    rows = seq[: seq.size - seq.size % per_batch].reshape(-1, per_batch)  # (B, P) a view
    rows = rows[: _repair_duplicates(rows, rng)]
    left = chunks - np.bincount(rows.reshape(-1), minlength=chunks.size)
    rows.sort(axis=1)
    tail = choose_stop(left, per_batch, rng).astype(rows.dtype)
    return np.concatenate([rows, tail])


def _repair_duplicates(rows: NDArray[np.integer[Any]], rng: np.random.Generator) -> int:
    """Swap repeated classes out of their rows, in place; the number of leading rows now distinct.

    A swap moves the later copy of a class out of its row ``b`` into row
    ``t = b +- 1.._REPAIR_REACH`` and a chunk of ``t`` into ``b``; it is made
    only when neither row then holds a class twice. Each round makes at most
    one swap per row, so the checks of one round's swaps do not interfere.
    """
    num_rows, width = rows.shape
    if width == 1 or num_rows == 0:
        return int(num_rows)
    ranked = np.sort(rows, axis=1)  # (B, P)
    twice = np.flatnonzero((ranked[:, 1:] == ranked[:, :-1]).any(axis=1))  # rows to repair
    del ranked
    order = np.argsort(rows[twice], axis=1, kind="stable")  # (rows to repair, P)
    ranked = np.take_along_axis(rows[twice], order, axis=1)
    at, bad_rank = np.nonzero(ranked[:, 1:] == ranked[:, :-1])
    bad_row, bad_col = twice[at], order[at, bad_rank + 1]  # where each later copy sits
    del order, ranked
    later_copy = np.zeros(rows.shape, dtype=bool)
    later_copy[bad_row, bad_col] = True
    for _ in range(_REPAIR_ROUNDS):
        if bad_row.size == 0:
            break
        first = np.unique(bad_row, return_index=True)[1]  # one candidate per row
        b, i = bad_row[first], bad_col[first]
        step = rng.integers(1, _REPAIR_REACH + 1, size=b.size)
        t = b + np.where(rng.random(b.size) < 0.5, -step, step)
        j = rng.integers(0, width, size=b.size)
        inside = (t >= 0) & (t < num_rows)
        t = np.where(inside, t, b)
        x, y = rows[b, i], rows[t, j]
        ok = inside & ~later_copy[t, j]
        ok &= ~(rows[b] == y[:, None]).any(axis=1) & ~(rows[t] == x[:, None]).any(axis=1)
        touched, times = np.unique(np.concatenate([b[ok], t[ok]]), return_counts=True)
        once = touched[times == 1]
        ok &= np.isin(b, once) & np.isin(t, once)
        rows[b[ok], i[ok]], rows[t[ok], j[ok]] = y[ok], x[ok]
        later_copy[b[ok], i[ok]] = False
        keep = np.ones(bad_row.size, dtype=bool)
        keep[first[ok]] = False
        bad_row, bad_col = bad_row[keep], bad_col[keep]
    return int(bad_row.min()) if bad_row.size else num_rows


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
