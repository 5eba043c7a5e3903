"""``PackingBatchSampler``: batches of fixed-capacity rows packed with whole documents.

Each epoch, every item is placed in exactly one *row* (a list of item indices
whose lengths sum to at most ``capacity``), rows are grouped
``rows_per_batch`` to a batch, and the batches are ordered so that the
batches of one step cost about the same on every rank. The sampler yields a
batch as a list of rows, each row a list of item indices; wrap the dataset in
``PackedRows`` and collate with ``collate_packed`` (varlen attention) or
``collate_packed_padded`` (fixed shape plus an attention mask).

NOTE (items longer than the capacity): ``oversized="error"`` (default) refuses
them, naming the first; ``"skip"`` leaves them out of every epoch, counted in
``num_skipped`` and announced by one warning. Splitting a document across
rows is not offered: the second half would lose its context and its
position ids; truncate such documents in the dataset if you want them.

NOTE (cost): a batch costs its number of tokens (``cost="tokens"``, what the
MLP layers pay) or the sum of squared document lengths
(``cost="attention"``, what attention within documents pays). Batch order is
compute-balanced with ``cost_balance.balanced_order``; the plan stays
independent of the world size, so elastic resume is exact.

NOTE (draws): the windows are cut from a random order of the items: a
keyed permutation (``KeyedPermutation``, written in order, a chunk at a
time) in draw 2, numpy's shuffle (a cache miss per swap) in draw 1, the
order of fairshard 0.2. At 1e7 items the permutation took 0.24 s and the
shuffle 0.76 s (2026-12-02, this project's 2-core machine). The config
records ``draw`` (the base's NOTE on draws): a state saved without it comes
from draw 1, and loading it switches the sampler to draw 1, which it keeps;
a new sampler uses draw 2.

Planning materializes the epoch's rows (two int64 arrays, 8 bytes per item
plus 8 per row), as every batch sampler's plan does; building it takes
about as much again at its peak (``pack_plan``'s memory note).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.partition import Tail
from .._core.plan_share import shared_tables
from .._errors import (
    ConfigError,
    DegenerateConfigWarning,
    check_choice,
    check_int,
    warn,
)
from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_generator, stream_words
from .base import BatchPlanSampler, check_lengths, reorder_batches, reorder_into
from .cost_balance import DEFAULT_BALANCE_RUN, balanced_order, check_balance_run
from .pack_plan import narrow_int, pack_items
from .row_plan import PackedPlan

__all__ = ["PackingBatchSampler"]

Oversized = Literal["error", "skip"]
Cost = Literal["tokens", "attention"]
OVERSIZED: tuple[Oversized, ...] = ("error", "skip")
COSTS: tuple[Cost, ...] = ("tokens", "attention")

#: Default items per packing window (see ``pack_plan``).
DEFAULT_WINDOW = 1024

_COST_CHUNK = 1 << 18  # items per chunk of the row costs
_ORDER_CHUNK = 1 << 14  # items per chunk of the keyed permutation (stays in cache)


class PackingBatchSampler(BatchPlanSampler[PackedPlan]):
    """Pack whole documents into rows of ``capacity`` tokens; batches of rows per rank.

    Args:
        lengths: Tokens of each dataset item (a list, array or tensor of ints > 0).
        capacity: Tokens per row (the packed sequence length).
        rows_per_batch: Rows in each batch (the last batch of an epoch may
            have fewer).
        window: Items packed together (see ``pack_plan``): larger packs
            tighter, smaller keeps the order more random.
        oversized: ``"error"`` or ``"skip"`` for items longer than ``capacity``.
        cost: ``"tokens"`` or ``"attention"`` (see the module notes).
        balance_run: Batches per run of similar cost (``cost_balance``);
            ``None`` shuffles batches uniformly.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"`` (recycle whole batches), ``"drop"`` or ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).

    Raises:
        ConfigError: bad lengths, capacity, rows per batch or window; an item
            longer than ``capacity`` with ``oversized="error"``.

    Example:
        >>> s = PackingBatchSampler([3, 5, 2, 4, 6], capacity=8, rows_per_batch=2,
        ...                         num_replicas=1, rank=0)
        >>> batches = list(s)
        >>> sorted(i for b in batches for row in b for i in row)
        [0, 1, 2, 3, 4]
        >>> s.num_rows, all(sum([3, 5, 2, 4, 6][i] for i in r) <= 8 for b in batches for r in b)
        (3, True)
    """

    kind = "PackingBatchSampler"
    _DRAWS = (1, 2)  # the module NOTE on draws

    def __init__(
        self,
        lengths: Any,
        capacity: int,
        rows_per_batch: int,
        *,
        window: int = DEFAULT_WINDOW,
        oversized: Oversized = "error",
        cost: Cost = "tokens",
        balance_run: int | None = DEFAULT_BALANCE_RUN,
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
        checked = check_lengths(lengths, positive=True)
        if checked.dtype.kind != "i":  # whole floats (a float tensor of counts) are counts
            fractional = np.flatnonzero(checked != np.floor(checked))
            if fractional.size:
                first = int(fractional[0])
                raise ConfigError(
                    "lengths must be whole token counts for packing, got "
                    f"lengths[{first}]={float(checked[first])!r}; pass each item's number of tokens"
                )
        if checked.dtype.kind != "i":
            checked = checked.astype(np.int64)
        # The config digest is of the int64 lengths, as saved states recorded it.
        self._digest = S.digest(checked)
        # NOTE (memory): the lengths are kept in the narrowest integer dtype
        # that holds them (2 bytes per item for token counts below 2**15):
        # at 1e7 items an int64 copy alone was as large as the whole plan. The
        # copy is built once per node where plans are shared (read-only mapping).
        self.lengths: NDArray[np.signedinteger[Any]] = shared_tables(
            {"kind": self.kind, "tables": "lengths", "lengths": self._digest},
            lambda wide: {"lengths": wide.astype(narrow_int(int(wide.max())))},
            checked,
        )["lengths"]
        del checked
        self.capacity = check_int("capacity", capacity, minimum=1, fix="tokens per packed row")
        self.rows_per_batch = check_int(
            "rows_per_batch", rows_per_batch, minimum=1, fix="at least one row per batch"
        )
        self.window = check_int("window", window, minimum=1, fix="e.g. 1024 (the default)")
        self.oversized: Oversized = check_choice("oversized", oversized, OVERSIZED)
        self.cost: Cost = check_choice("cost", cost, COSTS)
        self.balance_run = check_balance_run(balance_run)
        self._kept = self._find_kept()
        self.num_skipped = 0 if self._kept is None else int(self.lengths.size - self._kept.size)

    def _find_kept(self) -> NDArray[Any] | None:
        """The items that fit a row, in an index dtype; ``None`` when all do."""
        over = self.lengths > self.capacity
        if not over.any():
            return None
        first, count = int(np.flatnonzero(over)[0]), int(over.sum())
        if self.oversized == "error":
            raise ConfigError(
                f"item {first} has {int(self.lengths[first])} tokens, over capacity="
                f"{self.capacity} ({count} item(s) are); raise capacity, truncate those "
                "items in the dataset, or pass oversized='skip' to leave them out"
            )
        warn(
            f"{self.kind}: skipping {count} item(s) longer than capacity={self.capacity} "
            f"(the first is item {first}, {int(self.lengths[first])} tokens); see "
            "num_skipped",
            DegenerateConfigWarning,
        )
        kept = np.flatnonzero(~over).astype(narrow_int(self.lengths.size))
        if kept.size == 0:
            raise ConfigError(f"every item is longer than capacity={self.capacity}; nothing fits")
        return kept

    def _config(self) -> dict[str, Any]:
        return {
            "lengths": self._digest,
            "capacity": self.capacity,
            "rows_per_batch": self.rows_per_batch,
            "window": self.window,
            "oversized": self.oversized,
            "cost": self.cost,
            "balance_run": self.balance_run,
            **self._draw_config(),  # draw 1's states have no field
        }

    def _shares_plan(self) -> bool:
        return True

    def _build_plan(self, epoch: int) -> PackedPlan:
        rng = stream_generator(StreamId.PACKING, epoch, self.seed)
        m = self.lengths.size if self._kept is None else self._kept.size
        # NOTE (memory): below 2**31 items the int64 result is allocated
        # first and its bytes hold, until the end, the int32 items in random
        # order (upper half: packing rearranges them in place) and packing's
        # sorted lengths (lower half).
        out: NDArray[np.int64] | None = None
        keys: NDArray[np.int32] | None = None
        if narrow_int(m) == np.int32:
            out = np.empty(m, dtype=np.int64)
            keys, items = out.view(np.int32)[:m], out.view(np.int32)[m:]
        else:
            items = np.empty(m, dtype=narrow_int(m))
        self._random_order(items, rng, epoch)
        if self._kept is not None:
            for a in range(0, m, _COST_CHUNK):
                items[a : a + _COST_CHUNK] = self._kept[items[a : a + _COST_CHUNK]]
        flat, row_offsets, row_order, loads = pack_items(
            items, self.lengths, self.capacity, self.window, keys
        )
        del items, keys
        num_rows = row_order.size
        shuffled = row_order[rng.permutation(num_rows)]  # (rows,) packed rows in random order
        del row_order
        batch_rows = np.append(np.arange(0, num_rows, self.rows_per_batch), num_rows)
        if self.cost == "tokens":
            row_costs = loads.astype(np.float64)  # whole numbers: the same sums exactly
        else:
            row_costs = self._row_costs(flat, row_offsets)
        costs = np.add.reduceat(row_costs[shuffled], batch_rows[:-1])  # (batches,)
        del row_costs
        order = balanced_order(
            costs, stream_generator(StreamId.PACKING, epoch, self.seed, sub_id=1), self.balance_run
        )
        # The rows of batch order[0], then of order[1], ...: one reorder of the items.
        row_seq = reorder_batches(np.arange(num_rows, dtype=np.int64), batch_rows, order)
        rows = shuffled[row_seq.flat]  # (rows,) packed rows in plan order
        del shuffled
        row_loads = loads[rows].astype(narrow_int(self.capacity))  # (rows,) in plan order
        del loads
        if out is None:  # below 2**15 items (or past 2**31): a plain reorder
            ordered = reorder_batches(flat, row_offsets, rows)
            return PackedPlan(ordered.flat, ordered.offsets, row_seq.offsets, row_loads)
        del flat  # the upper half of ``out``
        return PackedPlan(*_widen_rows(out, row_offsets, rows), row_seq.offsets, row_loads)

    def _random_order(self, items: NDArray[Any], rng: np.random.Generator, epoch: int) -> None:
        """Fill ``items`` with ``0..m-1`` in the epoch's random order (the module NOTE on draws).

        Draw 1 shuffles an arange in place, the same permutation as
        ``rng.permutation(m)`` (the same draws).
        """
        m = int(items.size)
        if self._draw == 1:
            for a in range(0, m, _COST_CHUNK):
                items[a : a + _COST_CHUNK] = np.arange(
                    a, min(m, a + _COST_CHUNK), dtype=items.dtype
                )
            rng.shuffle(items)
            return
        words = stream_words(StreamId.PACKING, epoch, self.seed, ROUNDS, sub_id=2)
        order = KeyedPermutation(m, words)
        for a in range(0, m, _ORDER_CHUNK):
            items[a : a + _ORDER_CHUNK] = order.take(
                np.arange(a, min(m, a + _ORDER_CHUNK), dtype=np.int64)
            )

    def _row_costs(self, flat: NDArray[Any], row_offsets: NDArray[np.int64]) -> NDArray[np.float64]:
        """(rows,) cost of each row: its tokens, or the sum of its squared lengths.

        Rows are summed a chunk of about ``_COST_CHUNK`` items at a time, so
        the float lengths never take a plan-sized array.
        """
        rows = row_offsets.size - 1
        out = np.empty(rows, dtype=np.float64)
        r = 0
        while r < rows:
            end = int(np.searchsorted(row_offsets, row_offsets[r] + _COST_CHUNK, side="right")) - 1
            end = min(max(end, r + 1), rows)
            lo, hi = int(row_offsets[r]), int(row_offsets[end])
            lengths = self.lengths[flat[lo:hi]].astype(np.float64)
            if self.cost == "attention":
                lengths *= lengths
            out[r:end] = np.add.reduceat(lengths, row_offsets[r:end] - lo)
            r = end
        return out

    def _batch_costs(
        self, flat: NDArray[np.int64], row_offsets: NDArray[np.int64], batch_rows: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        row_costs = self._row_costs(flat, row_offsets)
        result: NDArray[np.float64] = np.add.reduceat(row_costs, batch_rows[:-1])
        return result

    # ------------------------------------------------------------ reporting
    @property
    def num_rows(self) -> int:
        """Rows in the current epoch's plan (all ranks, before padding)."""
        plan = self.plan()
        return int(plan.row_offsets.size - 1)

    def efficiency(self, epoch: int | None = None) -> float:
        """Real tokens / (rows * capacity) of ``epoch``'s plan (1.0: no padding at all)."""
        plan = self.plan(epoch)
        rows = plan.row_offsets.size - 1
        kept = self.lengths if self._kept is None else self.lengths[self._kept]
        return float(kept.sum(dtype=np.int64)) / (rows * self.capacity)

    def batch_costs(self, epoch: int | None = None) -> NDArray[np.float64]:
        """(num_batches,) cost of each batch (the sampler's ``cost``) in plan order."""
        plan = self.plan(epoch)
        if self.cost == "tokens" and plan.row_loads is not None:  # the rows' tokens, summed
            loads: NDArray[np.float64] = plan.row_loads.astype(np.float64)
            return np.add.reduceat(loads, plan.batch_rows[:-1]) if loads.size else loads
        return self._batch_costs(plan.flat, plan.row_offsets, plan.batch_rows)


def _widen_rows(
    out: NDArray[np.int64], row_offsets: NDArray[np.int64], rows: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Fill ``out`` with the packed rows ``rows`` in that order; return it and their offsets.

    ``out``'s bytes hold the int32 items (row after row, ``row_offsets``)
    in their upper half. The rows that fit below that half are gathered
    there directly; the rest into an int32 buffer of the remaining items,
    then widened over the half they came from. Beyond the result this needs
    a quarter of its size, where gathering from a separate int32 array
    needed a half.
    """
    m = int(out.size)
    source = out.view(np.int32)[m:]  # (m,) the upper half of the result's bytes
    ends = np.cumsum(np.diff(row_offsets)[rows])  # (rows,) where each row ends in the result
    split = int(np.searchsorted(ends, m // 2, side="right"))  # rows written below the source
    low = int(ends[split - 1]) if split else 0
    reorder_into(source, row_offsets, rows[:split], out[:low])
    rest = np.empty(m - low, dtype=np.int32)
    reorder_into(source, row_offsets, rows[split:], rest)
    out[low:] = rest
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    offsets[1:] = ends
    return out, offsets
