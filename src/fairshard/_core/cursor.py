"""The cursor of one pass, and the construction hook of ``PlannedSampler``.

A ``Cursor`` knows how far a pass over a rank's share got: the items it
handed out (read from the live chunk iterator's ``__length_hint__``, so
iteration pays no per-item bookkeeping), where the pass started (a resume
point), and which ``DataLoader`` iterator drives it, if any (see
``resume``). ``taken`` turns that into the steps a state records.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator
from types import FrameType
from typing import Any

from .partition import Partition
from .resume import (
    Driver,
    check_consumed,
    loaded_by_torchdata,
    refuse,
    refuse_out_of_order,
    unsafe_gap,
)

__all__ = ["Cursor", "checked_init"]


class Cursor:
    """Progress of one pass over a rank's share."""

    __slots__ = (
        "before",
        "chunk_begin",
        "chunk_len",
        "driver",
        "epoch",
        "exhausted",
        "first",
        "live",
        "num_items",
        "partition",
    )

    def __init__(self, epoch: int, partition: Partition, begin: int, num_items: int) -> None:
        self.epoch = epoch
        self.partition = partition
        self.num_items = num_items
        self.first = begin  # local items already consumed when the pass started (resume)
        self.before = 0  # steps of the epoch a loaded state took before this partition
        self.chunk_begin = begin
        self.chunk_len = 0
        self.live: Iterator[Any] | None = None
        self.driver: Driver | None = None
        # The consumer asked past the last item (it saw StopIteration): the pass ran out,
        # rather than stopping at its last item (a probe, a loop that broke there).
        self.exhausted = False

    @property
    def steps(self) -> int:
        """Local items handed out so far (all chunks before the live one, plus its part)."""
        if self.live is None:
            return self.chunk_begin
        return self.chunk_begin + self.chunk_len - operator.length_hint(self.live)

    @property
    def complete(self) -> bool:
        return self.steps >= self.num_items

    def taken(
        self, consumed: int | None, kind: str, caller: FrameType | None, in_order: bool = True
    ) -> int:
        """Local steps the loop has taken: the resume point plus ``consumed``.

        ``None``: what the pass handed out -- refused while a multi-worker
        ``DataLoader`` holds some of it back from the loop, unless the call
        is a stateful loader's own snapshot (``caller`` is torchdata's code).
        In the middle of a pass under a loader that yields out of order
        (``in_order=False`` here or on the driving loader), refused: the
        loop's batches are not the first ones.

        Raises:
            ConfigError: ``consumed`` is out of range, or ``None`` is unsafe.
        """
        handed_out = self.steps - self.first
        driver = self.driver
        workers = driver.num_workers if driver else 0
        if consumed is None:
            gap = unsafe_gap(driver, self.complete, snapshot=loaded_by_torchdata(caller))
            if gap is not None:
                raise refuse(kind, handed_out, gap, workers)
        took = check_consumed(consumed, handed_out)
        out_of_order = not in_order or (driver is not None and workers and not driver.in_order)
        if out_of_order and 0 < took < handed_out:
            raise refuse_out_of_order(kind, took, f"of {handed_out} the loader drew", workers)
        return self.first + took


def checked_init(init: Any) -> Any:
    """Wrap a sampler ``__init__`` so the outermost call ends with ``_check_constructed``.

    NOTE: a subclass sets its own fields after ``super().__init__()``, so a
    check that needs them (the plan length of a ``tail='drop'`` sampler)
    can run only once the outermost ``__init__`` has returned.
    """

    @functools.wraps(init)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> None:
        outermost = not self.__dict__.get("_constructing", False)
        self.__dict__["_constructing"] = True
        try:
            init(self, *args, **kwargs)
        finally:
            if outermost:
                del self.__dict__["_constructing"]
        if outermost:
            self._check_constructed()

    return wrapped
