"""Static-shape batching: every batch from a small set of shapes known in advance.

``ShapeBucketBatchSampler`` puts each item in a length bucket (explicit
``boundaries``, or lengths rounded up to a multiple of ``round_to``) and
pads a batch to its bucket's length; ``KeyBatchSampler`` batches by a key
(an aspect-ratio bucket, a resolution, a source or task): one key per batch.
Batch sizes are a multiple of ``batch_multiple`` (8 for tensor cores), so a
compiled graph sees only the shapes in ``shapes``, fixed before the first
epoch.

NOTE (plan): buckets depend on the inputs only, never on the epoch. Per
epoch each bucket's members (ascending) are shuffled by the family's stream,
cut into batches of the bucket's size ``B_b``, and the last, partial batch of
``r`` items is cut down to ``batch_multiple * (r // batch_multiple)`` items
(``drop_last=True``: left out whole). The ``r % batch_multiple`` items left
out change with the epoch's shuffle and are counted in ``num_left_out``.
Because the bucket sizes are fixed, so is the multiset of batch shapes:
``shapes`` is exact for every epoch. The batches are then ordered by
``cost_balance`` (padded cost ``size * bucket length``) or uniformly
shuffled, and partitioned over ranks as whole batches like every batch
family, so every rank takes equal steps (a ``"pad"`` tail recycles whole
batches, whose shapes are in the set too).

NOTE (one key per step): ``KeyBatchSampler(one_key_per_step=True)`` gives
all ``W`` ranks' batches of a step one key (mosaicml streaming's
``batching_method="per_stream"``; the plain family is its
``"device_per_stream"``). The strided deal gives step ``s`` the plan
positions ``[s*W, (s+1)*W)``, so the plan lays each key's batches out in
*runs* of ``W`` consecutive positions (``key_runs``) and orders the runs,
not the batches; a run never crosses a step. A key whose batch count is not
a multiple of ``W`` has a short last run: ``tail="pad"`` fills it with that
key's first batches of the epoch, again (counted in
``num_padded_batches``, as the partition's padding is), ``tail="drop"``
leaves it out (its batches in ``num_dropped_batches``, their items in
``num_left_out``), and ``tail="uneven"`` is refused (its steps would mix
keys). Every plan is then a whole number of steps, so the partition pads
and drops nothing more. The plan depends on ``W``: the config records it as
``step_run``, a state is refused on another world size (its runs would
straddle the new steps), and a ``StepSampler``, whose plans must not depend
on the world size, refuses the mode. With ``W = 1`` the plan is the plain
family's.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.labels import encode_labels
from .._core.migrate import Change
from .._core.partition import Tail
from .._core.plans import BatchPlan
from .._errors import (
    ConfigError,
    ConfigTypeError,
    StateDictError,
    check_bool,
    check_int,
    check_real,
)
from .._random.seeding import StreamId, stream_generator
from .base import BatchPlanSampler, check_lengths, reorder_batches
from .cost_balance import DEFAULT_BALANCE_RUN, balanced_order, check_balance_run

__all__ = ["KeyBatchSampler", "ShapeBucketBatchSampler", "bucket_plan", "key_runs"]


def bucket_plan(
    members: list[NDArray[np.int64]],
    sizes: list[int],
    costs: list[float],
    multiple: int,
    drop_last: bool,
    stream: int,
    epoch: int,
    seed: int,
    balance_run: int | None,
    *,
    step_run: int = 1,
    pad_runs: bool = True,
) -> BatchPlan:
    """One epoch's batches: each bucket shuffled and cut (module NOTE), then ordered.

    Args:
        members: Per bucket, its item indices ascending.
        sizes: Per bucket, its batch size ``B_b`` (a multiple of ``multiple``).
        costs: Per bucket, the cost of one item (its padded length).
        multiple: ``batch_multiple``.
        drop_last: Leave out each bucket's partial batch whole.
        stream: The family's ``StreamId``.
        epoch: The epoch.
        seed: Root seed.
        balance_run: ``cost_balance`` run length, or ``None`` for a uniform shuffle.
        step_run: Batches of one bucket laid out consecutively (the module's
            NOTE on one key per step); 1 orders single batches.
        pad_runs: With ``step_run > 1``, fill a bucket's last, short run by
            recycling its first batches; ``False`` leaves that run out.
    """
    rng = stream_generator(stream, epoch, seed)
    flats: list[NDArray[np.int64]] = []
    batch_sizes: list[NDArray[np.int64]] = []
    batch_costs: list[NDArray[np.float64]] = []
    for items, size, cost in zip(members, sizes, costs, strict=True):
        shuffled = items[rng.permutation(items.size)]
        full, rest = divmod(items.size, size)
        last = 0 if drop_last else multiple * (rest // multiple)
        here = np.full(full + (1 if last else 0), size, dtype=np.int64)
        if last:
            here[-1] = last
        flats.append(shuffled[: full * size + last])
        batch_sizes.append(here)
        batch_costs.append((here * float(cost)).astype(np.float64))
    flat = np.concatenate([*flats, np.empty(0, dtype=np.int64)])
    offsets = np.zeros(sum(b.size for b in batch_sizes) + 1, dtype=np.int64)
    np.cumsum(np.concatenate([*batch_sizes, np.empty(0, dtype=np.int64)]), out=offsets[1:])
    per_batch = np.concatenate([*batch_costs, np.empty(0, dtype=np.float64)])  # (num_batches,)
    order_rng = stream_generator(stream, epoch, seed, sub_id=1)
    if step_run == 1:
        return reorder_batches(flat, offsets, balanced_order(per_batch, order_rng, balance_run))
    counts = [b.size for b in batch_sizes]
    runs = key_runs(counts, step_run, pad_runs)  # (num_runs, step_run) batch numbers
    run_order = balanced_order(per_batch[runs].sum(axis=1), order_rng, balance_run)
    return reorder_batches(flat, offsets, runs[run_order].reshape(-1))


def key_runs(counts: list[int], run: int, pad: bool) -> NDArray[np.int64]:
    """Each bucket's batches cut into runs of ``run`` (module NOTE on one key per step).

    Args:
        counts: Per bucket, its batches this epoch; bucket ``b``'s are the
            batch numbers ``sum(counts[:b]) + [0, counts[b])``.
        run: Batches per run (the world size).
        pad: Fill a bucket's last, short run with its first batches, again
            (cyclically when it has fewer than ``run``); ``False`` leaves the
            short run out.

    Returns:
        (num_runs, run) int64 batch numbers, runs of bucket 0 first.

    Example:
        >>> key_runs([5, 1], 2, pad=True).tolist()
        [[0, 1], [2, 3], [4, 0], [5, 5]]
        >>> key_runs([5, 1], 2, pad=False).tolist()
        [[0, 1], [2, 3]]
    """
    parts = [np.empty((0, run), dtype=np.int64)]
    first = 0
    for count in counts:
        whole = -(-count // run) if pad else count // run
        if count and whole:
            local = np.arange(whole * run, dtype=np.int64) % count  # wraps to the head
            parts.append((first + local).reshape(whole, run))
        first += count
    return np.concatenate(parts)


def _run_counts(
    counts: list[tuple[int, int]], size: int, run: int, pad: bool
) -> tuple[list[tuple[int, int]], int, int]:
    """What ``key_runs`` does to each bucket's ``(full, last)`` batches of ``shapes``.

    Returns:
        ``(kept, extra, items)``: per bucket the ``(full, last)`` batches in
        the plan (the short run left out when not ``pad``), the batches the
        plan holds beyond them (recycled when ``pad``, left out when not),
        and the items of the batches left out.
    """
    kept, extra, items = [], 0, 0
    for full, last in counts:
        batches = full + (1 if last else 0)
        short = batches % run
        if pad:
            kept.append((full, last))
            extra += (run - short) % run if batches else 0
            continue
        gone_last = 1 if last and short else 0  # the partial batch is its bucket's last
        gone_full = short - gone_last
        kept.append((full - gone_full, 0 if gone_last else last))
        extra += short
        items += gone_full * size + gone_last * last
    return kept, extra, items


def _shape_counts(
    members: list[NDArray[np.int64]], sizes: list[int], multiple: int, drop_last: bool
) -> tuple[list[tuple[int, int]], int]:
    """Per bucket ``(full batches, partial batch size)`` and the items left out per epoch."""
    out, left = [], 0
    for items, size in zip(members, sizes, strict=True):
        full, rest = divmod(items.size, size)
        last = 0 if drop_last else multiple * (rest // multiple)
        out.append((full, last))
        left += rest - last
    return out, left


def _check_multiple(batch_multiple: Any) -> int:
    return check_int(
        "batch_multiple", batch_multiple, minimum=1, fix="8 suits tensor cores; 1 for any size"
    )


def _check_boundaries(
    boundaries: Any, round_to: Any, lengths: NDArray[Any], prefix: str = ""
) -> NDArray[Any] | None:
    """Checked ``boundaries`` (every length at or below the last), or ``None``."""
    b, r = f"{prefix}boundaries", f"{prefix}round_to"
    if boundaries is None:
        return None
    if round_to is not None:
        raise ConfigError(f"give {b} or {r}, not both, got {b}={boundaries!r} and {r}={round_to!r}")
    if isinstance(boundaries, str | bytes) or not hasattr(boundaries, "__len__"):
        raise ConfigTypeError(
            f"{b} must be a list of increasing lengths, got {type(boundaries).__name__}"
        )
    values = list(boundaries)
    if not values or any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in values):
        raise ConfigError(f"{b} must be a non-empty list of numbers, got {b}={values!r}")
    array = np.asarray(values)
    if np.any(np.diff(array) <= 0) or array[0] <= 0 or not np.all(np.isfinite(array)):
        raise ConfigError(
            f"{b} must be finite, positive and strictly increasing, got {b}={values!r}"
        )
    over = np.flatnonzero(lengths > array[-1])
    if over.size:
        first = int(over[0])
        raise ConfigError(
            f"item {first} has {prefix}length {lengths[first].item()!r}, over the last of "
            f"{b}={values!r} ({over.size} item(s) are); add a boundary >= "
            f"{lengths.max().item()!r}, or truncate those items"
        )
    return array


def _padded(
    lengths: NDArray[Any], boundaries: NDArray[Any] | None, round_to: float | None
) -> NDArray[Any]:
    """``(n,)`` each item's padded length: its boundary, its rounded length, or itself."""
    if boundaries is not None:
        return boundaries[np.searchsorted(boundaries, lengths, side="left")]
    if round_to is not None:
        rounded = np.ceil(lengths / round_to) * round_to
        if lengths.dtype.kind == "i" and float(round_to).is_integer():
            return rounded.astype(np.int64)
        return rounded
    return lengths


