"""``TokenBudgetBatchSampler``: batches filled up to a token budget, never over it.

NOTE (algorithm): per epoch, items are sorted by length, longest first, with
a random tie-break (so batches change between epochs wherever lengths tie),
then batches are filled greedily in that order. Longest-first makes the
first item of a batch its longest, so under a padded cost (``"padded"``,
``bs * L``, or ``AttentionCost``, ``bs * (L + coef * L**2)``) a batch
starting at item ``p`` holds exactly ``max_tokens // cost(length[p])`` items:
no search is needed. Packed costs (``"sum"``, ``AttentionCost(packed=True)``)
use a binary search on the prefix sums of the per-item costs; another
callable is grown by doubling then bisection, which requires it to be
non-decreasing as items are added (true of any sensible cost). Every batch's
cost is checked against the budget at the end, and a cost that is NaN,
infinite or negative is an error naming the batch's items. The batch order
is then compute-balanced under the same cost (``cost_balance``) or
uniformly shuffled. The cost models and their resume fingerprint are in
``costs``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.partition import Tail
from .._core.plans import BatchPlan
from .._errors import ConfigError, ConfigTypeError, DegenerateConfigWarning, check_int, check_real
from .._errors import warn as _warn
from .._random.seeding import StreamId, stream_generator
from .base import BatchPlanSampler, check_lengths, reorder_into
from .cost_balance import DEFAULT_BALANCE_RUN, balanced_order, check_balance_run
from .costs import COSTS, AttentionCost, CostFn, batch_cost, cost_fingerprint, item_costs
from .halves import PlanBuffer
from .length_bucket import sort_key

__all__ = ["COSTS", "TokenBudgetBatchSampler", "batch_cost"]

_SORT_CHUNK = 1 << 18  # items sorted at once by ``_longest_first``


class TokenBudgetBatchSampler(BatchPlanSampler[BatchPlan]):
    """Batches whose cost stays within ``max_tokens``; whole batches per rank.

    Args:
        lengths: One positive length per dataset item (a list, array or tensor).
        max_tokens: Budget per batch (> 0), in the units of ``lengths``.
        max_batch_size: Optional cap on items per batch.
        cost: ``"padded"`` (default: ``max length * count``, the size of the
            padded tensor), ``"sum"`` (packed sequences), ``AttentionCost(coef)``
            (``bs * L + coef * bs * L**2``, a transformer step with its
            quadratic attention) or a callable mapping a batch's lengths array
            to its cost, non-decreasing as items are added.
        skip_oversized: Leave out items whose own cost exceeds ``max_tokens``
            (counted in ``num_skipped`` and reported by a warning) instead of
            raising.
        batch_multiple: Round every batch's size down to a multiple of it
            (8 for tensor cores), as fairseq's ``required_batch_size_multiple``:
            a batch the budget holds fewer than ``batch_multiple`` items of
            stays as it is, and the epoch's last batch is what is left. For
            a set of shapes fixed in advance, see ``ShapeBucketBatchSampler``.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"`` (recycle whole batches from the head), ``"drop"`` or,
            for evaluation, ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).
        balance_run: Batches per run of similar cost (see
            ``fairshard._batching.cost_balance``); ``None`` shuffles batches uniformly.

    Raises:
        ConfigError: an item is longer than the budget (the message names its
            index and length) and ``skip_oversized`` is False; a cost that is
            NaN, infinite or negative (naming the items); among others.

    Example:
        >>> s = TokenBudgetBatchSampler([3, 5, 2, 4], 8, num_replicas=1, rank=0)
        >>> sorted(sorted(b) for b in s)  # longest first: [5], [4, 3], [2]
        [[0, 3], [1], [2]]
    """

    kind = "TokenBudgetBatchSampler"

    def __init__(
        self,
        lengths: Any,
        max_tokens: float,
        *,
        max_batch_size: int | None = None,
        cost: str | CostFn = "padded",
        skip_oversized: bool = False,
        batch_multiple: int = 1,
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
        self.lengths = check_lengths(lengths, positive=True)
        self.max_tokens = check_real("max_tokens", max_tokens, minimum=0, strict_minimum=True)
        self.max_batch_size = (
            None
            if max_batch_size is None
            else check_int("max_batch_size", max_batch_size, minimum=1, fix="or None for no cap")
        )
        if not (callable(cost) or cost in COSTS):
            raise ConfigError(
                f"cost must be 'padded', 'sum' or a callable taking a batch's lengths, "
                f"got cost={cost!r}"
            )
        self.cost = cost
        if not isinstance(skip_oversized, bool):
            raise ConfigTypeError(
                f"skip_oversized must be a bool, got skip_oversized={skip_oversized!r}"
            )
        self.skip_oversized = skip_oversized
        self.batch_multiple = check_int(
            "batch_multiple", batch_multiple, minimum=1, fix="8 suits tensor cores; 1 for any size"
        )
        self.balance_run = check_balance_run(balance_run)
        # None when every item is kept: the plan then permutes 0..n-1 directly.
        self._kept: NDArray[np.int64] | None = self._find_kept()
        self.num_skipped = 0 if self._kept is None else int(self.lengths.size - self._kept.size)
        self._digest = S.digest(self.lengths)
        self._key = sort_key(self.lengths, self._digest)
        kept_lengths = self.lengths if self._kept is None else self.lengths[self._kept]
        self._cost_id = cost_fingerprint(cost, kept_lengths)

    def _find_kept(self) -> NDArray[np.int64] | None:
        """Items within the budget alone (``None``: all of them)."""
        if isinstance(self.cost, str):  # a named cost of one item is its (checked) length
            oversized = self.lengths > self.max_tokens
        else:
            alone = item_costs(self.lengths, self.cost)
            bad = ~(np.isfinite(alone) & (alone >= 0))
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                _bad_cost(float(alone[first]), np.array([first]), self.lengths)
            oversized = alone > self.max_tokens
            del alone
        if not oversized.any():
            return None
        first = int(np.flatnonzero(oversized)[0])
        count = int(oversized.sum())
        if not self.skip_oversized:
            raise ConfigError(
                f"item {first} has length {self.lengths[first].item()!r}, over "
                f"max_tokens={self.max_tokens:g} ({count} item(s) are); raise max_tokens, "
                "truncate those items, or pass skip_oversized=True to leave them out"
            )
        _warn(
            f"{self.kind}: skipping {count} item(s) longer than max_tokens="
            f"{self.max_tokens:g} (the first is item {first}, length "
            f"{self.lengths[first].item()!r}); see num_skipped",
            DegenerateConfigWarning,
        )
        kept = np.flatnonzero(~oversized).astype(np.int64)
        if kept.size == 0:
            raise ConfigError(
                f"every item is longer than max_tokens={self.max_tokens:g}; no batch can be formed"
            )
        return kept

    def _config(self) -> dict[str, Any]:
        return {
            "lengths": self._digest,
            "max_tokens": self.max_tokens,
            "max_batch_size": self.max_batch_size,
            "cost": self._cost_id,
            "skip_oversized": self.skip_oversized,
            "balance_run": self.balance_run,
            # Only when set, so states and shared plans of the default stay as they were.
            **({"batch_multiple": self.batch_multiple} if self.batch_multiple != 1 else {}),
        }

    def _shares_plan(self) -> bool:
        return True

    def _build_plan(self, epoch: int) -> BatchPlan:
        # NOTE (memory): the items are shuffled in one int32 half of the plan's
        # own buffer and sorted into the other (``halves``); the batches are
        # then gathered back into the first half and widened there, so beside
        # the sort key the build touches only the plan's own array.
        rng = stream_generator(StreamId.TOKEN_BUDGET, epoch, self.seed)
        m = self.lengths.size - self.num_skipped
        buffer = PlanBuffer(m, self.lengths.size)
        kept = buffer.out
        kept[:] = np.arange(m, dtype=kept.dtype)
        rng.shuffle(kept)  # random tie-break, in place: the values of permutation(m)
        if self._kept is not None:
            kept[:] = self._kept[kept]
        flat = buffer.work
        _longest_first(self._key, kept, flat)
        del kept
        offsets = self._fill(flat)
        costs = self._costs(flat, offsets)
        bad = np.flatnonzero(~(np.isfinite(costs) & (costs >= 0)))
        if bad.size:
            b = int(bad[0])
            _bad_cost(float(costs[b]), flat[offsets[b] : offsets[b + 1]], self.lengths)
        over = np.flatnonzero(costs > self.max_tokens)
        if over.size:  # unreachable for "padded"/"sum"; a guard for custom costs
            raise RuntimeError(
                f"batch {int(over[0])} costs {costs[over[0]]:g} > max_tokens="
                f"{self.max_tokens:g}; the cost callable must give a batch's cost from its "
                "lengths alone and not decrease as items are added"
            )
        order = balanced_order(
            costs,
            stream_generator(StreamId.TOKEN_BUDGET, epoch, self.seed, sub_id=1),
            self.balance_run,
        )
        del costs
        new_offsets = reorder_into(flat, offsets, order, buffer.out)
        del flat
        return BatchPlan(buffer.finish(m), new_offsets)

    def _fill(self, flat: NDArray[np.int64]) -> NDArray[np.int64]:
        """(num_batches + 1,) greedy batch boundaries over ``flat`` (longest first)."""
        m, budget, cost = flat.size, self.max_tokens, self.cost
        cap = self.max_batch_size if self.max_batch_size is not None else m
        if cost == "padded" or (isinstance(cost, AttentionCost) and not cost.packed):
            key = self._key[flat]  # runs of equal length, found on the narrow sort key
            run_starts = np.concatenate(([0], np.flatnonzero(key[1:] != key[:-1]) + 1))
            del key
            per_run = item_costs(self.lengths[flat[run_starts]], cost)
            return _padded_bounds(run_starts, per_run, m, budget, cap, self.batch_multiple)
        lengths = self.lengths[flat]
        bounds = [0]
        p = 0
        if cost == "sum" or isinstance(cost, AttentionCost):
            prefix = np.concatenate(([0], np.cumsum(item_costs(lengths, cost))))
            while p < m:
                end = int(np.searchsorted(prefix, prefix[p] + budget, side="right")) - 1
                end = min(max(end, p + 1), p + cap, m)
                while end > p + 1 and batch_cost(lengths[p:end], cost) > budget:
                    end -= 1  # float rounding of the prefix sums
                p = self._round(p, end, m)
                bounds.append(p)
        else:
            while p < m:
                p = self._round(p, self._grow(lengths, flat, p, min(p + cap, m)), m)
                bounds.append(p)
        return np.asarray(bounds, dtype=np.int64)

    def _round(self, p: int, end: int, m: int) -> int:
        """``end`` with the batch ``[p, end)`` cut to a multiple of ``batch_multiple``.

        Not below one multiple (a batch the budget holds fewer of stays), and
        not for the epoch's last batch.
        """
        k = self.batch_multiple
        size = end - p
        if k == 1 or end == m or size < k:
            return end
        return p + size // k * k

    def _grow(self, lengths: NDArray[Any], flat: NDArray[np.int64], p: int, limit: int) -> int:
        """Largest end in ``(p, limit]`` with cost(lengths[p:end]) within budget."""
        budget = self.max_tokens

        def fits(end: int) -> bool:
            value = batch_cost(lengths[p:end], self.cost)
            if not (math.isfinite(value) and value >= 0):
                _bad_cost(value, flat[p:end], self.lengths)
            return value <= budget

        good, step = p + 1, 1  # a single item fits (oversized ones were removed)
        while good < limit:
            probe = min(good + step, limit)
            if not fits(probe):
                bad = probe
                break
            good, step = probe, step * 2
        else:
            return good
        while bad - good > 1:
            mid = (good + bad) // 2
            if fits(mid):
                good = mid
            else:
                bad = mid
        return good

    def _costs(self, flat: NDArray[np.int64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
        sizes = np.diff(offsets)
        cost = self.cost
        longest = self.lengths[flat[offsets[:-1]]]  # sorted descending: the first is the longest
        if cost == "padded":
            return (longest * sizes).astype(np.float64)
        if isinstance(cost, AttentionCost) and not cost.packed:
            return cost.per_item(longest) * sizes
        lengths = self.lengths[flat]
        if cost == "sum" and lengths.dtype.kind == "i":
            return np.add.reduceat(lengths, offsets[:-1]).astype(np.float64)
        return np.array(
            [batch_cost(lengths[a:b], cost) for a, b in itertools.pairwise(offsets.tolist())],
            dtype=np.float64,
        )

    def batch_costs(self, epoch: int | None = None) -> NDArray[np.float64]:
        """(num_batches,) cost of each batch (the sampler's ``cost``) in plan order."""
        plan = self.plan(epoch)
        return np.array(
            [batch_cost(self.lengths[plan.batch(b)], self.cost) for b in range(len(plan))],
            dtype=np.float64,
        )


def _longest_first(key: NDArray[Any], items: NDArray[Any], out: NDArray[Any]) -> None:
    """Write ``items`` into ``out`` sorted by ``key[items]``, largest first, stable.

    Equal to ``items[np.argsort(-key[items], kind="stable")]``. NOTE (memory):
    that argsort is an int64 array of every item (twice the int32 ``out``).
    A narrow non-negative key (``sort_key``'s int16) is sorted by counting
    instead, in chunks: every key's first position in ``out`` follows from
    the key counts, each chunk is sorted on its own (a radix sort of its
    int16 keys, stable) and its items of key ``k`` go right after those of
    the earlier chunks, so the scratch beyond the keys is O(chunk).
    """
    keys = key[items]  # (m,)
    if keys.dtype != np.int16:
        np.negative(keys, out=keys)
        out[:] = items[np.argsort(keys, kind="stable")]
        return
    chunks = range(0, keys.size, _SORT_CHUNK)
    counts = np.zeros(int(keys.max()) + 1, dtype=np.int64)  # (K,) items of each key
    for lo in chunks:  # by chunk: bincount widens its input to int64
        counts += np.bincount(keys[lo : lo + _SORT_CHUNK], minlength=counts.size)
    # first[k]: items of a key above k, i.e. where key k's items start.
    first = np.cumsum(counts[::-1])[::-1] - counts
    for lo in chunks:
        chunk = keys[lo : lo + _SORT_CHUNK]
        order = np.argsort(-chunk, kind="stable")  # (c,) this chunk, largest key first
        here = np.bincount(chunk, minlength=counts.size)
        # Where the chunk's sorted run of key k starts in ``out``, less where it starts here.
        shift = first - (np.cumsum(here[::-1])[::-1] - here)
        dest = shift[chunk[order]]
        dest += np.arange(order.size, dtype=np.int64)
        out[dest] = items[lo : lo + _SORT_CHUNK][order]
        first += here


def _padded_bounds(
    run_starts: NDArray[np.int64],
    per_run: NDArray[np.float64],
    m: int,
    budget: float,
    cap: int,
    multiple: int = 1,
) -> NDArray[np.int64]:
    """(num_batches + 1,) greedy boundaries for a padded cost over items sorted longest first.

    A batch starting at ``p`` holds ``k(g[p]) = min(budget // g[p], cap)`` items
    (one less while float rounding puts ``g[p] * k`` over the budget), the last
    one cut at the end. ``k`` depends on ``g[p]`` alone, so inside a run of
    equal per-item costs the starts step by a constant: the loop is over the
    runs (at most one per distinct length), not over the batches.

    Args:
        run_starts: (runs,) first position of each run of equal lengths.
        per_run: (runs,) the per-item cost ``g`` of each run.
        m: Items in all.
        budget: ``max_tokens``.
        cap: Largest batch.
        multiple: Round ``k`` down to a multiple of it, when ``k >= multiple``.
    """
    run_ends = [*run_starts[1:].tolist(), m]
    values = per_run.tolist()
    starts: list[NDArray[np.int64]] = []
    p = 0
    for b, g in zip(run_ends, values, strict=True):
        if p >= b:
            continue
        take = min(int(budget // g), cap)
        while take > 1 and g * take > budget:  # float rounding
            take -= 1
        if take >= multiple:
            take -= take % multiple
        # The previous run's last batch ended at or after a, so a <= p < b here.
        here = np.arange(p, b, max(take, 1), dtype=np.int64)
        starts.append(here)
        p = int(here[-1]) + max(take, 1)
    return np.concatenate([*starts, np.array([m], dtype=np.int64)])


def _bad_cost(value: float, items: NDArray[np.int64], lengths: NDArray[Any]) -> None:
    """Raise: the cost of the batch of ``items`` is NaN, infinite or negative."""
    shown = items[:8].tolist()
    more = f" and {items.size - 8} more" if items.size > 8 else ""
    raise ConfigError(
        f"cost returned {value!r} for the batch of items {shown}{more} (lengths "
        f"{lengths[items[:8]].tolist()}{more}); a cost must be a finite number >= 0 -- "
        "fix the cost function"
    )
