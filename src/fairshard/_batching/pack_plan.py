"""Packing items into fixed-capacity rows: the pure algorithm.

NOTE (algorithm): items are shuffled, cut into windows of ``window`` items,
and every window is packed on its own by *bin completion* -- all windows at
once, each step of the loop below being a few numpy operations over every
window:

1. open a row with the longest item left in the window;
2. add the longest item left that still fits the row, and repeat until no
   item left fits; then go to 1.

This is first-fit decreasing restricted to one open row at a time: a row is
closed only when nothing left fits it, so its waste is smaller than the
shortest item left. Within a window the lengths are sorted once; the next
pick is at or below the row's last one, usually the first item left there
(checked first), else found by a binary search within the window; items
already taken are skipped with a tree of bit words per window
(``slot_set.SlotSet``). On log-normal lengths (``mu=5, sigma=0.8``,
capacity 4096) rows are 99% full with ``window=1024`` and 99.7% with 4096
(``benchmarks/bench_packing.py``).

NOTE (runs): nine picks in ten are that first item left below the last
pick, and they come in runs: once an item fits, the untaken items just
below it are shorter and often fit as well. So each step of the loop takes,
in every window, its pick and then as many of the next untaken slots below
it as still fit (up to ``_AHEAD``, within one bit word), and closes a row
and opens the next in the same step when nothing fits. Each window then
needs about a quarter of the steps it needed one pick at a time, and the
picks are exactly the ones of one pick at a time (``test_packing.py`` checks
them against a one-item-at-a-time reference).

Rows are numbered as one pick at a time would open them, all windows in
lock step: by step, then by window, where that step of a window is its
number of events before the row (its picks, plus one close per row before).
Each row records that number and the numbering is one sort at the end, so
it does not depend on how many picks the loop takes at once.

A larger window packs tighter but mixes items from further apart in the
shuffled order. Rows are shuffled again into batches afterwards, so rows
from one window do not stay together.

NOTE (memory): at ``n`` items the loop holds, besides the caller's ``items``,
the sorted lengths (2 bytes per item below a capacity of ``2**15``, in the
caller's ``scratch`` when it offers room), the picks (2 bytes per item for
windows below ``2**15`` items) and the bit tree (1/8 byte per item). The sort
and the output are done a chunk of windows at a time, in place in ``items``,
so neither needs another array of ``n``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .base import reorder_batches
from .slot_set import BELOW, SHIFT, WORD, SlotSet, highest_bit

__all__ = ["narrow_int", "pack_items", "pack_windows"]

_CHUNK = 1 << 16  # items per chunk of windows, sorted or written out at once
_AHEAD = 8  # the most picks a window takes in one step (see the module NOTE on runs)


def narrow_int(limit: int) -> type[np.signedinteger[Any]]:
    """The narrowest of int16, int32 and int64 that holds every integer in ``[-limit, limit]``."""
    for dtype in (np.int16, np.int32):
        if limit <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def pack_windows(
    lengths: NDArray[np.int64], capacity: int, window: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Pack consecutive windows of items into rows of at most ``capacity`` tokens.

    Args:
        lengths: (n,) lengths in ``[1, capacity]``, in the (already shuffled)
            order the windows are cut from.
        capacity: Tokens per row.
        window: Items per window (the last window may be shorter).

    Returns:
        ``(members, row_offsets)``: (n,) positions into ``lengths`` grouped
        by row, rows in the order they were opened (see the module notes),
        longest first within a row, and (rows + 1,) int64 CSR offsets of
        each row in ``members``.

    Example:
        >>> members, offsets = pack_windows(np.array([6, 1, 3, 4, 2]), 7, 5)
        >>> [members[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]
        [[0, 1], [3, 2], [4]]
    """
    n = int(lengths.shape[0])
    flat, row_offsets, row_order, _ = pack_items(
        np.arange(n, dtype=np.int64), np.asarray(lengths), capacity, window
    )
    plan = reorder_batches(flat, row_offsets, row_order)
    return plan.flat, plan.offsets