def _check_round(name: str, value: Any) -> float | None:
    return None if value is None else check_real(name, value, minimum=0, strict_minimum=True)


class _Buckets(BatchPlanSampler[BatchPlan], register=False):
    """Shared plan, shapes and state of the bucketed families."""

    _stream = 0
    _members: list[NDArray[np.int64]]
    _sizes: list[int]
    _costs: list[float]
    batch_multiple: int
    drop_last: bool
    balance_run: int | None
    #: Batches of one bucket per run of the plan (one key per step: the world size).
    _step_run: int = 1

    def _shares_plan(self) -> bool:
        return True

    def _build_plan(self, epoch: int) -> BatchPlan:
        return bucket_plan(
            self._members,
            self._sizes,
            self._costs,
            self.batch_multiple,
            self.drop_last,
            self._stream,
            epoch,
            self.seed,
            self.balance_run,
            step_run=self._step_run,
            pad_runs=self.tail == "pad",
        )

    def _finish_buckets(self) -> None:
        counts, self._left_out = _shape_counts(
            self._members, self._sizes, self.batch_multiple, self.drop_last
        )
        self._counts = counts
        if not any(full or last for full, last in counts):
            raise ConfigError(
                f"{self.kind}: no bucket fills one batch of batch_multiple="
                f"{self.batch_multiple} items, so an epoch has no batch; lower the batch "
                "size or batch_multiple, or use fewer buckets"
            )

    @property
    def num_left_out(self) -> int:
        """Items of each epoch in no batch: each bucket's remainder below ``batch_multiple``.

        The same count every epoch; which items changes with the epoch's shuffle.
        """
        return self._left_out


