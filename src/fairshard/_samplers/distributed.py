"""``DistributedSampler``: PyTorch's signature, a lazy order, exact resume.

Changing ``from torch.utils.data import DistributedSampler`` to
``from fairshard import DistributedSampler`` is the whole migration. What
changes underneath:

* the default order is a lazy keyed permutation: O(1) memory per rank
  instead of a Python list of every index, and per-rank work O(n / W);
* the seed and epoch are mixed by ``SeedSequence`` (seed 0 at epoch 1 is not
  seed 1 at epoch 0);
* ``state_dict``/``load_state_dict`` resume mid-epoch in O(1), also on a
  different world size;
* a second pass over a completed epoch warns (forgotten ``set_epoch``);
* ``drop_last=True`` with fewer samples than ranks is an error, not an
  epoch in which every rank silently gets nothing.

``order="torch"`` reproduces PyTorch's exact index sequence instead, for
reproducing old runs (it materializes ``torch.randperm``).
"""

from __future__ import annotations

import numbers
from typing import Any, Literal

from .._core.inputs import dataset_length
from .._core.locality import DEFAULT_BLOCK_SIZE, DEFAULT_WINDOW, LocalityPlan
from .._core.migrate import Change, rest_of_epoch
from .._core.partition import Layout, Partition, Tail
from .._core.plans import (
    ArrayPlan,
    IndexPlan,
    PermutationPlan,
    RangePlan,
    TorchPermutationPlan,
    torch_epoch_seed,
)
from .._errors import (
    ConfigError,
    DegenerateConfigWarning,
    StateDictError,
    check_choice,
    check_flag,
    check_int,
    warn,
)
from .._random.permutation import MAX_N
from .torch_compat import IndexSampler

__all__ = ["DistributedEvalSampler", "DistributedSampler"]

Order = Literal["lazy", "torch", "locality"]
ORDERS: tuple[Order, ...] = ("lazy", "torch", "locality")


