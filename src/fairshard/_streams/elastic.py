"""Elastic resume of ``ShardedIterable``: finish an epoch on another world size or worker count.

A state saved on another shape (``elastic_resume``, which refuses with the
fix what cannot be exact), reading what is left of the epoch
(``read_view``) and saving it again (``seal``, ``loader_state``). What is
left and who reads it, the levels of saved runs, is ``_streams.elastic_view``.

Requires known lengths and positions that can be read again: item mode over
a sized, indexable source (or ``total=`` and an indexable source), shard
mode with ``shard_sizes``. Anything else is refused with the fix.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._core import state as S
from .._errors import ConfigError, StateDictError
from .elastic_view import Elastic, Level, Stream, View
from .layout import Consumer
from .read import read_shards
from .resume import batches_per_worker, position_in
from .source import random_access
from .state import ConsumerProgress, Position

__all__ = ["Elastic", "StateDictError", "elastic_resume"]


# ------------------------------------------------------------ load and save
def _fix(stream: Stream, saved_workers: int) -> str | None:
    """Why ``stream`` cannot resume on another shape (the fix), or ``None`` when it can.

    NOTE (uneven): under ``tail="uneven"`` the workers of different ranks
    hold different counts, so the batches a DataLoader hands out round robin
    fall differently on each rank and rank 0's per-worker counts are not
    every rank's. A state of one consumer per rank (``num_workers=0``, the
    loop stopping every rank together, as ``stop_together`` does) is exact.
    """
    if stream.tail == "uneven" and saved_workers > 1:
        return (
            f"under tail='uneven' a state saved with num_workers={saved_workers} does not "
            "say what the other ranks' workers took; save with num_workers=0 (and "
            "fairshard.stop_together), or resume on the same shape"
        )
    if getattr(stream, "shuffle_buffer", 0):
        return (
            "a shuffle buffer has yielded part of its window in an order of this shape; "
            "resume on the same shape, or save at the end of an epoch"
        )
    if stream.mode == "item":
        if stream.total is not None and random_access(stream.source):
            return None
        return (
            "give a sized, indexable source (a list, an array, a map-style dataset) so that "
            "what is left can be read by position"
        )
    if stream.sizes is not None:
        return None
    return "pass shard_sizes= so that what is left can be counted"


def _ints(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _levels(extra: dict[str, Any]) -> list[Level]:
    rows = extra.get("levels", [])
    ok = isinstance(rows, list) and all(
        isinstance(r, list)
        and len(r) == 3
        and _ints(r[0])
        and _ints(r[1])
        and r[0] >= 1
        and r[1] >= 1
        and isinstance(r[2], list)
        and len(r[2]) == r[1]
        and all(_ints(c) for c in r[2])
        for r in rows
    )
    if not ok:
        raise StateDictError(
            "state_dict['extra']['levels'] must be a list of [world_size, num_workers, "
            f"[consumed per worker]], got {rows!r}"
        )
    return [(int(a), int(b), tuple(int(c) for c in cs)) for a, b, cs in rows]


def _plain_levels(levels: Sequence[Level]) -> list[list[Any]]:
    return [[a, b, list(cs)] for a, b, cs in levels]


def elastic_resume(
    stream: Stream, state_dict: dict[str, Any], here: Consumer
) -> Elastic | tuple[int, list[Position]] | None:
    """The elastic resume a state asks for, or ``None`` when the plain resume applies.

    The plain resume applies to a state of the same shape without earlier
    levels. Another rank's state of a whole rank on the same world size is
    this rank's too (under ``drop``/``pad`` every rank's worker ``w`` holds
    as many items): it comes back as ``(epoch, positions)`` for the plain
    resume, with this rank's shard segments. A state saved on another
    world size or worker count becomes an elastic resume when the stream
    can have one.

    Raises:
        StateDictError: foreign, tampered or mismatched state; or a change
            of shape that this stream cannot resume exactly (the message
            names the fix).
    """
    state = S.unseal(state_dict, stream.kind)
    S.check_config(state[S.K_CONFIG], stream._config())
    if state[S.K_SEED] != stream.seed:
        return None  # the plain path names the seed
    extra = state[S.K_EXTRA]
    if not isinstance(extra, dict):
        return None
    levels = _levels(extra)
    epoch, world, rank = state[S.K_EPOCH], state[S.K_WORLD], state[S.K_RANK]
    body = {k: v for k, v in extra.items() if k != "levels"}
    if "workers" in extra:
        rows, count = body.get("workers"), body.get("num_workers")
        if not (
            isinstance(rows, list)
            and isinstance(count, int)
            and not isinstance(count, bool)
            and len(rows) == count >= 1
            and all(isinstance(r, list) and len(r) == 3 and all(map(_ints, r)) for r in rows)
        ):
            return None  # the plain path names what is wrong
        if not levels and (rank, world) == (here.rank, here.world_size):
            return None
        if not levels and world == here.world_size and stream.tail != "uneven":
            return _rebased(stream, epoch, rows, here, getattr(stream, "shuffle_buffer", 0))
        if (rank, world) != (here.rank, here.world_size):
            _check_fix(stream, f"rank {rank} of {world}", here, count)
        positions = [Position(epoch, c, s, o) for c, s, o in rows]
        saved: Level = (world, count, tuple(p.consumed for p in positions))
        return Elastic(epoch, levels, saved, positions)
    keys = ("worker", "num_workers", "segment", "offset")
    if sorted(body) != sorted(keys) or not all(_ints(body[k]) for k in keys):
        return None
    saved_consumer = Consumer(rank, world, body["worker"], body["num_workers"])
    if not levels and saved_consumer == here:
        return None
    if saved_consumer.num_workers > 1 and (
        (world, saved_consumer.num_workers) != (here.world_size, here.num_workers)
        or rank != here.rank
    ):
        raise StateDictError(
            f"state_dict was saved by {saved_consumer} but this process is {here}: a single "
            "DataLoader worker's state holds that worker's position only, not its rank's; "
            "to resume on another num_replicas, rank or num_workers, save the whole rank "
            "with fairshard.loader_state_dict(loader, batches=k) and load that into the "
            "dataset before building the DataLoader"
        )
    if not levels:
        _check_fix(stream, str(saved_consumer), here, saved_consumer.num_workers)
    at = Position(epoch, state[S.K_STEPS], body["segment"], body["offset"])
    if saved_consumer.num_workers > 1:  # continuing a level inside a worker
        positions = [
            at if w == here.worker else Position(epoch, 0, 0, 0) for w in range(here.num_workers)
        ]
        saved = (world, here.num_workers, tuple(p.consumed for p in positions))
        return Elastic(epoch, levels, saved, positions)
    return Elastic(epoch, levels, (world, 1, (at.consumed,)), [at])


def _rebased(
    stream: Stream, epoch: int, rows: list[list[int]], here: Consumer, buffer: int
) -> tuple[int, list[Position]]:
    positions = []
    for w, (consumed, _, _) in enumerate(rows):
        segment = offset = 0
        if stream.mode == "shard":
            consumer = Consumer(here.rank, here.world_size, w, len(rows))
            start = consumed // buffer * buffer if buffer else consumed  # the window's start
            segment, offset = position_in(stream._segments(epoch, consumer), start)
        positions.append(Position(epoch, consumed, segment, offset))
    return epoch, positions


def _check_fix(stream: Stream, saved: str, here: Consumer, saved_workers: int) -> None:
    fix = _fix(stream, saved_workers)
    if fix is not None:
        raise StateDictError(
            f"state_dict was saved by {saved} but this process is {here}; a stream resumes "
            "only with the same num_replicas, rank and DataLoader num_workers unless it can "
            f"be read by position: {fix}"
        )


def elastic_from_workers(epoch: int, world: int, positions: list[Position]) -> Elastic:
    """A whole rank's state of the same world size read with another ``num_workers``."""
    return Elastic(
        epoch, [], (world, len(positions), tuple(p.consumed for p in positions)), positions
    )