class ShapeBucketBatchSampler(_Buckets):
    """Length-bucketed batches of a few static shapes ``(batch size, padded length)``.

    Args:
        lengths: One length per item (ints or floats, >= 0).
        batch_size: Items per batch (a multiple of ``batch_multiple``); or
            leave it ``None`` and give ``max_tokens``.
        boundaries: Increasing bucket lengths: an item goes to the first
            boundary at or above its length, and its batch is padded to it
            (lhotse's ``duration_bins``, bucketed TPU/XLA inputs).
        round_to: Instead of ``boundaries``, round each length up to a
            multiple of ``round_to`` (pad to a multiple of 64, say). With
            neither, every distinct length is its own bucket.
        target_lengths: Optional second length per item (the output of a
            sequence-to-sequence pair): buckets are then two-dimensional,
            ``(input bucket, output bucket)``, and a batch's shape is
            ``(batch size, input length, output length)``.
        target_boundaries: Buckets of ``target_lengths``, as ``boundaries``.
        target_round_to: Rounding of ``target_lengths``, as ``round_to``.
        max_tokens: Instead of ``batch_size``, a budget of padded tokens per
            batch: bucket ``b`` of padded length ``L_b`` (the longer side of
            a two-dimensional bucket) gets ``floor(max_tokens / L_b)``
            items, rounded down to a multiple of ``batch_multiple`` (fairseq's ``max_tokens`` with
            ``required_batch_size_multiple``).
        max_batch_size: With ``max_tokens``, a cap on items per batch.
        batch_multiple: Every batch size is a multiple of it (8 for tensor
            cores); a bucket's last, partial batch is cut to a multiple.
        drop_last: Leave out each bucket's partial batch whole, so every
            batch of a bucket has one size.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"`` (recycle whole batches), ``"drop"`` or ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        balance_run: Batches per run of similar cost (``cost_balance``);
            ``None`` shuffles batches uniformly.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``).

    Raises:
        ConfigError: an item longer than the last boundary (naming it), a
            budget that fits fewer than ``batch_multiple`` items of a bucket,
            a ``batch_size`` that is not a multiple of ``batch_multiple``, and
            other bad values, each naming its parameter.

    Example:
        >>> s = ShapeBucketBatchSampler(
        ...     [3, 60, 7, 64, 5, 33, 2, 40], 2, boundaries=[8, 64], num_replicas=1, rank=0
        ... )
        >>> s.shapes
        {(2, 8): 2, (2, 64): 2}
        >>> sorted(s.padded_length(b) for b in s)
        [8, 8, 64, 64]
    """

    kind = "ShapeBucketBatchSampler"
    _stream = StreamId.SHAPE_BUCKET

    def __init__(
        self,
        lengths: Any,
        batch_size: int | None = None,
        *,
        boundaries: Any = None,
        round_to: float | None = None,
        target_lengths: Any = None,
        target_boundaries: Any = None,
        target_round_to: float | None = None,
        max_tokens: float | None = None,
        max_batch_size: int | None = None,
        batch_multiple: int = 1,
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
        self.batch_multiple = _check_multiple(batch_multiple)
        self.drop_last = check_bool("drop_last", drop_last)
        self.balance_run = check_balance_run(balance_run)
        if (batch_size is None) == (max_tokens is None):
            raise ConfigError(
                f"give exactly one of batch_size and max_tokens, got batch_size={batch_size!r} "
                f"and max_tokens={max_tokens!r}"
            )
        self.boundaries = _check_boundaries(boundaries, round_to, self.lengths)
        self.round_to = _check_round("round_to", round_to)
        padded = _padded(self.lengths, self.boundaries, self.round_to)  # (n,) padded lengths
        self.target_lengths: NDArray[Any] | None = None
        self.target_boundaries: NDArray[Any] | None = None
        self.target_round_to = _check_round("target_round_to", target_round_to)
        if target_lengths is None:
            if target_boundaries is not None or target_round_to is not None:
                raise ConfigError(
                    "target_boundaries and target_round_to bucket target_lengths; pass "
                    "target_lengths (one output length per item) or leave them out"
                )
            bucket_lengths, codes = np.unique(padded, return_inverse=True)
        else:
            target = check_lengths(target_lengths, name="target_lengths")
            if target.size != self.lengths.size:
                raise ConfigError(
                    f"target_lengths must hold one length per item (shape "
                    f"({self.lengths.size},)), got shape ({target.size},)"
                )
            self.target_lengths = target
            self.target_boundaries = _check_boundaries(
                target_boundaries, target_round_to, target, "target_"
            )
            out = _padded(target, self.target_boundaries, self.target_round_to)
            pairs = np.stack([padded, out], axis=1)  # (n, 2) input x output bucket
            bucket_lengths, codes = np.unique(pairs, axis=0, return_inverse=True)
        self.bucket_lengths: NDArray[Any] = bucket_lengths
        self._bucket = codes.reshape(-1).astype(np.int64)
        by_bucket = np.argsort(self._bucket, kind="stable").astype(np.int64)
        self._members = np.split(by_bucket, np.cumsum(np.bincount(self._bucket))[:-1])
        self.batch_size = (
            None
            if batch_size is None
            else check_int("batch_size", batch_size, minimum=1, fix="or None with max_tokens")
        )
        self.max_tokens = (
            None
            if max_tokens is None
            else check_real("max_tokens", max_tokens, minimum=0, strict_minimum=True)
        )
        self.max_batch_size = (
            None
            if max_batch_size is None
            else check_int("max_batch_size", max_batch_size, minimum=1, fix="or None for no cap")
        )
        # One item's cost: its padded length, the longer side of a 2-D bucket (fairseq's
        # num_tokens = max(source, target)).
        per_item = bucket_lengths if bucket_lengths.ndim == 1 else bucket_lengths.max(axis=1)
        self._sizes = [self._bucket_size(float(v)) for v in per_item.tolist()]
        self._costs = [float(v) for v in per_item.tolist()]
        self._digest = S.digest(self.lengths)
        self._finish_buckets()

    def _bucket_size(self, length: float) -> int:
        k = self.batch_multiple
        if self.batch_size is not None:
            if self.batch_size % k:
                raise ConfigError(
                    f"batch_size must be a multiple of batch_multiple={k}, got batch_size="
                    f"{self.batch_size}; use {max(k, self.batch_size // k * k)}"
                )
            return self.batch_size
        assert self.max_tokens is not None
        fits = int(self.max_tokens // length) if length > 0 else self.max_batch_size or 1 << 62
        while fits > 1 and fits * length > self.max_tokens:  # float rounding
            fits -= 1
        if self.max_batch_size is not None:
            fits = min(fits, self.max_batch_size)
        size = fits // k * k
        if size < 1:
            raise ConfigError(
                f"max_tokens={self.max_tokens:g} fits {fits} item(s) of padded length "
                f"{length:g}, fewer than batch_multiple={k}; raise max_tokens to at least "
                f"{k * length:g} or lower batch_multiple"
            )
        return size

    def _config(self) -> dict[str, Any]:
        return {
            "lengths": self._digest,
            "boundaries": None if self.boundaries is None else self.boundaries.tolist(),
            "round_to": self.round_to,
            "batch_size": self.batch_size,
            "max_tokens": self.max_tokens,
            "max_batch_size": self.max_batch_size,
            "batch_multiple": self.batch_multiple,
            "drop_last": self.drop_last,
            "balance_run": self.balance_run,
            **self._target_config(),
        }

    def _target_config(self) -> dict[str, Any]:
        if self.target_lengths is None:
            return {}  # one-dimensional buckets: the config as it was pinned
        bounds = self.target_boundaries
        return {
            "target_lengths": S.digest(self.target_lengths),
            "target_boundaries": None if bounds is None else bounds.tolist(),
            "target_round_to": self.target_round_to,
        }

    @property
    def shapes(self) -> dict[tuple[Any, ...], int]:
        """``{(batch size, padded length): batches per epoch}``: every shape an epoch yields.

        With ``target_lengths`` the keys are ``(batch size, input length,
        output length)``. Fixed by the inputs before the first epoch (module
        NOTE); a padded tail recycles batches of these shapes.
        """
        out: dict[tuple[Any, ...], int] = {}
        for (full, last), size, length in zip(
            self._counts, self._sizes, self.bucket_lengths.tolist(), strict=True
        ):
            dims = tuple(length) if isinstance(length, list) else (length,)
            if full:
                key = (size, *dims)
                out[key] = out.get(key, 0) + full
            if last:
                key = (last, *dims)
                out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))

    def padded_length(self, batch: Any) -> Any:
        """The length to pad ``batch`` (a list of indices) to: its bucket's length.

        A ``(input length, output length)`` pair with ``target_lengths``.
        """
        idx = np.asarray(batch, dtype=np.int64)
        value = self.bucket_lengths[int(self._bucket[idx].max())]
        return tuple(value.tolist()) if self.target_lengths is not None else value.item()