class DistributedSampler(IndexSampler[IndexPlan]):
    """Shard a map-style dataset across ranks, every index once per epoch.

    A subclass of ``torch.utils.data.DistributedSampler`` (see
    ``IndexSampler``), with its attributes and their meaning, so frameworks
    that test for PyTorch's class leave it alone.

    Args:
        dataset: A sized dataset, or its length as an int.
        num_replicas: World size; detected when ``None`` (process group, then
            torchrun's ``WORLD_SIZE``, then 1).
        rank: This rank; detected like ``num_replicas``.
        shuffle: Shuffle the order each epoch (``True``) or keep dataset order.
            Like PyTorch: a bool, a numpy bool, or 0/1.
        seed: Root seed, identical on every rank. ``None`` agrees on one.
        drop_last: PyTorch's switch between the ``"pad"`` (False) and
            ``"drop"`` (True) tail modes; ignored when ``tail`` is given. A
            bool, a numpy bool, or 0/1.
        order: ``"lazy"`` (default; O(1) memory), ``"torch"`` (PyTorch's exact
            sequence; materializes the permutation) or ``"locality"`` (shuffled
            blocks of neighbouring indices mixed across a window, for data
            that is read from disk; see docs/locality.md).
        layout: ``"strided"`` (PyTorch's) or ``"blocked"`` (contiguous shards).
        tail: ``"pad"``, ``"drop"`` or ``"uneven"``; overrides ``drop_last``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).
        block_size: ``order="locality"``: neighbouring indices per block
            (about 1 MiB of records: ``2**20 // record_bytes``).
        window: ``order="locality"``: blocks mixed together; each rank reads
            one window of ``block_size * window`` records at a time.

    Raises:
        ConfigError / ConfigTypeError: bad arguments (the message names them).

    Example:
        >>> s = DistributedSampler(10, num_replicas=4, rank=1, shuffle=False)
        >>> list(s), len(s)
        ([1, 5, 9], 3)
    """

    kind = "DistributedSampler"

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int | None = 0,
        drop_last: bool = False,
        *,
        order: Order = "lazy",
        layout: Layout = "strided",
        tail: Tail | None = None,
        auto_epoch: bool = False,
        group: Any = None,
        block_size: int | None = None,
        window: int | None = None,
    ) -> None:
        shuffle = check_flag("shuffle", shuffle)
        drop_last = check_flag("drop_last", drop_last)
        check_choice("order", order, ORDERS)
        resolved_tail: Tail = ("drop" if drop_last else "pad") if tail is None else tail
        super().__init__(
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            layout=layout,
            tail=resolved_tail,
            auto_epoch=auto_epoch,
            group=group,
        )
        self.n = dataset_length(dataset)
        # PyTorch's attribute is a sized dataset: an int size stands for range(size).
        self.dataset = range(self.n) if isinstance(dataset, numbers.Integral) else dataset
        if self.n > MAX_N:
            raise ConfigError(
                f"dataset size must be <= 2**62, got len(dataset)={self.n}; shard the dataset "
                "into several samplers"
            )
        self.shuffle = shuffle
        self.order: Order = order
        if order != "locality" and (block_size is not None or window is not None):
            raise ConfigError(
                f"block_size and window apply to order='locality', got order={order!r}; pass "
                "order='locality' or leave them out"
            )
        self.block_size = check_int(
            "block_size", DEFAULT_BLOCK_SIZE if block_size is None else block_size, minimum=1
        )
        self.window = check_int("window", DEFAULT_WINDOW if window is None else window, minimum=1)
        # Lanes of the locality plan of an epoch resumed from another world size.
        self._saved_lanes: dict[int, int] = {}
        self._loading_epoch: int | None = None
        if order == "torch" and layout != "strided":
            raise ConfigError(
                f"order='torch' reproduces PyTorch's strided layout; got layout={layout!r}. "
                "Use order='lazy' with layout='blocked'"
            )
        if resolved_tail == "drop" and 0 < self.n < self.num_replicas:
            raise ConfigError(
                f"drop_last=True with {self.n} samples on num_replicas={self.num_replicas} "
                "ranks gives every rank 0 samples; use drop_last=False (pads with "
                "duplicates) or tail='uneven' (evaluation)"
            )
        if self.n == 0:
            warn(
                f"{self.kind}: the dataset is empty; every rank gets 0 samples",
                DegenerateConfigWarning,
            )

    def full_partition(self) -> Partition:
        """The partition of a full epoch (no resume); ``num_samples`` and ``total_size`` use it."""
        return Partition(self.n, self.num_replicas, self.layout, self.tail)

    def _known_plan_length(self) -> int | None:
        return self.n  # every epoch orders the whole dataset

    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"n": self.n, "shuffle": self.shuffle, "order": self.order}
        if self.order == "locality":
            config.update(block_size=self.block_size, window=self.window)
        return config

    def _lanes(self, epoch: int) -> int:
        """Lanes of the locality plan of ``epoch`` (see ``_core.locality``).

        Under a ``StepSampler`` (``_endless``) one lane: the plan must not
        depend on the world size there (global-batch invariance), and its
        strided deal gives a step's consecutive positions -- runs of one
        window -- to the ranks of the job together.
        """
        if self._endless:
            return 1
        if epoch in self._saved_lanes:
            return self._saved_lanes[epoch]
        return self.num_replicas if self.layout == "strided" else 1

    def _extra_state(self) -> dict[str, Any]:
        if self.order != "locality" or not self.shuffle or self._endless:
            return {}  # (an endless stream's locality plan has one lane, always)
        return {"lanes": self._lanes(self.epoch)}

    def _load_extra_state(self, extra: dict[str, Any]) -> None:
        if self.order != "locality" or not self.shuffle or self._endless:
            super()._load_extra_state(extra)
            return
        lanes = extra.get("lanes")
        if sorted(extra) != ["lanes"] or isinstance(lanes, bool) or not isinstance(lanes, int):
            raise StateDictError(
                f"state_dict['extra'] of order='locality' must be {{'lanes': int}}, got {extra!r}"
            )
        if lanes < 1 or self._loading_epoch is None:
            raise StateDictError(f"state_dict['extra']['lanes'] must be >= 1, got {lanes}")
        self._saved_lanes = {self._loading_epoch: lanes}
        self.forget_plans()

    def load_state_dict(self, state_dict: dict[str, Any], migrate: Change | None = None) -> None:
        """Resume from ``state_dict`` (see ``PlannedSampler.load_state_dict``).

        Under ``order="locality"`` the saved epoch keeps the lanes it started
        with, so a resume on another world size finishes the same plan.
        ``migrate=DataChange(...)`` resumes it on changed data (strided
        layout, ``order`` ``"lazy"`` or ``"torch"``, or no shuffle).
        """
        epoch = state_dict.get("epoch") if isinstance(state_dict, dict) else None
        self._loading_epoch = epoch if isinstance(epoch, int) else None
        try:
            super().load_state_dict(state_dict, migrate)
        finally:
            self._loading_epoch = None

    # ---------------------------------------------- resume on changed data
    _data_keys = ("n",)

    def _migration_refusal(self) -> str | None:
        if self.shuffle and self.order == "locality":
            return (
                "resuming on changed data needs layout='strided' and order 'lazy' or 'torch', "
                f"got order={self.order!r}; the rest of an epoch is not read in blocks"
            )
        return super()._migration_refusal()

    def _old_plan_length(self, change: Any, saved_config: dict[str, Any], epoch: int) -> int:
        return int(change.old_size)

    def _rest_plan(self, change: Any, consumed: int, epoch: int) -> IndexPlan:
        old_plan = self._plan_of_size(change.old_size, epoch)
        rest = rest_of_epoch(
            old_plan, consumed, change, seed=self.seed, epoch=epoch, shuffle=self.shuffle
        )
        return ArrayPlan(rest)

    def _check_source(self) -> None:
        if isinstance(self.dataset, range):
            return
        length = dataset_length(self.dataset)
        if length != self.n:
            raise ConfigError(
                f"the dataset had {self.n} samples when the {self.kind} was built and has "
                f"{length} now; build a new sampler after changing the dataset"
            )

    def _shares_plan(self) -> bool:
        return self.shuffle and self.order == "torch"  # the lazy order holds no plan

    def _build_plan(self, epoch: int) -> IndexPlan:
        return self._plan_of_size(self.n, epoch)

    def _plan_of_size(self, n: int, epoch: int) -> IndexPlan:
        """The plain plan of ``epoch`` over ``n`` items (the old data of a migration too)."""
        if not self.shuffle:
            return RangePlan(n)
        if self.order == "torch":
            if not -(1 << 63) <= torch_epoch_seed(self.seed, epoch) < 1 << 64:
                raise ConfigError(
                    f"order='torch' seeds PyTorch's generator with seed + epoch, which must be "
                    f"below 2**64; got seed={self.seed}, epoch={epoch}. Use order='lazy' or a "
                    "smaller seed"
                )
            return TorchPermutationPlan(n, self.seed, epoch)
        if self.order == "locality":
            return LocalityPlan(
                n,
                self.seed,
                epoch,
                block_size=self.block_size,
                window=self.window,
                lanes=self._lanes(epoch),
            )
        return PermutationPlan(n, self.seed, epoch)


class DistributedEvalSampler(DistributedSampler):
    """Evaluation sharding: every sample exactly once, contiguous blocks, no padding.

    Ranks differ by at most one sample; gathering per-rank results in rank
    order restores dataset order. Do not use for training (unequal step
    counts hang DDP).

    Example:
        >>> [list(DistributedEvalSampler(10, num_replicas=4, rank=r)) for r in range(4)]
        [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]
    """

    kind = "DistributedEvalSampler"

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        *,
        shuffle: bool = False,
        seed: int | None = 0,
        group: Any = None,
    ) -> None:
        super().__init__(
            dataset,
            num_replicas,
            rank,
            shuffle=shuffle,
            seed=seed,
            layout="blocked",
            tail="uneven",
            group=group,
        )
