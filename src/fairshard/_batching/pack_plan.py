"""Packing items into fixed-capacity rows: the pure algorithm and its plan.

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
(``_SlotSet``). On log-normal lengths (``mu=5, sigma=0.8``, capacity 4096)
rows are 99% full with ``window=1024`` and 99.7% with 4096
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

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.plans import BatchPlan, shareable
from .base import reorder_batches

__all__ = ["PackedPlan", "narrow_int", "pack_items", "pack_windows"]

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
    untaken = _SlotSet(count, window)
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
        bit = slot & (_WORD - 1)
        taken_below = ~words[w * width + (slot >> _SHIFT)] & _BELOW[bit]
        run = np.minimum(fit, bit - _highest_bit(taken_below))
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


_WORD = 32  # bits per word of ``_SlotSet``: a float64 holds any word exactly
_SHIFT = 5  # log2(_WORD)
_LOW = np.array([(2 << b) - 1 for b in range(_WORD)], dtype=np.uint32)  # bits 0..b set
_BELOW = np.array([(1 << b) - 1 for b in range(_WORD + 1)], dtype=np.uint32)  # bits 0..b-1 set
_BIT = np.array([1 << b for b in range(_WORD)], dtype=np.uint32)


def _highest_bit(words: NDArray[np.uint32]) -> NDArray[np.int64]:
    """(m,) index of the highest set bit of each word; -1 for a zero word."""
    bit: NDArray[np.int64] = np.frexp(words.astype(np.float64))[1].astype(np.int64) - 1
    return bit


class _SlotSet:
    """Each window's untaken local slots, as a tree of 32-bit words.

    Level 0 holds one bit per slot; a bit of level ``k + 1`` says whether
    word ``k`` under it is nonzero. "The highest untaken slot at or below
    ``p``" is then one word and one highest-bit per level, the same few
    numpy operations for every window, where walking pointers over runs of
    taken slots took as many rounds as the longest run.

    Args:
        count: (W,) slots of each window (all untaken).
        window: Slots per full window.
    """

    def __init__(self, count: NDArray[np.int64], window: int) -> None:
        self.levels: list[NDArray[np.uint32]] = []  # level k: (W * widths[k],) words
        self.widths: list[int] = []
        bits, filled = window, count
        while True:
            width = -(-bits // _WORD)
            left = filled[:, None] - _WORD * np.arange(width, dtype=np.int64)  # (W, width)
            words = _LOW[np.clip(left, 1, _WORD) - 1]
            words[left <= 0] = 0
            self.levels.append(words.reshape(-1))
            self.widths.append(width)
            if width == 1:
                break
            bits, filled = width, -(-filled // _WORD)

    def at_or_below(self, probe: NDArray[np.int64], w: NDArray[np.int64]) -> NDArray[np.int64]:
        """(m,) the highest untaken slot ``<= probe`` of window ``w``; -1 if none (or probe < 0)."""
        out = np.full(probe.shape, -1, dtype=np.int64)
        at = np.flatnonzero(probe >= 0)
        out[at] = self._search(0, probe[at], w[at])
        return out

    def _search(
        self, level: int, bit: NDArray[np.int64], w: NDArray[np.int64]
    ) -> NDArray[np.int64]:
        """The highest set bit ``<= bit`` (all >= 0) of ``level`` in window ``w``; -1 if none."""
        words, width = self.levels[level], self.widths[level]
        word_at = bit // _WORD
        found = words[w * width + word_at] & _LOW[bit % _WORD]
        out = word_at * _WORD + _highest_bit(found)
        empty = np.flatnonzero(found == 0)
        if empty.size:
            out[empty] = -1
            if level + 1 < len(self.levels):
                lower = word_at[empty] - 1  # the highest nonzero word below this one
                inside = np.flatnonzero(lower >= 0)
                ws = w[empty[inside]]
                word = self._search(level + 1, lower[inside], ws)
                hit = np.flatnonzero(word >= 0)
                word, ws = word[hit], ws[hit]
                out[empty[inside[hit]]] = word * _WORD + _highest_bit(words[ws * width + word])
        return out

    def remove_run(
        self, top: NDArray[np.int64], run: NDArray[np.int64], w: NDArray[np.int64]
    ) -> None:
        """Mark the ``run`` slots ending at ``top`` of window ``w`` taken (all in one word)."""
        low = top & (_WORD - 1)
        bit, mask = top >> _SHIFT, _LOW[low] ^ _BELOW[low + 1 - run]
        for words, width in zip(self.levels, self.widths, strict=True):
            cell = w * width + bit
            words[cell] &= ~mask
            emptied = np.flatnonzero(words[cell] == 0)
            if not emptied.size:
                return
            mask = _BIT[bit[emptied] & (_WORD - 1)]  # above: one bit per emptied word
            bit, w = (bit >> _SHIFT)[emptied], w[emptied]


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


@shareable
class PackedPlan(BatchPlan):
    """Batches of rows of item indices: ``items()`` gives ``list[list[list[int]]]``.

    The base :class:`BatchPlan` sees each batch as the flat list of its items
    (``offsets`` delimit batches in ``flat``, so ``sizes()`` counts items per
    batch); ``row_offsets`` additionally delimits the rows in ``flat``.

    Args:
        flat: (n,) item indices, row after row, batch after batch.
        row_offsets: (rows + 1,) row boundaries in ``flat``.
        batch_rows: (batches + 1,) batch boundaries in rows.
        row_loads: (rows,) tokens of each row, if known (the packer knows
            them; a batch's token cost is then a sum over its rows, not a
            gather of every item's length).

    Example:
        >>> plan = PackedPlan(np.array([4, 2, 9, 7, 1]), np.array([0, 2, 3, 5]),
        ...                   np.array([0, 2, 3]))
        >>> plan.items(np.array([1, 0]))
        [[[7, 1]], [[4, 2], [9]]]
    """

    def __init__(
        self,
        flat: NDArray[np.int64],
        row_offsets: NDArray[np.int64],
        batch_rows: NDArray[np.int64],
        row_loads: NDArray[np.integer[Any]] | None = None,
    ) -> None:
        super().__init__(flat, row_offsets[batch_rows])
        self.row_offsets = np.asarray(row_offsets, dtype=np.int64)
        self.batch_rows = np.asarray(batch_rows, dtype=np.int64)
        self.row_loads = row_loads

    def plan_arrays(self) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The item indices, the row and batch boundaries and the rows' tokens if known."""
        arrays = {"flat": self.flat, "row_offsets": self.row_offsets}
        loads = {} if self.row_loads is None else {"row_loads": self.row_loads}
        return {**arrays, "batch_rows": self.batch_rows, **loads}, {}

    @classmethod
    def from_plan_arrays(
        cls, arrays: Mapping[str, NDArray[Any]], meta: Mapping[str, Any]
    ) -> PackedPlan:
        """The plan over published arrays (read-only, not copied)."""
        loads = arrays.get("row_loads")  # absent from a plan cached without them
        return cls(arrays["flat"], arrays["row_offsets"], arrays["batch_rows"], loads)

    def rows_per_batch(self) -> NDArray[np.int64]:
        """(batches,) number of rows in each batch."""
        return np.diff(self.batch_rows)

    def items(self, positions: NDArray[np.int64]) -> list[Any]:
        """The batches at ``positions``, each a list of rows of Python ints."""
        out: list[Any] = []
        row_offsets = self.row_offsets
        for b in positions.tolist():
            r0, r1 = int(self.batch_rows[b]), int(self.batch_rows[b + 1])
            bounds = row_offsets[r0 : r1 + 1]
            values = self.flat[bounds[0] : bounds[-1]].tolist()
            base = int(bounds[0])
            marks = (bounds - base).tolist()
            out.append([values[a:z] for a, z in itertools.pairwise(marks)])
        return out
