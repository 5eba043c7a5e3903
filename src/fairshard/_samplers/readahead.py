"""``Readahead``: tell the OS which blocks the locality order reads next.

The locality order (``DistributedSampler(order="locality")``) knows which
window of blocks each rank reads after the current one; this helper, used
on the *dataset* side, turns that into ``posix_fadvise(POSIX_FADV_WILLNEED)``
hints on the file the records live in, so the kernel reads the next window
while the loop trains on this one. The sampler itself does no I/O.

NOTE (how it works in DataLoader workers): the plan side is
``_core.locality.WindowTracker`` (a copy of the sampler, the epoch's block
permutation inverted once per epoch and process; no counter, so prefetching,
several workers and ``load_state_dict`` change nothing). This helper turns
the windows it names into byte ranges of one file of fixed-size records. It
opens the file lazily in each process (a forked or spawned worker gets its
own descriptor) and keeps no per-item state. With
``persistent_workers=True`` a worker keeps the sampler copy of the epoch it
was started in; pass the epoch explicitly with ``epoch=`` or rebuild the
loader each epoch. On platforms without ``posix_fadvise`` the hints are
no-ops.

NOTE (why ``read`` reads whole blocks): with hints alone the records still
come one ``pread`` each, at random offsets of a 64 MiB window; from the page
cache that costs about 1.5x a ``pread`` in file order (3.4 vs 2.2 us per
4 KiB record here, measured 2026-12-04), plus a window lookup per record, so
the order read cold at about half of the sequential rate. ``read`` instead
reads a record's whole block (``block_size`` records: one ``pread`` of
1 MiB with the bench's defaults) the first time a process needs it and
serves the block's other records from memory: a dict lookup and a slice.
Blocks are kept in first-read order, ``keep_blocks`` of them (by default one
window's: a rank reads its windows one after another, and a window's records
are spread over all of its blocks until the window ends); a block dropped
too early is only read again, never wrong, since a block's bytes do not
depend on the epoch.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.locality import LocalityPlan, WindowTracker
from .._errors import ConfigTypeError, check_int

__all__ = ["Readahead"]


class Readahead:
    """Hint the next windows of a locality-ordered sampler on a file of fixed-size records.

    Args:
        sampler: A ``DistributedSampler(order="locality")``; a copy travels
            to each DataLoader worker with the dataset that holds this helper.
        path: The file holding the records.
        record_bytes: Bytes per record; record ``i`` starts at
            ``header_bytes + i * record_bytes``.
        header_bytes: Bytes before the first record.
        ahead: Windows hinted beyond the current one (``>= 0``).
        keep_blocks: Blocks :meth:`read` keeps in memory per process
            (``>= 1``; ``None``: the plan's ``window``, e.g. 64 MiB of 1 MiB
            blocks per process and DataLoader worker).

    In the dataset's ``__getitem__``, either call :meth:`read` for the
    record's bytes (the fast path: whole blocks read once, the hints given
    on the way), or read the record yourself and call :meth:`touch` with its
    index for the hints alone.

    Example:
        >>> import fairshard, tempfile
        >>> f = tempfile.NamedTemporaryFile()
        >>> _ = f.write(bytes(64 * 100)); f.flush()
        >>> s = fairshard.DistributedSampler(100, 1, 0, order="locality", block_size=8, window=2)
        >>> ra = fairshard.Readahead(s, f.name, record_bytes=64)
        >>> first = next(iter(s))
        >>> len(ra.touch(first)) > 0  # the byte ranges hinted: this window and the next
        True
        >>> len(ra.read(first))  # or: the record's bytes, its block read whole
        64
    """

    def __init__(
        self,
        sampler: Any,
        path: str | os.PathLike[str],
        *,
        record_bytes: int,
        header_bytes: int = 0,
        ahead: int = 1,
        keep_blocks: int | None = None,
    ) -> None:
        if getattr(sampler, "order", None) != "locality" or not getattr(sampler, "shuffle", False):
            raise ConfigTypeError(
                "Readahead needs a DistributedSampler(order='locality', shuffle=True), got "
                f"{type(sampler).__name__}(order={getattr(sampler, 'order', None)!r}); build "
                "the sampler with order='locality'"
            )
        self.sampler = sampler
        self.path = os.fspath(path)
        self.record_bytes = check_int("record_bytes", record_bytes, minimum=1)
        self.header_bytes = check_int("header_bytes", header_bytes, minimum=0)
        self.ahead = check_int("ahead", ahead, minimum=0)
        self.keep_blocks = (
            None if keep_blocks is None else check_int("keep_blocks", keep_blocks, minimum=1)
        )
        self._windows = WindowTracker(sampler, self.ahead)
        self._fd: tuple[int, int] | None = None  # (pid, descriptor)
        # read(): block id -> its bytes, oldest first; the plan's (block_size, n, kept)
        self._blocks: dict[int, bytes] = {}
        self._geometry: tuple[int, int, int] | None = None

    @property
    def epoch(self) -> int | None:
        """The epoch whose plan is hinted; ``None`` (the default): the sampler's."""
        return self._windows.epoch

    @epoch.setter
    def epoch(self, value: int | None) -> None:
        self._windows.epoch = value

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_fd"] = None  # each process opens its own descriptor
        state["_blocks"] = {}  # and reads its own blocks
        return state

    def window_of(self, index: int) -> int:
        """The window of the epoch's plan that reads dataset index ``index``."""
        return self._windows.window_of(index)

    def touch(self, index: int) -> list[tuple[int, int]]:
        """Note that ``index`` is being read; hint what comes next. Returns the ranges hinted.

        Returns:
            ``(offset, length)`` byte ranges newly hinted (empty when the
            window was seen before in this process).
        """
        plan, _ = self._windows.plan()
        ranges: list[tuple[int, int]] = []
        for blocks in self._windows.due(int(index)):
            ranges.extend(self._block_ranges(plan, blocks))
        for offset, length in ranges:
            self._advise(offset, length)
        return ranges

    def read(self, index: int) -> bytes:
        """The bytes of record ``index``; its block is read whole the first time.

        The first record of a block a process needs costs one ``pread`` of
        the block (and :meth:`touch`'s hints); the block's other records are
        slices of it. Reads from the file, so correct in any order (a resumed
        or strided pass only reads more blocks twice).

        Raises:
            IndexError: ``index`` outside the sampler's dataset.
        """
        blocks = self._blocks
        geometry = self._geometry
        if geometry is not None:
            block_size = geometry[0]
            block = index // block_size
            data = blocks.get(block)
            if data is not None:
                start = (index - block * block_size) * self.record_bytes
                return data[start : start + self.record_bytes]
        return self._read_block(index)

    def _read_block(self, index: int) -> bytes:
        """``read``'s slow path: hint, read the block of ``index`` whole, keep it."""
        plan, _ = self._windows.plan()
        if self._geometry is None:
            kept = plan.window if self.keep_blocks is None else self.keep_blocks
            self._geometry = (plan.block_size, plan.n, kept)
        block_size, n, kept = self._geometry
        index = int(index)
        if not 0 <= index < n:
            raise IndexError(f"Readahead.read: index {index} outside the dataset of {n} records")
        self.touch(index)
        block = index // block_size
        first = block * block_size
        count = min(n, first + block_size) - first
        data = os.pread(
            self._descriptor(),
            count * self.record_bytes,
            self.header_bytes + first * self.record_bytes,
        )
        if len(data) < count * self.record_bytes:
            raise OSError(
                f"Readahead.read: {self.path} ends inside block {block} (records {first}.."
                f"{first + count - 1} of {self.record_bytes} bytes need "
                f"{self.header_bytes + (first + count) * self.record_bytes} bytes); is "
                "record_bytes or header_bytes right?"
            )
        blocks = self._blocks
        while len(blocks) >= kept:
            del blocks[next(iter(blocks))]  # the oldest block
        blocks[block] = data
        start = (index - first) * self.record_bytes
        return data[start : start + self.record_bytes]

    def _descriptor(self) -> int:
        """This process's descriptor of the file (a forked or spawned worker opens its own)."""
        pid = os.getpid()
        if self._fd is None or self._fd[0] != pid:
            self._fd = (pid, os.open(self.path, os.O_RDONLY))
            self._blocks = {}
        return self._fd[1]

    def _block_ranges(self, plan: LocalityPlan, blocks: NDArray[np.int64]) -> list[tuple[int, int]]:
        """Byte ranges of ``blocks``, neighbours merged."""
        out: list[tuple[int, int]] = []
        for b in np.sort(blocks).tolist():
            start = b * plan.block_size
            stop = min(plan.n, start + plan.block_size)
            offset = self.header_bytes + start * self.record_bytes
            length = (stop - start) * self.record_bytes
            if out and out[-1][0] + out[-1][1] == offset:
                out[-1] = (out[-1][0], out[-1][1] + length)
            else:
                out.append((offset, length))
        return out

    def _advise(self, offset: int, length: int) -> None:
        advise = getattr(os, "posix_fadvise", None)
        if advise is None:
            return
        advise(self._descriptor(), offset, length, os.POSIX_FADV_WILLNEED)

    def close(self) -> None:
        """Close this process's descriptor (it is also closed when the process ends)."""
        if self._fd is not None and self._fd[0] == os.getpid():
            os.close(self._fd[1])
        self._fd = None
        self._blocks = {}