def check_workers_fix(stream: Stream, saved_workers: int, here: Consumer) -> None:
    """Refuse another ``num_workers`` where the stream cannot resume elastically.

    Raises:
        StateDictError: naming the fix.
    """
    fix = _fix(stream, saved_workers)
    if fix is not None:
        raise StateDictError(
            f"state_dict was saved with DataLoader num_workers={saved_workers} but this "
            f"DataLoader has num_workers={here.num_workers}; a stream resumes only with the "
            f"same num_workers unless it can be read by position: {fix}"
        )


# ------------------------------------------------------------------ reading
def read_view(stream: Stream, elastic: Elastic, progress: ConsumerProgress) -> Iterator[Any]:
    """This consumer's part of what is left of an elastically resumed epoch."""
    c = progress.consumer
    view = View(stream, elastic.epoch, elastic.history(c.world_size, c.num_workers), c.world_size)
    if stream.mode == "shard":
        segments = view.segments(c)
        progress.segment, progress.offset = position_in(segments, progress.consumed)
        return read_shards(segments, stream._open, stream.sizes, progress)
    return itertools.chain.from_iterable(_item_chunks(stream.source, view, progress))


def _item_chunks(source: Any, view: View, progress: ConsumerProgress) -> Iterator[Iterator[Any]]:
    getitem: Callable[[int], Any] = source.__getitem__
    for chunk in view.item_positions(progress.consumer, progress.consumed):
        positions = iter(chunk.tolist())
        progress.track(positions, len(chunk))
        yield map(getitem, positions)


