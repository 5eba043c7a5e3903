"""The one catalog of sampler families every "for every family" test runs over.

One entry per family configuration: how to build it small (the
configurations of the fault harness's measured runs, docs/faults.md), what
it yields, whether its states resume on another world size, the tail it
declares, and the pinned configuration whose order and states the compatibility policy
freezes (``tests/golden/``). ``tests/families/test_catalog.py`` checks that
every concrete kind in ``fairshard._core.registry.families()`` has an entry,
so a new family cannot miss a suite: the contract suite
(``tests/families/test_contract_catalog.py``), the golden and frozen-state
tests, the fault harness (``tests/fault/families.py``), the plain-DataLoader
resume tests and the StatefulDataLoader tests all parametrize over
``CATALOG`` (or one of the selections below), each leaving a family out only
by one of its declared properties.

Adding a family: add its entry here, then pin its order
(``python -m tests.families.test_golden_families --add``,
``python -m tests.families.test_frozen --add``); the existing entries of
``tests/golden/`` never change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler

import fairshard

__all__ = [
    "CATALOG",
    "Family",
    "Indices",
    "SingleTokenDocs",
    "batch_families",
    "flat_ids",
    "input_readers",
    "loader_parts",
    "make_loader",
    "pinned_families",
    "sampler_families",
]

Items = Literal["index", "batch", "rows", "stream"]
Tail = Literal["pad", "drop", "uneven"]
Reads = Literal["labels", "lengths", "weights"]
Migrates = Literal["once", "draws", "mixture"]
ONE = {"num_replicas": 1, "rank": 0}


@dataclass(frozen=True)
class Family:
    """One family configuration under test.

    Attributes:
        name: Catalog key (test ids, golden keys, fault-harness names).
        kind: The ``kind`` of the class it builds (``registry.families()`` key).
        make: ``(n, rank, world_size, **kwargs) -> sampler`` over ``n``
            samples, small; ``kwargs`` go to the constructor (``auto_epoch``...).
        items: What one step yields: ``"index"`` (an int), ``"batch"`` (a list
            of ints), ``"rows"`` (a list of rows of ints, packed batches) or
            ``"stream"`` (an iterable dataset's samples).
        elastic: Whether a state resumes on another world size (the strided
            layout, and a plan not laid out for the world size).
        tail: The tail ``make`` declares: ``"pad"`` (duplicates), ``"drop"``
            (left out) or ``"uneven"`` (neither; ranks differ by one step).
        every_index_once: An epoch of ``make`` holds each of the ``n`` indices
            exactly once before the tail (a closed form, independent of the plan).
        auto_epoch: Whether the constructor takes ``auto_epoch``.
        shuffled: Whether ``set_epoch`` changes the order ``make`` yields.
        reads: The per-sample input the family's first parameter takes
            (``"labels"``, ``"lengths"`` or ``"weights"``), if any.
        from_input: ``input -> sampler`` on one rank, for the tests that feed
            every reader of one input the same values (``tests/core/test_inputs.py``).
        migrates: How a state resumes on changed data (``load_state_dict(state,
            migrate=...)``, ``tests/families/test_migrate_catalog.py``):
            ``"once"`` (each item once: a ``DataChange``'s rest of the epoch),
            ``"draws"`` (with replacement: the draws not taken, from the new
            data), ``"mixture"`` (a ``MixtureChange``); ``None``: refused,
            naming why.
        pinned: ``(world_size, rank) -> sampler``: the configuration whose
            order and version-1 states ``tests/golden/`` pins. Never change
            an existing one: that would change what a pinned seed produces.
    """

    name: str
    kind: str
    make: Callable[..., Any]
    items: Items
    pinned: Callable[[int, int], Any]
    elastic: bool = True
    tail: Tail = "pad"
    every_index_once: bool = False
    auto_epoch: bool = True
    shuffled: bool = True
    reads: Reads | None = None
    from_input: Callable[[Any], Any] | None = None
    migrates: Migrates | None = None

    @property
    def batched(self) -> bool:
        """Whether the family yields whole batches (a ``batch_sampler=``)."""
        return self.items in ("batch", "rows")


# ------------------------------------------------------------ small inputs
def _labels(n: int) -> Any:
    return np.arange(n) % 7 // 3  # three unequal classes


def _lengths(n: int) -> Any:
    return 1 + (np.arange(n) * 37) % 29


def _mixture_sizes(n: int) -> list[int]:
    return [n // 2, n // 3, n - n // 2 - n // 3]


# ---------------------------------------------- pinned inputs (never change)
N_PINNED = 60
_P_LABELS = np.arange(N_PINNED) % 4 // 2 + np.arange(N_PINNED) % 3  # four unequal classes
_P_LENGTHS = 1 + (np.arange(N_PINNED) * 37) % 29
_P_WEIGHTS = np.where(np.arange(N_PINNED) % 5 == 0, 0.0, 1.0 + np.arange(N_PINNED) % 3)


def _kw(w: int, r: int) -> dict[str, Any]:
    return {"num_replicas": w, "rank": r, "seed": 7}


_ENTRIES = (
    Family(
        "distributed",
        "DistributedSampler",
        lambda n, r, w, seed=5, **k: fairshard.DistributedSampler(n, w, r, seed=seed, **k),
        "index",
        lambda w, r: fairshard.DistributedSampler(N_PINNED, w, r, seed=7),
        every_index_once=True,
        migrates="once",
    ),
    Family(
        "distributed-torch",
        "DistributedSampler",
        lambda n, r, w, seed=5, **k: fairshard.DistributedSampler(
            n, w, r, seed=seed, order="torch", drop_last=True, **k
        ),
        "index",
        lambda w, r: fairshard.DistributedSampler(N_PINNED, w, r, seed=7, order="torch"),
        tail="drop",
        every_index_once=True,
        migrates="once",
    ),
    Family(
        "distributed-locality",
        "DistributedSampler",
        lambda n, r, w, seed=5, **k: fairshard.DistributedSampler(
            n, w, r, seed=seed, order="locality", block_size=3, window=2, **k
        ),
        "index",
        lambda w, r: fairshard.DistributedSampler(
            N_PINNED, w, r, seed=7, order="locality", block_size=4, window=2
        ),
        every_index_once=True,
    ),
    Family(
        "eval",
        "DistributedEvalSampler",
        lambda n, r, w, seed=5, **k: fairshard.DistributedEvalSampler(n, w, r, **k),
        "index",
        lambda w, r: fairshard.DistributedEvalSampler(N_PINNED, w, r),
        elastic=False,
        tail="uneven",
        every_index_once=True,
        auto_epoch=False,
        shuffled=False,
    ),
    Family(
        "weighted",
        "WeightedSampler",
        lambda n, r, w, seed=5, **k: fairshard.WeightedSampler(
            np.where(np.arange(n) % 5 == 0, 0.0, 1.0 + np.arange(n) % 3),
            num_replicas=w,
            rank=r,
            seed=seed,
            **k,
        ),
        "index",
        lambda w, r: fairshard.WeightedSampler(_P_WEIGHTS, **_kw(w, r)),
        reads="weights",
        from_input=lambda weights: fairshard.WeightedSampler(weights, **ONE),
        migrates="draws",
    ),
    Family(
        "weighted-no-replacement",
        "WeightedSampler",
        lambda n, r, w, seed=5, **k: fairshard.WeightedSampler(
            1.0 + np.arange(n) % 3,
            n // 2,
            replacement=False,
            num_replicas=w,
            rank=r,
            seed=seed,
            **k,
        ),
        "index",
        lambda w, r: fairshard.WeightedSampler(_P_WEIGHTS, 30, replacement=False, **_kw(w, r)),
    ),
    Family(
        "class-balanced",
        "ClassBalancedSampler",
        lambda n, r, w, seed=5, **k: fairshard.ClassBalancedSampler(
            _labels(n),
            alpha=fairshard.LinearAnneal(1.0, 0.0, 3),
            num_replicas=w,
            rank=r,
            seed=seed,
            **k,
        ),
        "index",
        lambda w, r: fairshard.ClassBalancedSampler(
            _P_LABELS, alpha=fairshard.LinearAnneal(1.0, 0.0, 4), **_kw(w, r)
        ),
        reads="labels",
        from_input=lambda labels: fairshard.ClassBalancedSampler(labels, **ONE),
        migrates="draws",
    ),
    Family(
        "hard-example",
        "HardExampleSampler",
        lambda n, r, w, seed=5, **k: fairshard.HardExampleSampler(
            n, num_replicas=w, rank=r, seed=seed, **k
        ),
        "index",
        lambda w, r: fairshard.HardExampleSampler(N_PINNED, **_kw(w, r)),
        auto_epoch=False,  # its scores are synced at set_epoch
    ),
    Family(
        "wrapped",
        "ShardedSampler",
        lambda n, r, w, seed=5, **k: fairshard.ShardedSampler(
            RandomSampler(range(n)), num_replicas=w, rank=r, seed=seed, **k
        ),
        "index",
        lambda w, r: fairshard.ShardedSampler(SequentialSampler(range(N_PINNED)), **_kw(w, r)),
    ),
    Family(
        "mixture",
        "MixtureSampler",
        lambda n, r, w, seed=5, **k: fairshard.MixtureSampler(
            _mixture_sizes(n), [3, 2, 1], num_replicas=w, rank=r, seed=seed, **k
        ),
        "index",
        lambda w, r: fairshard.MixtureSampler(
            [30, 20, 10], [0.5, 0.3, 0.2], num_samples=90, **_kw(w, r)
        ),
        migrates="mixture",
    ),
    Family(
        "online-mixture",
        "OnlineMixtureSampler",
        lambda n, r, w, seed=5, **k: fairshard.OnlineMixtureSampler(
            _mixture_sizes(n), [3, 2, 1], num_replicas=w, rank=r, seed=seed, **k
        ),
        "index",
        lambda w, r: fairshard.OnlineMixtureSampler(
            [30, 20, 10], [0.5, 0.3, 0.2], num_samples=90, **_kw(w, r)
        ),
    ),
    Family(
        "class-batch",
        "ClassBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.ClassBatchSampler(
            _labels(n), 2, num_replicas=w, rank=r, seed=seed, **k
        ),
        "batch",
        lambda w, r: fairshard.ClassBatchSampler(_P_LABELS, 2, **_kw(w, r)),
        reads="labels",
        from_input=lambda labels: fairshard.ClassBatchSampler(labels, 1, **ONE),
    ),
    Family(
        "length-bucket",
        "LengthBucketBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.LengthBucketBatchSampler(
            _lengths(n), 3, num_replicas=w, rank=r, seed=seed, **k
        ),
        "batch",
        lambda w, r: fairshard.LengthBucketBatchSampler(_P_LENGTHS, 4, **_kw(w, r)),
        reads="lengths",
        from_input=lambda lengths: fairshard.LengthBucketBatchSampler(lengths, 2, **ONE),
    ),
    Family(
        "token-budget",
        "TokenBudgetBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.TokenBudgetBatchSampler(
            _lengths(n), 48, num_replicas=w, rank=r, seed=seed, **k
        ),
        "batch",
        lambda w, r: fairshard.TokenBudgetBatchSampler(_P_LENGTHS, 40, **_kw(w, r)),
        reads="lengths",
        from_input=lambda lengths: fairshard.TokenBudgetBatchSampler(lengths, 64, **ONE),
    ),
    Family(
        "shape-bucket",
        "ShapeBucketBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.ShapeBucketBatchSampler(
            _lengths(n),
            round_to=8,
            max_tokens=64,
            batch_multiple=2,
            num_replicas=w,
            rank=r,
            seed=seed,
            **k,
        ),
        "batch",
        lambda w, r: fairshard.ShapeBucketBatchSampler(
            _P_LENGTHS, boundaries=[8, 16, 32], max_tokens=64, batch_multiple=2, **_kw(w, r)
        ),
        reads="lengths",
        from_input=lambda lengths: fairshard.ShapeBucketBatchSampler(lengths, 1, **ONE),
    ),
    Family(
        "key-batch",
        "KeyBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.KeyBatchSampler(
            _labels(n), 2, num_replicas=w, rank=r, seed=seed, **k
        ),
        "batch",
        lambda w, r: fairshard.KeyBatchSampler(_P_LABELS, 4, batch_multiple=2, **_kw(w, r)),
    ),
    Family(
        "key-batch-per-step",
        "KeyBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.KeyBatchSampler(
            _labels(n), 2, one_key_per_step=True, num_replicas=w, rank=r, seed=seed, **k
        ),
        "batch",
        lambda w, r: fairshard.KeyBatchSampler(
            _P_LABELS, 4, batch_multiple=2, one_key_per_step=True, **_kw(w, r)
        ),
        elastic=False,  # the plan's runs of one key are laid out for the world size
    ),
    Family(
        "batch-shard",
        "BatchShardSampler",
        lambda n, r, w, seed=5, **k: fairshard.BatchShardSampler(
            BatchSampler(RandomSampler(range(n)), 9, False),
            num_replicas=w,
            rank=r,
            seed=seed,
            **k,
        ),
        "batch",
        lambda w, r: fairshard.BatchShardSampler(
            BatchSampler(SequentialSampler(range(N_PINNED)), 5, False), **_kw(w, r)
        ),
    ),
    Family(
        "packing",
        "PackingBatchSampler",
        lambda n, r, w, seed=5, **k: fairshard.PackingBatchSampler(
            _lengths(n), 40, 2, window=8, num_replicas=w, rank=r, seed=seed, **k
        ),
        "rows",
        lambda w, r: fairshard.PackingBatchSampler(_P_LENGTHS, 40, 2, window=16, **_kw(w, r)),
        reads="lengths",
        from_input=lambda lengths: fairshard.PackingBatchSampler(lengths, 64, 2, **ONE),
    ),
    Family(
        "stream-item",
        "ShardedIterable",
        lambda n, r, w, seed=5, **k: fairshard.ShardedIterable(
            list(range(n)), num_replicas=w, rank=r, seed=seed, **k
        ),
        "stream",
        lambda w, r: fairshard.ShardedIterable(list(range(N_PINNED)), **_kw(w, r)),
    ),
    Family(
        "stream-shard",
        "ShardedIterable",
        lambda n, r, w, seed=5, **k: fairshard.ShardedIterable(
            [list(range(s, min(s + 6, n))) for s in range(0, n, 6)],
            mode="shard",
            shard_sizes=[min(6, n - s) for s in range(0, n, 6)],
            num_replicas=w,
            rank=r,
            seed=seed,
            **k,
        ),
        "stream",
        lambda w, r: fairshard.ShardedIterable(
            [list(range(s * 6, s * 6 + 6)) for s in range(N_PINNED // 6)],
            mode="shard",
            shard_sizes=[6] * (N_PINNED // 6),
            **_kw(w, r),
        ),
    ),
)

#: Every family configuration, by name.
CATALOG: dict[str, Family] = {f.name: f for f in _ENTRIES}


def sampler_families() -> list[Family]:
    """The samplers (index and batch families): every entry but the streams."""
    return [f for f in CATALOG.values() if f.items != "stream"]


def batch_families() -> list[Family]:
    """The families that yield whole batches (passed as ``batch_sampler=``)."""
    return [f for f in CATALOG.values() if f.batched]


def input_readers(reads: Reads) -> dict[str, Callable[[Any], Any]]:
    """``kind -> from_input`` for every family whose first parameter is ``reads``."""
    return {f.kind: f.from_input for f in CATALOG.values() if f.reads == reads and f.from_input}


def pinned_families() -> list[Family]:
    """Every entry (each has a pinned configuration); the golden tests run over these."""
    return list(CATALOG.values())


# ----------------------------------------------------------------- loaders
class Indices(Dataset[int]):
    """A map-style dataset whose sample ``i`` is ``i`` (so batches show the order)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


class SingleTokenDocs(Dataset[list[int]]):
    """Documents of one token each, document ``i`` being ``[i]`` (packed rows show the order)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> list[int]:
        return [i]


def _ids(batch: Any) -> list[int]:
    return [int(v) for v in batch.tolist()]


def _packed_ids(batch: Any) -> list[int]:
    return [int(v) for v in batch["input_ids"].tolist()]


def loader_parts(
    family: Family, n: int, batch_size: int
) -> tuple[Any, dict[str, Any], Callable[[Any], list[int]]]:
    """``(dataset, DataLoader keywords, ids)`` to load ``family``'s sampler over ``n`` samples.

    The sampler itself is passed as ``sampler=`` (index families, in batches
    of ``batch_size``) or ``batch_sampler=`` (batch families); ``ids(batch)``
    is the list of sample indices of a loaded batch, in order.
    """
    if family.items == "rows":
        return (
            fairshard.PackedRows(SingleTokenDocs(n)),
            {"collate_fn": fairshard.collate_packed},
            (_packed_ids),
        )
    if family.items == "batch":
        return Indices(n), {}, _ids
    if family.items == "index":
        return Indices(n), {"batch_size": batch_size}, _ids
    raise ValueError(f"a {family.items} family has no sampler to load: {family.name}")


def make_loader(
    family: Family,
    sampler: Any,
    n: int,
    *,
    loader_class: Any = DataLoader,
    workers: int = 0,
    batch_size: int = 4,
    context: str = "fork",
    **kwargs: Any,
) -> Any:
    """A ``loader_class`` (torch's ``DataLoader`` or torchdata's) over ``family``'s ``sampler``.

    Worker processes (``workers > 0``) start with the multiprocessing ``context``:
    forked by default, fast in a test process; ``kwargs`` go to the loader.
    """
    dataset, common, _ = loader_parts(family, n, batch_size)
    if workers:
        common["multiprocessing_context"] = context
    keyword = "batch_sampler" if family.batched else "sampler"
    return loader_class(dataset, num_workers=workers, **{keyword: sampler}, **common, **kwargs)


def flat_ids(batches: Sequence[Sequence[int]]) -> list[int]:
    """The sample indices of a list of loaded batches, in order."""
    return [i for b in batches for i in b]
