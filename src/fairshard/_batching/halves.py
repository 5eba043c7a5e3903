"""A batch plan's int64 ``flat`` built through the two int32 halves of its own memory.

NOTE (memory): a family builds its plan in two arrays of item indices --
a working order (shuffled, sorted) and the final batch order that
``reorder_into`` gathers from it -- and the plan keeps the second as int64.
Made separately, the two cost three int32 arrays' worth beyond the result
(an int64 working order, or an int32 one plus the int64 result beside it).
When every index is below ``2**31``, :class:`PlanBuffer` lays both out as
int32 in the one int64 array the plan will own: ``work`` is its upper
half, ``out`` its lower half, and :meth:`PlanBuffer.finish` widens ``out``
to int64 in place, from the back, over ``work``'s spent memory. The whole
build then touches the plan's own array and nothing of its size besides.
Larger indices fall back to a separate int64 ``work`` (twice the plan).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["PlanBuffer"]

_WIDEN_CHUNK = 1 << 16


class PlanBuffer:
    """The (size,) int64 array of a plan and two (size,) working arrays that share it.

    Args:
        size: Items in the plan.
        bound: Every index written is below ``bound`` (the dataset size):
            it decides whether the working arrays can be int32.

    Attributes:
        work: The working order (int32 when it fits: the upper half of the
            plan's memory).
        out: What :meth:`finish` returns as int64 (int32 when it fits: the
            lower half). ``work`` and ``out`` never overlap.
    """

    def __init__(self, size: int, bound: int) -> None:
        self._array = np.empty(size, dtype=np.int64)
        self.work: NDArray[Any]
        self.out: NDArray[Any]
        if bound <= (1 << 31):
            halves = self._array.view(np.int32)  # (2 * size,)
            self.out, self.work = halves[:size], halves[size:]
        else:
            self.out, self.work = self._array, np.empty(size, dtype=np.int64)

    def finish(self, count: int) -> NDArray[np.int64]:
        """``out[:count]`` as int64: the plan's ``flat`` (``work`` is spent)."""
        out, array = self.out, self._array
        del self.out, self.work
        if out.dtype == np.int64:
            return array[:count]
        # From the back: int64 element i covers int32 elements 2i and 2i + 1, at
        # or after i, so every int32 value is read before its memory is written.
        # The chunk is copied first (numpy does not see the overlap of a cast).
        for end in range(count, 0, -_WIDEN_CHUNK):
            start = max(0, end - _WIDEN_CHUNK)
            array[start:end] = out[start:end].copy()
        return array[:count]