def view_rank_count(stream: Stream, elastic: Elastic) -> int:
    """Items this rank reads of what is left (the next pass on the current world size)."""
    view = View(stream, elastic.epoch, [*elastic.levels, elastic.saved], stream.num_replicas)
    return view.rank_count(stream.rank)


def complete(stream: Stream, elastic: Elastic) -> bool:
    """Whether the saved state read its epoch to the end."""
    return len(View(stream, elastic.epoch, [*elastic.levels, elastic.saved], 1).left) == 0


def seal(
    stream: Stream, elastic: Elastic, progress: ConsumerProgress | None, here: Consumer
) -> dict[str, Any]:
    """The state of an elastically resumed epoch: one consumer's, or the loaded one's."""
    config = stream._config()
    if progress is None:  # no pass yet: what was loaded
        positions = elastic.positions or [
            Position(elastic.epoch, c, 0, 0) for c in elastic.saved[2]
        ]
        return _seal_rank(
            stream, config, elastic.epoch, elastic.saved[0], elastic.levels, positions
        )
    c = progress.consumer
    levels = elastic.history(c.world_size, c.num_workers)
    return S.seal(
        {
            S.K_KIND: stream.kind,
            S.K_CONFIG: config,
            S.K_SEED: stream.seed,
            S.K_EPOCH: elastic.epoch,
            S.K_START: 0,
            S.K_STEPS: progress.consumed,
            S.K_WORLD: c.world_size,
            S.K_RANK: c.rank,
            S.K_EXTRA: {
                "worker": c.worker,
                "num_workers": c.num_workers,
                "segment": progress.segment,
                "offset": progress.offset,
                "levels": _plain_levels(levels),
            },
        }
    )


def _seal_rank(
    stream: Stream,
    config: dict[str, Any],
    epoch: int,
    world: int,
    levels: Sequence[Level],
    positions: Sequence[Position],
) -> dict[str, Any]:
    return S.seal(
        {
            S.K_KIND: stream.kind,
            S.K_CONFIG: config,
            S.K_SEED: stream.seed,
            S.K_EPOCH: epoch,
            S.K_START: 0,
            S.K_STEPS: sum(p.consumed for p in positions),
            S.K_WORLD: world,
            S.K_RANK: stream.rank if world == stream.num_replicas else 0,
            S.K_EXTRA: {
                "num_workers": len(positions),
                "workers": [[p.consumed, p.segment, p.offset] for p in positions],
                "levels": _plain_levels(levels),
            },
        }
    )


def loader_state(
    stream: Stream,
    elastic: Elastic,
    batches: int,
    batch_size: int,
    drop_last: bool,
    num_workers: int,
) -> dict[str, Any]:
    """The rank's state after the loop took ``batches`` batches of an elastic pass.

    Raises:
        ConfigError: more batches than the pass holds.
    """
    count = max(1, num_workers)
    levels = elastic.history(stream.num_replicas, count)
    view = View(stream, elastic.epoch, levels, stream.num_replicas)
    consumers = [Consumer(stream.rank, stream.num_replicas, w, count) for w in range(count)]
    start = [elastic.start(c).consumed for c in consumers]
    left = [view.count(c) - b for c, b in zip(consumers, start, strict=True)]
    whole = [n // batch_size if drop_last else -(-n // batch_size) for n in left]
    if batches > sum(whole):
        raise ConfigError(
            f"batches={batches} but the current pass holds {sum(whole)} batches of "
            f"batch_size={batch_size} on this rank; count the batches the loop took since "
            "the `for` over this pass started"
        )
    given = batches_per_worker(whole, batches)
    positions = []
    for c, b, g, n in zip(consumers, start, given, left, strict=True):
        consumed = b + min(g * batch_size, n)
        segment, offset = 0, 0
        if stream.mode == "shard":
            segment, offset = position_in(view.segments(c), consumed)
        positions.append(Position(elastic.epoch, consumed, segment, offset))
    config = stream._config()
    if num_workers == 0:
        progress = ConsumerProgress(elastic.epoch, consumers[0], positions[0].consumed, 0, 0)
        progress.segment, progress.offset = positions[0].segment, positions[0].offset
        return seal(stream, elastic, progress, consumers[0])
    return _seal_rank(stream, config, elastic.epoch, stream.num_replicas, levels, positions)