def pack_items(
    items: NDArray[Any],
    lengths: NDArray[Any],
    capacity: int,
    window: int,
    scratch: NDArray[Any] | None = None,
) -> tuple[NDArray[Any], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Pack consecutive windows of ``items`` into rows of at most ``capacity`` tokens.

    Args:
        items: (n,) ids into ``lengths`` (any integer dtype), in the
            (already shuffled) order the windows are cut from. Overwritten:
            it comes back as ``flat``.
        lengths: (N,) tokens of every id; those of ``items`` in ``[1, capacity]``.
        capacity: Tokens per row.
        window: Items per window (the last window may be shorter).
        scratch: (n,) memory the sorted lengths may take (any dtype at least
            as wide as theirs, int16 below a capacity of ``2**15``); else
            they get their own.

    Returns:
        ``(flat, row_offsets, row_order, loads)``: ``flat`` is ``items``
        itself, rearranged row by row (each window's rows back to back,
        windows in order, longest item first within a row);
        ``row_offsets`` (rows + 1,) the CSR offsets of those rows;
        ``row_order`` (rows,) the rows as the loop opened them (row ``g``
        of the module notes is CSR row ``row_order[g]``); ``loads``
        (rows,) the tokens of each CSR row.
    """
    n = int(items.shape[0])
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return items, np.zeros(1, dtype=np.int64), empty, empty
    num_windows = -(-n // window)
    key = _sort_windows(items, lengths, capacity, window, scratch)
    stream = np.empty(n, dtype=narrow_int(window))  # (n,) local slot of each window's p-th pick
    starts = _bin_completion(key, stream, capacity, window, num_windows)
    by_start = np.argsort(starts, kind="stable")  # CSR row -> row number
    row_offsets = np.empty(starts.size + 1, dtype=np.int64)
    row_offsets[:-1] = starts[by_start]
    del starts
    row_offsets[-1] = n
    row_order = np.empty(by_start.size, dtype=np.int64)
    row_order[by_start] = np.arange(by_start.size, dtype=np.int64)
    del by_start
    loads = _write_rows(items, key, stream, row_offsets, window)
    return items, row_offsets, row_order, loads


def _span(window: int) -> int:
    """Items per chunk of whole windows that the setup and the output work through."""
    return max(1, _CHUNK // window) * window


def _chunks(n: int, window: int) -> range:
    """Starts of those chunks."""
    return range(0, n, _span(window))


def _sort_windows(
    items: NDArray[Any],
    lengths: NDArray[Any],
    capacity: int,
    window: int,
    scratch: NDArray[Any] | None,
) -> NDArray[Any]:
    """Sort every window of ``items`` in place by (length, position); return the sorted lengths.

    Returns:
        (n,) the length of the sorted item ``i``: ascending within each
        window, so "the longest item <= room in window w" is the last slot
        of w at or below a value (``_last_fit``).
    """
    n = int(items.shape[0])
    key_dtype = np.dtype(narrow_int(capacity))
    key: NDArray[Any]
    if scratch is not None and scratch.nbytes >= n * key_dtype.itemsize:
        key = scratch.reshape(-1).view(key_dtype)[:n]
    else:
        key = np.empty(n, dtype=key_dtype)
    # NOTE (stable sort, in chunks): ``length * stride + local position`` (the
    # stride a power of two >= window, so both parts are bit fields) is
    # unique, so any sort of it orders ties by position, as a stable sort of
    # the lengths would; sorting a (windows, window) chunk along its rows
    # sorts every window at once.
    shift = (window - 1).bit_length()
    comp_dtype = narrow_int((capacity + 1) << shift)
    span = _span(window)
    local = np.arange(span, dtype=comp_dtype) % window  # (span,) position within its window
    first = np.arange(span, dtype=np.int64) - local  # (span,) its window's first, in the chunk
    for a in _chunks(n, window):
        b = min(n, a + span)
        ids = items[a:b]
        comp = lengths[ids].astype(comp_dtype)
        comp <<= shift
        comp += local[: b - a]
        full = (b - a) // window * window
        comp[:full].reshape(-1, window).sort(axis=1)
        comp[full:].sort()
        items[a:b] = ids[first[: b - a] + (comp & ((1 << shift) - 1))]
        comp >>= shift
        key[a:b] = comp
    return key


def _bin_completion(
    key: NDArray[Any], stream: NDArray[Any], capacity: int, window: int, num_windows: int
) -> NDArray[Any]:
    """Run bin completion on every window in lock step; write each window's runs to ``stream``.

    Returns:
        (rows,) where each row starts in the window-major picks (its
        window's first position plus the items the window had taken before
        it), rows in the order one pick at a time opens them (module notes).
        ``stream`` holds, at each window's ``p``-th pick, its local slot
        where a run starts and -1 inside a run (``_write_rows`` fills them).
    """
    n = int(stream.shape[0])
    w = np.arange(num_windows, dtype=np.int64)  # (A,) the windows with items left
    base = w * window  # (A,) first sorted position of each window
    count = np.minimum(base + window, n) - base  # (A,) items per window
    untaken = SlotSet(count, window)
    words, width = untaken.levels[0], untaken.widths[0]
    room = np.full(num_windows, capacity, dtype=np.int64)  # (A,) tokens the open row has left
    top = count - 1  # (A,) local slot at or above the longest item left
    candidate = top.copy()  # (A,) the first untaken slot at or below the row's last pick
    picks = np.zeros(num_windows, dtype=np.int64)  # (A,) items taken so far
    rows = np.zeros(num_windows, dtype=np.int64)  # (A,) rows opened so far
    opening = np.ones(num_windows, dtype=bool)  # (A,) the next pick opens a row
    ahead = np.arange(_AHEAD, dtype=np.int64)[:, None]  # (K, 1) the pick and the slots below
    sum_dtype = narrow_int(capacity * _AHEAD)
    stream.fill(-1)
    # A window has at most ``window`` picks and as many closes before a row.
    start_dtype, event_dtype = narrow_int(n), narrow_int((2 * window + 1) * num_windows)
    starts: list[NDArray[Any]] = []  # per step, where the rows it opened start
    events: list[NDArray[Any]] = []  # and their (step, window) in one pick at a time
    while w.size:
        # NOTE (candidate): the untaken items above a row's last pick were
        # longer than the room it had then, so the next pick is at or below
        # it; the first untaken item there usually fits, and only the rows it
        # does not fit need a search.
        slot = candidate
        search = np.flatnonzero((slot >= 0) & (key[base + slot] > room))
        if search.size:
            at = _last_fit(key, base[search], slot[search], room[search])  # -1: none fits
            slot[search] = untaken.at_or_below(at, w[search])
        closing = np.flatnonzero(slot < 0)
        if closing.size:  # nothing fits the open row: close it, open the next with the longest
            slot[closing] = untaken.at_or_below(top[closing], w[closing])
            room[closing] = capacity
            opening[closing] = True
        opened = np.flatnonzero(opening)
        if opened.size:
            starts.append((base[opened] + picks[opened]).astype(start_dtype))
            step = picks[opened] + rows[opened]
            events.append((step * num_windows + w[opened]).astype(event_dtype))
            rows[opened] += 1
            top[opened] = slot[opened] - 1  # everything above the longest item left is taken
            opening[opened] = False
        # The run: the pick, then the untaken slots just below it (in its bit
        # word) while their lengths, added up, still fit.
        cell = base + slot
        below = key.take(cell - ahead, mode="clip")  # (K, A); past the start: not in the run
        used = np.cumsum(below, axis=0, dtype=sum_dtype)  # (K, A) tokens of the runs
        fit = np.count_nonzero(used <= room, axis=0)  # >= 1: the pick itself fits
        bit = slot & (WORD - 1)
        taken_below = ~words[w * width + (slot >> SHIFT)] & BELOW[bit]
        run = np.minimum(fit, bit - highest_bit(taken_below))
        room -= used.reshape(-1)[(run - 1) * run.size + np.arange(run.size)]
        stream[base + picks] = slot
        untaken.remove_run(slot, run, w)
        candidate = untaken.at_or_below(slot - run, w)
        picks += run
        done = picks == count
        if done.any():
            keep = ~done
            w, base, count, room, opening = (
                w[keep],
                base[keep],
                count[keep],
                room[keep],
                opening[keep],
            )
            top, candidate, picks, rows = top[keep], candidate[keep], picks[keep], rows[keep]
    order = np.argsort(np.concatenate(events), kind="stable")  # unique: any sort would do
    return np.concatenate(starts)[order]


def _last_fit(
    key: NDArray[Any], base: NDArray[np.int64], below: NDArray[np.int64], room: NDArray[np.int64]
) -> NDArray[np.int64]:
    """(m,) the last local slot ``< below`` of each window whose length is ``<= room``; -1: none.

    A binary search within each window (lengths ascending there), all windows
    at once: ``log2(window)`` rounds of a few operations, each reading one
    length per window.
    """
    lo = base.copy()  # every position below lo fits
    hi = base + below  # hi does not fit (the slot ``below`` itself did not)
    for _ in range(int(below.max()).bit_length()):
        mid = (lo + hi) >> 1
        fits = key[mid] <= room
        lo = np.where(fits, mid + 1, lo)
        hi = np.where(fits, hi, mid)
    result: NDArray[np.int64] = lo - 1 - base
    return result


def _write_rows(
    items: NDArray[Any],
    key: NDArray[Any],
    stream: NDArray[Any],
    row_offsets: NDArray[np.int64],
    window: int,
) -> NDArray[np.int64]:
    """Rearrange ``items`` (sorted within windows) into pick order, in place; (rows,) row loads.

    ``stream`` is as ``_bin_completion`` leaves it: the slot where a run
    starts, -1 after it, where the slots go down by one.
    """
    n = int(items.shape[0])
    loads = np.empty(row_offsets.size - 1, dtype=np.int64)
    span = _span(window)
    position = np.arange(span, dtype=np.int64)
    first = position - position % window  # (span,) its window's first, in the chunk
    for a in _chunks(n, window):
        b = min(n, a + span)
        picks = stream[a:b]
        head = np.where(picks >= 0, position[: b - a], 0)  # a window's first pick starts a run
        np.maximum.accumulate(head, out=head)  # (m,) where the run of each pick starts
        sorted_at = picks[head] - (position[: b - a] - head)  # (m,) the local slot of each pick
        sorted_at += first[: b - a]  # (m,) its sorted position in the chunk
        items[a:b] = items[a:b][sorted_at]
        tokens = key[a:b][sorted_at].astype(np.int64)  # (m,) its length
        r0, r1 = np.searchsorted(row_offsets, (a, b))  # the rows of this chunk
        loads[r0:r1] = np.add.reduceat(tokens, row_offsets[r0:r1] - a)
    return loads
