"""Step arithmetic: global batch sizes, skipped ranges and the deal of one step.

Pure functions of plain numbers, below every sampler. Three maps make a
step-addressed plan (see ``endless`` and docs/steps.md):

``BatchSchedule``
    step ``s`` -> the samples consumed before it, ``first(s)``, and its global
    batch size ``size(s)``. The size is a function of the samples consumed
    so far (Megatron's ``rampup_batch_size`` and step schedules), kept as a
    short list of constant-size segments, so any step is found by a binary
    search -- no replay.
``SkipRanges``
    consumed-sample number ``c`` -> stream position ``p(c)``: ``c`` plus the
    lengths of the declared ranges ``[a, b)`` of positions it has passed.
``deal``
    the samples of one step -> ranks and micro-batches. Micro-batch ``m`` of
    step ``s`` is the consumed numbers ``first(s) + m*W*b + [0, W*b)``; rank
    ``r`` takes every ``W``-th of them from ``r`` (the strided layout of
    ``Partition``).

NOTE (global-batch invariance): what step ``s`` consumes is the numbers
``[first(s), first(s) + size(s))`` -- a function of the schedule alone. The
world size ``W``, the per-rank batch ``b`` and the accumulation count
``A = size(s) / (W*b)`` only decide which rank and micro-batch gets which of
them. So any ``(W, b, A)`` with ``W*b*A = size(s)`` trains step ``s`` on the
same samples, and a job may change ``(W, b)`` at any step boundary.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, check_choice, check_int

__all__ = ["BatchSchedule", "SkipRanges", "StepIndices", "deal"]


Rounding = Literal["exact", "megatron"]
ROUNDINGS: tuple[Rounding, ...] = ("exact", "megatron")


@dataclass(frozen=True)
class _Segment:
    step: int  # first step of the segment
    sample: int  # samples consumed before that step
    size: int  # global batch size of every step in the segment


class BatchSchedule:
    """The global batch size as a function of the samples consumed so far.

    Args:
        points: ``(from_sample, global_batch_size)`` pairs, the first from 0:
            a step that starts once ``from_sample`` samples are consumed has
            that size (until the next point).

    Example:
        >>> s = BatchSchedule.ramp(start=4, increment=4, ramp_samples=16, final=12)
        >>> [s.size(k) for k in range(6)], s.first(5)
        ([4, 4, 8, 12, 12, 12], 40)
    """

    def __init__(self, points: Iterable[tuple[int, int]]) -> None:
        pairs = [
            (check_int("from_sample", a, minimum=0), check_int("global_batch_size", g, minimum=1))
            for a, g in points
        ]
        if not pairs or pairs[0][0] != 0:
            raise ConfigError(
                f"a batch schedule needs a size from sample 0, got points={pairs!r}; "
                "start the list with (0, global_batch_size)"
            )
        if any(b[0] <= a[0] for a, b in itertools.pairwise(pairs)):
            raise ConfigError(f"schedule points must have increasing from_sample, got {pairs!r}")
        self.points: tuple[tuple[int, int], ...] = tuple(pairs)
        self._segments = self._build_segments()
        self._steps = [seg.step for seg in self._segments]
        self._samples = [seg.sample for seg in self._segments]

    @classmethod
    def constant(cls, global_batch_size: int) -> BatchSchedule:
        """Every step has ``global_batch_size`` samples."""
        return cls([(0, global_batch_size)])

    @classmethod
    def ramp(
        cls,
        *,
        start: int,
        increment: int,
        ramp_samples: int,
        final: int,
        rounding: Rounding = "exact",
    ) -> BatchSchedule:
        """Megatron's ``--rampup-batch-size start increment ramp_samples`` up to ``final``.

        The size grows from ``start`` by ``increment`` each time another
        ``ramp_samples / K`` samples are consumed (``K = (final - start) /
        increment`` increments), then stays at ``final``.

        Args:
            start: The first global batch size.
            increment: What each increment adds.
            ramp_samples: Samples over which the ``K`` increments are spread.
            final: The size after the ramp.
            rounding: ``"exact"`` (default): increment ``k`` comes once
                ``ceil(k * ramp_samples / K)`` samples are consumed (exact
                integers). ``"megatron"``: Megatron-LM's calculator
                (``RampupBatchsizeNumMicroBatchesCalculator``), which divides in
                floating point -- ``int(consumed / (ramp_samples / K))``
                increments, and ``final`` only once more than ``ramp_samples``
                are consumed -- so a step whose float quotient falls just
                below an integer has one increment less; use it to reproduce
                a Megatron run step for step.

        Example:
            >>> exact = BatchSchedule.ramp(start=1, increment=1, ramp_samples=9, final=8)
            >>> megatron = BatchSchedule.ramp(
            ...     start=1, increment=1, ramp_samples=9, final=8, rounding="megatron"
            ... )
            >>> exact.size_after(9), megatron.size_after(9)   # 9 / (9 / 7) = 6.999...
            (8, 7)
        """
        start = check_int("start", start, minimum=1)
        increment = check_int("increment", increment, minimum=1)
        ramp_samples = check_int("ramp_samples", ramp_samples, minimum=1)
        final = check_int("final", final, minimum=start)
        check_choice("rounding", rounding, ROUNDINGS)
        if (final - start) % increment:
            raise ConfigError(
                f"final - start must be a multiple of increment, got final={final}, "
                f"start={start}, increment={increment} (Megatron asserts the same)"
            )
        k_max = (final - start) // increment
        points = [(0, start)]
        for k in range(1, k_max + 1):
            at = -(-k * ramp_samples // k_max)
            if rounding == "megatron":
                at = _megatron_threshold(k, k_max, ramp_samples, at)
            if at > points[-1][0]:
                points.append((at, start + k * increment))
            else:  # several increments on one sample: keep the largest
                points[-1] = (points[-1][0], start + k * increment)
        return cls(points)

    @classmethod
    def steps(cls, sizes: Mapping[int, int]) -> BatchSchedule:
        """Sizes that change at given sample counts: ``{0: 256, 1_000_000: 512}``."""
        return cls(sorted(sizes.items()))

    def _build_segments(self) -> list[_Segment]:
        segments: list[_Segment] = []
        step, sample = 0, 0
        starts = [a for a, _ in self.points]
        while True:
            size = self.size_after(sample)
            if segments and segments[-1].size == size:
                pass  # the next point did not change the size at this step
            else:
                segments.append(_Segment(step, sample, size))
            nxt = bisect.bisect_right(starts, sample)
            if nxt == len(starts):
                return segments
            count = -(-(starts[nxt] - sample) // size)  # steps until a step starts past it
            step, sample = step + count, sample + count * size

    def size_after(self, consumed: int) -> int:
        """The size of a step that starts after ``consumed`` samples."""
        i = bisect.bisect_right([a for a, _ in self.points], consumed) - 1
        return self.points[i][1]

    def _segment_of_step(self, step: int) -> _Segment:
        return self._segments[bisect.bisect_right(self._steps, step) - 1]

    def size(self, step: int) -> int:
        """Global batch size of step ``step``."""
        return self._segment_of_step(check_int("step", step, minimum=0)).size

    def segment_end(self, step: int) -> int | None:
        """The first step after ``step`` with another size (``None``: none follows)."""
        i = bisect.bisect_right(self._steps, step)
        return self._steps[i] if i < len(self._steps) else None

    def first(self, step: int) -> int:
        """Samples consumed before step ``step`` (O(log segments))."""
        seg = self._segment_of_step(check_int("step", step, minimum=0))
        return seg.sample + (step - seg.step) * seg.size

    def locate(self, consumed: int) -> tuple[int, int]:
        """``(step, offset)``: the step that sample number ``consumed`` falls in."""
        consumed = check_int("consumed", consumed, minimum=0)
        seg = self._segments[bisect.bisect_right(self._samples, consumed) - 1]
        q, offset = divmod(consumed - seg.sample, seg.size)
        return seg.step + q, offset

    def sizes(self) -> list[int]:
        """Every size the schedule uses."""
        return sorted({g for _, g in self.points})

    def check_divides(self, unit: int, what: str) -> None:
        """Raise unless every size is a multiple of ``unit`` (``W * b``)."""
        bad = [g for g in self.sizes() if g % unit]
        if bad:
            raise ConfigError(_not_a_multiple(bad[0], unit, what))

    def fits_from(self, unit: int) -> int | None:
        """The first step from which every size is a multiple of ``unit`` (``None``: never).

        A ramp's first sizes may be smaller than ``W * b`` of a larger world
        that a job moves to once the ramp has passed (Megatron checks the
        size of the current step only).
        """
        if self._segments[-1].size % unit:
            return None
        for seg, nxt in zip(self._segments[::-1][1:], self._segments[::-1], strict=False):
            if seg.size % unit:
                return nxt.step
        return 0

    def check_step(self, step: int, unit: int, what: str) -> None:
        """Raise unless the size of step ``step`` is a multiple of ``unit``."""
        size = self.size(step)
        if size % unit:
            raise ConfigError(_not_a_multiple(size, unit, what) + f" (step {step})")

    def to_config(self) -> list[list[int]]:
        """Plain data for a state."""
        return [[a, g] for a, g in self.points]


def _not_a_multiple(size: int, unit: int, what: str) -> str:
    return (
        f"global batch size {size} is not a multiple of {what} = {unit}; "
        "every global batch size must split into whole micro-batches on every "
        "rank: choose sizes that are multiples of it, or another micro_batch_size"
    )


def _megatron_threshold(k: int, k_max: int, ramp_samples: int, exact: int) -> int:
    """The fewest consumed samples at which Megatron's calculator counts ``k`` increments.

    Megatron counts ``int(c / (ramp_samples / k_max))`` increments after
    ``c <= ramp_samples`` samples and all ``k_max`` after more. That count is
    monotone in ``c`` and within one of the exact ``floor(c * k_max /
    ramp_samples)``, so the threshold is found by stepping from the exact one.
    """
    per_increment = ramp_samples / k_max

    def count(consumed: int) -> int:
        return k_max if consumed > ramp_samples else int(consumed / per_increment)

    at = exact
    while at > 0 and count(at - 1) >= k:
        at -= 1
    while count(at) < k:
        at += 1
    return at


class SkipRanges:
    """Declared ranges ``[a, b)`` of stream positions no rank ever takes.

    Example:
        >>> s = SkipRanges([(4, 6)])
        >>> s.position(np.arange(7)).tolist()
        [0, 1, 2, 3, 6, 7, 8]
    """

    def __init__(self, ranges: Iterable[Sequence[int]] = ()) -> None:
        pairs = sorted(
            (check_int("skip start", r[0], minimum=0), check_int("skip end", r[1], minimum=0))
            for r in ranges
        )
        merged: list[tuple[int, int]] = []
        for a, b in pairs:
            if b <= a:
                raise ConfigError(f"a skip range [a, b) needs a < b, got [{a}, {b})")
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        self.ranges: tuple[tuple[int, int], ...] = tuple(merged)
        lengths = np.array([b - a for a, b in merged], dtype=np.int64)
        # kept[k]: consumed numbers that come before range k.
        self._before = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        self._kept = np.array([a for a, _ in merged], dtype=np.int64) - self._before[:-1]

    def position(self, consumed: NDArray[np.int64]) -> NDArray[np.int64]:
        """Stream positions of consumed-sample numbers: (m,) -> (m,)."""
        if not self.ranges:
            return consumed
        k = np.searchsorted(self._kept, consumed, side="right")
        out: NDArray[np.int64] = consumed + self._before[k]
        return out

    def skipped_before(self, consumed: int) -> int:
        """Positions skipped before consumed-sample number ``consumed``."""
        return int(self._before[int(np.searchsorted(self._kept, consumed, side="right"))])

    def prefix_until(self, position: int) -> tuple[tuple[int, int], ...]:
        """The ranges (clipped) that start before ``position``: what a resume has passed."""
        return tuple((a, min(b, position)) for a, b in self.ranges if a < position)

    def to_config(self) -> list[list[int]]:
        """Plain data for a state."""
        return [[a, b] for a, b in self.ranges]


def deal(
    first: int, size: int, offset: int, world_size: int, rank: int, micro_batch_size: int
) -> NDArray[np.int64]:
    """Consumed-sample numbers rank ``rank`` takes in one step, in micro-batch order.

    Args:
        first: Samples consumed before the step.
        size: The step's global batch size.
        offset: Samples of the step already consumed (a mid-step resume), a
            multiple of ``world_size * micro_batch_size``.
        world_size: Number of ranks.
        rank: This rank.
        micro_batch_size: Items per rank per micro-batch.

    Returns:
        ``((size - offset) / world_size,)`` int64: micro-batch ``m`` is
        entries ``[m*b, (m+1)*b)``, each ``first + offset + m*W*b + j*W + rank``.
    """
    unit = world_size * micro_batch_size
    micro = (size - offset) // unit
    m = np.arange(micro, dtype=np.int64)[:, None]  # (A, 1)
    j = np.arange(micro_batch_size, dtype=np.int64)[None, :]  # (1, b)
    out: NDArray[np.int64] = (first + offset + m * unit + j * world_size + rank).reshape(-1)
    return out


@dataclass(frozen=True)
class StepIndices:
    """What one global step holds: every rank's items, and where they came from.

    Attributes:
        step: The step.
        first_sample: Samples consumed before it.
        global_batch_size: Its size.
        ranks: ``ranks[r]`` is what rank ``r`` yields in the step, in order.
        epochs: ``epochs[r][i]`` is the epoch of ``ranks[r][i]``.
        positions: ``positions[r][i]`` is its position in the endless stream.
    """

    step: int
    first_sample: int
    global_batch_size: int
    ranks: list[list[Any]]
    epochs: list[list[int]]
    positions: list[list[int]]
