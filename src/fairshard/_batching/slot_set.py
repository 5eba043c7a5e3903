"""Each packing window's untaken slots, as a tree of bit words (``SlotSet``).

The data structure under ``_batching.pack_plan``'s bin completion: "the
highest untaken slot at or below ``p``" for every window at once, in a few
numpy operations per level of the tree.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["BELOW", "BIT", "LOW", "SHIFT", "WORD", "SlotSet", "highest_bit"]

WORD = 32  # bits per word of ``SlotSet``: a float64 holds any word exactly
SHIFT = 5  # log2(WORD)
LOW = np.array([(2 << b) - 1 for b in range(WORD)], dtype=np.uint32)  # bits 0..b set
BELOW = np.array([(1 << b) - 1 for b in range(WORD + 1)], dtype=np.uint32)  # bits 0..b-1 set
BIT = np.array([1 << b for b in range(WORD)], dtype=np.uint32)


def highest_bit(words: NDArray[np.uint32]) -> NDArray[np.int64]:
    """(m,) index of the highest set bit of each word; -1 for a zero word."""
    bit: NDArray[np.int64] = np.frexp(words.astype(np.float64))[1].astype(np.int64) - 1
    return bit


class SlotSet:
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
            width = -(-bits // WORD)
            left = filled[:, None] - WORD * np.arange(width, dtype=np.int64)  # (W, width)
            words = LOW[np.clip(left, 1, WORD) - 1]
            words[left <= 0] = 0
            self.levels.append(words.reshape(-1))
            self.widths.append(width)
            if width == 1:
                break
            bits, filled = width, -(-filled // WORD)

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
        word_at = bit // WORD
        found = words[w * width + word_at] & LOW[bit % WORD]
        out = word_at * WORD + highest_bit(found)
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
                out[empty[inside[hit]]] = word * WORD + highest_bit(words[ws * width + word])
        return out

    def remove_run(
        self, top: NDArray[np.int64], run: NDArray[np.int64], w: NDArray[np.int64]
    ) -> None:
        """Mark the ``run`` slots ending at ``top`` of window ``w`` taken (all in one word)."""
        low = top & (WORD - 1)
        bit, mask = top >> SHIFT, LOW[low] ^ BELOW[low + 1 - run]
        for words, width in zip(self.levels, self.widths, strict=True):
            cell = w * width + bit
            words[cell] &= ~mask
            emptied = np.flatnonzero(words[cell] == 0)
            if not emptied.size:
                return
            mask = BIT[bit[emptied] & (WORD - 1)]  # above: one bit per emptied word
            bit, w = (bit >> SHIFT)[emptied], w[emptied]