class KeyBatchSampler(_Buckets):
    """Batches of one key each (aspect-ratio bucket, resolution, source or task).

    Args:
        keys: One key per item (ints or strings): a list, array or tensor.
        batch_size: Items per batch, a multiple of ``batch_multiple``.
        batch_multiple: Every batch size is a multiple of it; a key's last,
            partial batch is cut to a multiple.
        drop_last: Leave out each key's partial batch whole.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"`` (recycle whole batches), ``"drop"`` or ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        balance_run: Batches per run of similar size (``cost_balance``);
            ``None`` (the default) shuffles batches uniformly.
        one_key_per_step: Give every rank's batch of a step the same key (one
            source, task or resolution per global step), instead of one key
            per batch. A key's batches that do not fill a whole step are
            recycled from its head (``tail="pad"``) or left out (``"drop"``);
            see the module NOTE on one key per step.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``).

    Raises:
        ConfigError: a ``batch_size`` that is not a multiple of
            ``batch_multiple``, ``one_key_per_step`` with ``tail="uneven"``
            or with no key filling one step under ``tail="drop"``, and other
            bad values, each naming its parameter.

    Example:
        >>> keys = ["wide", "tall", "wide", "tall", "wide"]
        >>> s = KeyBatchSampler(keys, 2, num_replicas=1, rank=0)
        >>> sorted(s.key_of(b) for b in s), s.num_left_out
        (['tall', 'wide', 'wide'], 0)
        >>> s = KeyBatchSampler(keys, 2, drop_last=True, num_replicas=1, rank=0)
        >>> sorted(s.key_of(b) for b in s), s.num_left_out
        (['tall', 'wide'], 1)
        >>> ranks = [KeyBatchSampler(keys * 4, 2, one_key_per_step=True,
        ...     num_replicas=2, rank=r) for r in range(2)]
        >>> all(len({ranks[0].key_of(b) for b in step}) == 1 for step in zip(*ranks))
        True
    """

    kind = "KeyBatchSampler"
    _stream = StreamId.KEY_BATCH

    def __init__(
        self,
        keys: Any,
        batch_size: int,
        *,
        batch_multiple: int = 1,
        drop_last: bool = False,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int | None = 0,
        tail: Tail = "pad",
        auto_epoch: bool = False,
        balance_run: int | None = None,
        one_key_per_step: bool = False,
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
        self.one_key_per_step = check_bool("one_key_per_step", one_key_per_step)
        if self.one_key_per_step and self.tail == "uneven":
            raise ConfigError(
                "one_key_per_step=True fills every step with one key's batches, but "
                "tail='uneven' gives the last steps fewer ranks' batches and mixes keys; use "
                "tail='pad' (recycles a key's batches) or tail='drop' (leaves them out)"
            )
        self._step_run = self.num_replicas if self.one_key_per_step else 1
        self.keys, codes = encode_labels(keys, "keys")
        self._key = np.asarray(codes, dtype=np.int64)
        self.batch_multiple = _check_multiple(batch_multiple)
        self.batch_size = check_int("batch_size", batch_size, minimum=1)
        if self.batch_size % self.batch_multiple:
            k = self.batch_multiple
            raise ConfigError(
                f"batch_size must be a multiple of batch_multiple={k}, got batch_size="
                f"{self.batch_size}; use {max(k, self.batch_size // k * k)}"
            )
        self.drop_last = check_bool("drop_last", drop_last)
        self.balance_run = check_balance_run(balance_run)
        by_key = np.argsort(self._key, kind="stable").astype(np.int64)
        self._members = np.split(by_key, np.cumsum(np.bincount(self._key))[:-1])
        self._sizes = [self.batch_size] * len(self.keys)
        self._costs = [1.0] * len(self.keys)
        self._digest = S.digest(self._key)
        self._finish_buckets()
        self._run_extra = 0  # batches recycled (pad) or left out (drop) to fill whole steps
        if self.one_key_per_step:
            self._finish_runs()

    def _finish_runs(self) -> None:
        """Counts of the one-key-per-step layout (module NOTE); refuse an empty epoch."""
        pad = self.tail == "pad"
        self._counts, self._run_extra, items = _run_counts(
            self._counts, self.batch_size, self._step_run, pad
        )
        self._left_out += items
        if not any(full or last for full, last in self._counts):
            w = self._step_run
            raise ConfigError(
                f"{self.kind}: one_key_per_step=True with tail='drop' on num_replicas={w} "
                f"ranks needs a key with at least {w} batches of batch_size={self.batch_size} "
                "to fill one step, and no key has that many, so an epoch has no step; use "
                "tail='pad' (recycles a key's batches), a smaller batch_size, or fewer ranks"
            )
        self._endless_refusal = (
            f"{self.kind}(one_key_per_step=True) lays its plan out in runs of "
            f"num_replicas={self._step_run} batches of one key, but a StepSampler's plans must "
            "not depend on the world size (its steps span epochs and any skip); iterate the "
            "sampler by epochs, or build it with one_key_per_step=False"
        )

    def _config(self) -> dict[str, Any]:
        per_step = (
            {"one_key_per_step": True, "step_run": self._step_run}
            if self.one_key_per_step
            else {}  # the config as it was pinned before the option existed
        )
        return {
            "keys": self._digest,
            "num_keys": len(self.keys),
            "batch_size": self.batch_size,
            "batch_multiple": self.batch_multiple,
            "drop_last": self.drop_last,
            "balance_run": self.balance_run,
            **per_step,
        }

    @property
    def num_padded_batches(self) -> int:
        """Batches recycled so every rank takes equal steps (``pad``).

        With ``one_key_per_step``, also those that fill each key's last step.
        """
        extra = self._run_extra if self.tail == "pad" else 0
        return super().num_padded_batches + extra

    @property
    def num_dropped_batches(self) -> int:
        """Batches no rank takes (``drop``).

        With ``one_key_per_step``, also each key's batches short of a whole step.
        """
        extra = self._run_extra if self.tail == "drop" else 0
        return super().num_dropped_batches + extra

    def load_state_dict(self, state_dict: dict[str, Any], migrate: Change | None = None) -> None:
        """Resume from ``state_dict`` (see ``PlannedSampler.load_state_dict``).

        Raises:
            StateDictError: as the base's, and a state whose
                ``one_key_per_step`` or world size differs from this sampler's
                in that mode (the plan's runs are laid out for the world size).
        """
        config = state_dict.get(S.K_CONFIG) if isinstance(state_dict, dict) else None
        if isinstance(config, dict):
            self._check_saved_runs(config)
        super().load_state_dict(state_dict, migrate)

    def _check_saved_runs(self, config: dict[str, Any]) -> None:
        saved_on = config.get("one_key_per_step", False)
        if saved_on != self.one_key_per_step:
            raise StateDictError(
                f"state_dict was saved with one_key_per_step={saved_on!r} but this sampler has "
                f"one_key_per_step={self.one_key_per_step!r}; build the sampler with "
                f"one_key_per_step={saved_on!r} to resume"
            )
        saved_run = config.get("step_run")
        if self.one_key_per_step and saved_run != self._step_run:
            raise StateDictError(
                f"state_dict was saved with one_key_per_step=True on num_replicas={saved_run!r} "
                f"ranks, and this sampler has num_replicas={self._step_run}: the saved epoch's "
                f"plan gives each key runs of {saved_run!r} batches, which would straddle steps "
                f"of {self._step_run} ranks and mix keys. Resume on num_replicas={saved_run!r} "
                "ranks, or start the next epoch on this world size without loading the state"
            )

    @property
    def shapes(self) -> dict[tuple[int, Any], int]:
        """``{(batch size, key): batches per epoch}``, fixed before the first epoch."""
        out: dict[tuple[int, Any], int] = {}
        for (full, last), key in zip(self._counts, self.keys, strict=True):
            if full:
                out[(self.batch_size, key)] = full
            if last:
                out[(last, key)] = 1
        return dict(sorted(out.items(), key=lambda kv: (str(kv[0][1]), kv[0][0])))

    def key_of(self, batch: Any) -> Any:
        """The one key of ``batch`` (a list of indices)."""
        return self.keys[int(self._key[int(np.asarray(batch, dtype=np.int64)[0])])]
