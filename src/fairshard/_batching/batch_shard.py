"""``BatchShardSampler``: split any batch sampler's batches across ranks, equal steps.

Sharding a batch sampler naively -- every rank iterates it and keeps batches
``rank, rank + W, ...`` -- gives ranks unequal step counts when the batch
count is not a multiple of ``W`` (DDP hangs at the last step), and ranks
disagree on the batches outright when the inner sampler draws from the
global RNG of each process.

NOTE (how): each epoch the inner sampler is materialized once into a
``BatchPlan`` (after forwarding ``set_epoch``), inside a forked RNG scope:
Python's ``random``, numpy's global generator and torch's CPU generator are
seeded from the library stream for ``(seed, epoch)`` and restored
afterwards. Every rank therefore sees the same batches even from an inner
sampler that uses the global RNG, and the caller's RNG state is untouched.
The plan is then partitioned like every other batch plan: equal steps by
recycling whole batches from the head (``tail="pad"``) or by leaving the last
ones out (``tail="drop"``); a :class:`DegenerateConfigWarning` says which,
once. Memory is the inner epoch's batches (two int64 arrays).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sized
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.inputs import to_numpy
from .._core.partition import Tail
from .._core.plans import BatchPlan
from .._core.registry import defined_in
from .._core.rng import forked_global_rng
from .._errors import ConfigError, ConfigTypeError, DegenerateConfigWarning, warn
from .._random.seeding import StreamId, stream_words
from .base import BatchPlanSampler

__all__ = ["BatchShardSampler"]


_INT64_MAX = int(np.iinfo(np.int64).max)
_CHUNK_MIN = 1 << 12  # items in the first chunk of ``_Batches``
#: Largest chunk of ``_Batches``: 32 MiB, above which glibc's malloc always maps
#: fresh memory (and returns it to the system when the chunk is freed).
_CHUNK_MAX = 1 << 22


class BatchShardSampler(BatchPlanSampler[BatchPlan]):
    """Shard any batch sampler: whole batches per rank, the same steps on every rank.

    Args:
        batch_sampler: Any iterable of batches (sequences of int indices),
            e.g. ``torch.utils.data.BatchSampler`` or a custom sampler. Built
            identically on every rank, with ``num_replicas=1`` semantics: it
            yields the whole epoch's batches. ``set_epoch`` is forwarded.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed of the forked RNG scope, identical on every rank.
        tail: ``"pad"`` (recycle whole batches from the head), ``"drop"`` or,
            for evaluation, ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).

    Example:
        >>> from torch.utils.data import BatchSampler, SequentialSampler
        >>> inner = BatchSampler(SequentialSampler(range(10)), 3, drop_last=False)
        >>> s = BatchShardSampler(inner, num_replicas=2, rank=1)
        >>> list(s), s.num_padded_batches
        ([[3, 4, 5], [9]], 0)
    """

    kind = "BatchShardSampler"

    def __init__(
        self,
        batch_sampler: Iterable[Any],
        *,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int | None = 0,
        tail: Tail = "pad",
        auto_epoch: bool = False,
        group: Any = None,
    ) -> None:
        super().__init__(
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            tail=tail,
            auto_epoch=auto_epoch,
            group=group,
        )
        if not isinstance(batch_sampler, Iterable) or isinstance(batch_sampler, str | bytes):
            raise ConfigTypeError(
                "batch_sampler must be an iterable of batches (lists of indices), got "
                f"{type(batch_sampler).__name__}"
            )
        if isinstance(batch_sampler, Iterator):
            raise ConfigTypeError(
                "batch_sampler is an iterator, which can be consumed only once; pass the "
                "batch sampler itself (something iter() can be called on every epoch)"
            )
        self.batch_sampler = batch_sampler
        self._warned_tail = False

    def _config(self) -> dict[str, Any]:
        inner = type(self.batch_sampler)
        config: dict[str, Any] = {"batch_sampler": f"{defined_in(inner)}.{inner.__qualname__}"}
        # The inner sampler's batch count, when it knows it: a changed dataset shows.
        if isinstance(self.batch_sampler, Sized):
            with contextlib.suppress(TypeError):
                config["num_inner_batches"] = len(self.batch_sampler)
        return config

    def _build_plan(self, epoch: int) -> BatchPlan:
        inner = self.batch_sampler
        set_epoch = getattr(inner, "set_epoch", None)
        if callable(set_epoch):
            set_epoch(epoch)
        word = int(stream_words(StreamId.WRAPPED, epoch, self.seed, 1, sub_id=1)[0])
        with forked_global_rng(word, word & 0xFFFFFFFF, word & ((1 << 63) - 1)):
            batches = _Batches()
            failure: Exception | None = None
            try:
                for i, b in enumerate(inner):
                    batches.add(self._check_batch(b, i))
            except Exception as exc:  # an earlier batch's negative index is reported first
                failure = exc
        batches.check()
        if failure is not None:
            raise failure
        plan = batches.plan()
        self._warn_tail(epoch, len(plan))
        return plan

    @staticmethod
    def _check_batch(batch: Any, position: int) -> NDArray[np.integer[Any]]:
        """``batch`` as a 1-D integer array of indices below ``2**63`` (negatives: ``_Batches``)."""
        batch = to_numpy(batch, f"batch {position}")
        try:
            array = np.asarray(batch)
        except ValueError:  # ragged: numpy refuses an inhomogeneous shape
            array = np.asarray([None])  # reported as not a 1-D sequence of ints below
        if array.ndim == 1 and array.size == 0:
            raise ConfigError(
                f"batch_sampler yielded an empty batch at position {position}; fix the inner "
                "sampler (an empty batch gives a rank nothing to train on)"
            )
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise ConfigTypeError(
                f"batch_sampler yielded {batch!r} as batch {position}; a batch sampler must "
                "yield 1-D sequences of int indices"
            )
        if array.dtype.kind == "u" and int(array.max()) > _INT64_MAX:
            bad = int(array[array > _INT64_MAX][0])
            raise ConfigError(
                f"batch_sampler yielded the index {bad} in batch {position}, which does not fit "
                "in int64 (it would wrap to a negative index); indices must be < 2**63"
            )
        return array

    def _warn_tail(self, epoch: int, total: int) -> None:
        w = self.num_replicas
        if total == 0:
            warn(
                f"{self.kind}: the inner batch sampler yielded no batch in epoch {epoch}; "
                "every rank gets 0 steps",
                DegenerateConfigWarning,
            )
            return
        if self._warned_tail or self._endless or total % w == 0 or self.tail == "uneven":
            return
        self._warned_tail = True
        if self.tail == "pad":
            what = (
                f"pads: the last step recycles {w - total % w} whole batch(es) from the "
                "head of the epoch (num_padded_batches)"
            )
        else:
            what = f"drops the last {total % w} batch(es) of the epoch (num_dropped_batches)"
        warn(
            f"{self.kind}: {total} batches do not split evenly over {w} ranks, so it {what}; "
            "this warning is shown once",
            DegenerateConfigWarning,
        )


class _Batches:
    """An epoch's batches gathered into int64 chunks as they come, then one CSR plan.

    NOTE (memory and speed): holding every batch as its own small array
    until a final ``concatenate`` costs an array object of ~100 bytes per
    batch beside its indices: at batches of 32, about 1.7 times the plan
    before the ``concatenate`` writes the plan beside them. The indices
    are copied into chunks of up to ``_CHUNK_MAX`` items instead, and the
    plan's ``flat`` is filled chunk by chunk, each chunk freed once copied
    (``np.empty`` pages are only counted once written): the peak is the
    plan plus one chunk. Negative indices are looked for in whole chunks
    rather than batch by batch (a reduction per batch costs more than the
    copy); the first one found is reported with its batch as before, and
    before any later batch's error.
    """

    def __init__(self) -> None:
        self._chunks: list[NDArray[np.int64]] = []
        self._buffer = np.empty(_CHUNK_MIN, dtype=np.int64)
        self._fill = 0
        self._checked = 0  # items of ``_buffer`` already checked for negatives
        self._sizes: list[int] = []
        self._first = 0  # batch number of the first batch not yet checked

    def add(self, batch: NDArray[np.integer[Any]]) -> None:
        """Append one batch (1-D integer indices below ``2**63``)."""
        k = batch.size
        if self._fill + k > self._buffer.size:
            self.check()
            self._chunks.append(self._buffer[: self._fill])
            grown = min(2 * self._buffer.size, _CHUNK_MAX)
            self._buffer = np.empty(max(grown, k), dtype=np.int64)
            self._fill = self._checked = 0
        self._buffer[self._fill : self._fill + k] = batch
        self._fill += k
        self._sizes.append(k)

    def check(self) -> None:
        """Raise for the first negative index not yet checked, naming its batch.

        Raises:
            ConfigError: naming the batch and the index.
        """
        pending = self._buffer[self._checked : self._fill]
        negative = np.flatnonzero(pending < 0)
        if negative.size:
            at = int(negative[0])
            bounds = np.cumsum(self._sizes[self._first :])  # batch ends within ``pending``
            position = self._first + int(np.searchsorted(bounds, at, side="right"))
            raise ConfigError(
                f"batch_sampler yielded the negative index {int(pending[at])} in batch "
                f"{position}; indices must be >= 0 (a negative index silently reads from "
                "the end)"
            )
        self._checked, self._first = self._fill, len(self._sizes)

    def plan(self) -> BatchPlan:
        """The batches added, as one plan (call :meth:`check` first)."""
        self._chunks.append(self._buffer[: self._fill])
        del self._buffer
        offsets = np.zeros(len(self._sizes) + 1, dtype=np.int64)
        np.cumsum(self._sizes, out=offsets[1:])
        flat = np.empty(int(offsets[-1]), dtype=np.int64)
        at = 0
        while self._chunks:
            chunk = self._chunks.pop(0)
            flat[at : at + chunk.size] = chunk
            at += chunk.size
            del chunk
        return BatchPlan(flat, offsets)
