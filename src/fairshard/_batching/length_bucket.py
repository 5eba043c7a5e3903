"""``LengthBucketBatchSampler``: batches of similar length, balanced across ranks.

NOTE (algorithm): per epoch, the dataset is shuffled, cut into mega-batches
of ``batch_size * mega_batch_factor`` items, each mega-batch is sorted by
length and cut into batches of ``batch_size``. Items of one batch therefore
have similar lengths (little padding) while which items meet in a batch
changes every epoch. The batch order is then either compute-balanced
(``balance_run``, see ``fairshard._batching.cost_balance``) or uniformly shuffled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.partition import Tail
from .._core.plan_share import shared_tables
from .._core.plans import BatchPlan
from .._errors import ConfigError, check_bool, check_int
from .._random.seeding import StreamId, stream_generator
from .base import BatchPlanSampler, check_lengths, reorder_into
from .cost_balance import DEFAULT_BALANCE_RUN, balanced_order, check_balance_run
from .halves import PlanBuffer

__all__ = ["LengthBucketBatchSampler", "sort_key"]

_GROUP = 1 << 18  # items per group of mega-batches sorted at once


def sort_key(lengths: NDArray[Any], digest: str | None = None) -> NDArray[Any]:
    """Lengths in the narrowest dtype numpy sorts fastest (radix sort for <= 16 bits).

    With the lengths' ``digest``, a narrowed copy is built once per node where
    plans are shared (``_core/plan_share.shared_tables``); wide lengths are
    used as they are, never copied.
    """
    if not (lengths.dtype.kind == "i" and lengths.size and int(lengths.max()) < (1 << 15)):
        return lengths
    if digest is None:
        return lengths.astype(np.int16)
    return shared_tables(
        {"tables": "sort-key", "lengths": digest},  # the same for every family
        lambda wide: {"key": wide.astype(np.int16)},
        lengths,
    )["key"]


class LengthBucketBatchSampler(BatchPlanSampler[BatchPlan]):
    """Batches of ``batch_size`` items of similar length; whole batches per rank.

    Args:
        lengths: One length per dataset item (ints or floats, >= 0): a list,
            numpy array or tensor.
        batch_size: Items per batch.
        mega_batch_factor: A mega-batch holds ``batch_size * mega_batch_factor``
            items; larger means less padding and less randomness.
        drop_last: Leave out the final batch when it is smaller than
            ``batch_size``.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"`` (recycle whole batches from the head so every rank
            takes equal steps), ``"drop"`` or, for evaluation, ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).
        balance_run: Batches per run of similar cost (compute-balanced steps,
            see ``fairshard._batching.cost_balance``); ``None`` shuffles the batch order
            uniformly instead.

    Example:
        >>> s = LengthBucketBatchSampler([5, 1, 9, 2, 8, 1], 2, num_replicas=1, rank=0)
        >>> sorted(sorted(b) for b in s)
        [[0, 3], [1, 5], [2, 4]]
    """

    kind = "LengthBucketBatchSampler"

    def __init__(
        self,
        lengths: Any,
        batch_size: int,
        *,
        mega_batch_factor: int = 50,
        drop_last: bool = False,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int | None = 0,
        tail: Tail = "pad",
        auto_epoch: bool = False,
        balance_run: int | None = DEFAULT_BALANCE_RUN,
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
        self.lengths = check_lengths(lengths)
        self.batch_size = check_int("batch_size", batch_size, minimum=1)
        self.mega_batch_factor = check_int("mega_batch_factor", mega_batch_factor, minimum=1)
        check_bool("drop_last", drop_last)
        self.drop_last = drop_last
        self.balance_run = check_balance_run(balance_run)
        if drop_last and self.lengths.size < self.batch_size:
            raise ConfigError(
                f"drop_last=True with {self.lengths.size} items and batch_size="
                f"{self.batch_size} leaves no batch at all; lower batch_size or use "
                "drop_last=False"
            )
        self._digest = S.digest(self.lengths)
        self._key = sort_key(self.lengths, self._digest)

    def _config(self) -> dict[str, Any]:
        return {
            "lengths": self._digest,
            "batch_size": self.batch_size,
            "mega_batch_factor": self.mega_batch_factor,
            "drop_last": self.drop_last,
            "balance_run": self.balance_run,
        }

    def _shares_plan(self) -> bool:
        return True

    def _build_plan(self, epoch: int) -> BatchPlan:
        # NOTE (speed and memory): the same batches as "argsort each mega-batch
        # by length (stable), cut, gather", computed leaner: the permutation
        # is shuffled in place (``permutation`` shuffles a copy) in the int32
        # working half of the plan's own buffer (``halves``), each mega-batch
        # is sorted in place by value as packed words ``key << bits |
        # position`` (a value sort is several times faster than an index
        # sort), a batch's padded cost reads only its last -- longest -- item,
        # and the batches are gathered into the other half and widened there:
        # beside the sort key, the build touches only the plan's own array.
        rng = stream_generator(StreamId.LENGTH_BUCKET, epoch, self.seed)
        n, bs = self.lengths.size, self.batch_size
        mega = bs * self.mega_batch_factor
        buffer = PlanBuffer(n, n)
        flat = buffer.work
        flat[:] = np.arange(n, dtype=flat.dtype)
        rng.shuffle(flat)  # the values of permutation(n)
        full = (n // mega) * mega
        if full:
            _sorted_blocks(self._key, flat[:full], mega, flat[:full])
        rest = flat[full:]
        rest[:] = rest[np.argsort(self._key[rest], kind="stable")]
        del rest
        num_full, last = divmod(n, bs)
        sizes = np.full(num_full, bs, dtype=np.int64)
        if last and not self.drop_last:
            sizes = np.append(sizes, last)
        offsets = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        total = int(offsets[-1])
        # Every batch is sorted ascending by length: its last item is its longest.
        costs = (self.lengths[flat[offsets[1:] - 1]] * sizes).astype(np.float64)
        del sizes
        order = balanced_order(
            costs,
            stream_generator(StreamId.LENGTH_BUCKET, epoch, self.seed, sub_id=1),
            self.balance_run,
        )
        del costs
        new_offsets = reorder_into(flat[:total], offsets, order, buffer.out[:total])
        del flat
        return BatchPlan(buffer.finish(total), new_offsets)

    def batch_costs(self, epoch: int | None = None) -> NDArray[np.float64]:
        """(num_batches,) padded cost (``max length * batch size``) in plan order."""
        plan = self.plan(epoch)
        return _padded_costs(self.lengths, plan.flat, plan.offsets)


def _padded_costs(
    lengths: NDArray[Any], flat: NDArray[np.int64], offsets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """(num_batches,) ``max(lengths of batch) * size of batch`` for CSR batches."""
    sizes = np.diff(offsets)
    if sizes.size == 0:
        return np.zeros(0, dtype=np.float64)
    maxima = np.maximum.reduceat(lengths[flat], offsets[:-1]) if flat.size else sizes * 0
    return (maxima * sizes).astype(np.float64)


def _sorted_blocks(key: NDArray[Any], items: NDArray[Any], mega: int, out: NDArray[Any]) -> None:
    """Write ``items`` in blocks of ``mega``, each sorted by ``key`` (stable), into ``out``.

    ``out`` may be ``items`` itself (sorted in place): each group of blocks
    is read whole before it is written back.

    Equal to ``take_along_axis(blocks, argsort(key[blocks], axis=1, kind="stable"))``:
    integer keys that fit beside the position are packed as
    ``key << bits | position`` and sorted by value (distinct words, so the
    order is the stable one); other keys fall back to the index sort. Runs
    over groups of blocks, so the scratch is O(group), not O(n).
    """
    bits = max(1, (mega - 1).bit_length())
    packable = key.dtype.kind == "i" and key.size and int(key.max()) < (1 << (62 - bits))
    group = max(1, _GROUP // mega) * mega
    within = np.arange(mega, dtype=np.int64)
    for lo in range(0, items.size, group):
        blocks = items[lo : lo + group].reshape(-1, mega)  # (num_blocks, mega)
        base = np.arange(0, blocks.size, mega, dtype=np.int64)[:, None]
        if packable:
            words = key[blocks].astype(np.int64)
            words <<= bits
            words |= within
            words.sort(axis=1)
            words &= (1 << bits) - 1  # sorted within-block positions
            words += base
        else:
            words = np.argsort(key[blocks], axis=1, kind="stable") + base
        out[lo : lo + blocks.size] = blocks.reshape(-1)[words.reshape(-1)]
