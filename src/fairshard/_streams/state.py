"""Resume state of ``ShardedIterable``: how far a consumer got, sealed and unsealed.

Kept apart from the class because the state format is a contract of its
own: ``torchdata``'s ``StatefulDataLoader`` calls ``state_dict()`` on the
dataset copy inside each worker and hands each worker its own state back on
resume. The state is the library's sealed sampler state; ``steps`` counts
the items this consumer yielded in the epoch, and ``extra`` names the worker
and, in shard mode, the segment and offset reached, so resuming skips whole
segments without opening them.

A whole rank's state (one position per DataLoader worker, for a plain
``DataLoader``) is described in ``_streams.resume``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._errors import StateDictError
from .layout import Consumer

__all__ = [
    "Position",
    "ConsumerProgress",
    "seal_state",
    "state_config",
    "unseal_state",
]


class Position(NamedTuple):
    """Where a saved pass stands: its epoch, items consumed, shard segment and offset."""

    epoch: int
    consumed: int
    segment: int
    offset: int


class ConsumerProgress:
    """How far one consumer got in one epoch.

    NOTE (counting at C speed): an item reader may hand over a live iterator
    (``track``) instead of counting each item in Python: ``consumed`` is then
    read from that iterator's ``__length_hint__`` when asked (a state is
    taken), as ``PlannedSampler``'s cursor does. Assigning ``consumed``
    settles the count and stops tracking.
    """

    __slots__ = (
        "_base",
        "_live",
        "_live_len",
        "_start",
        "_step",
        "consumer",
        "epoch",
        "first",
        "offset",
        "segment",
    )

    def __init__(self, epoch: int, consumer: Consumer, consumed: int, segment: int, offset: int):
        self.epoch, self.consumer, self._base = epoch, consumer, consumed
        self.first = consumed  # where the pass started (a resume point)
        self.segment, self.offset = segment, offset
        self._live: Iterator[Any] | None = None
        self._live_len, self._start, self._step = 0, 0, 1

    @property
    def consumed(self) -> int:
        """Items this consumer has taken in the epoch."""
        if self._live is None:
            return self._base
        pulled = self._live_len - operator.length_hint(self._live)
        return self._base + max(0, -(-(pulled - self._start) // self._step))

    @consumed.setter
    def consumed(self, value: int) -> None:
        self._base, self._live = value, None

    def track(self, live: Iterator[Any], length: int, start: int = 0, step: int = 1) -> None:
        """Count what ``live`` (``length`` items) hands out from now on as consumed.

        With ``start`` and ``step``, only the items ``start, start + step,
        ...`` of ``live`` are this consumer's (an ``islice`` pulls the ones
        in between from it): ``consumed`` counts those it has reached.
        """
        base = self.consumed
        self._base, self._live, self._live_len = base, live, length
        self._start, self._step = start, step


def state_config(
    mode: str,
    policy: str,
    total: int | None,
    num_shards: int | None,
    sizes: NDArray[np.int64] | None,
    shuffle_shards: bool,
) -> dict[str, Any]:
    """The configuration a saved state must match (plain JSON values; sizes as a digest)."""
    return {
        "mode": mode,
        "policy": policy,
        "total": total,
        "num_shards": num_shards,
        "shard_sizes": None if sizes is None else S.digest(sizes),
        "shuffle_shards": shuffle_shards,
    }


def seal_state(
    kind: str,
    config: dict[str, Any],
    seed: int,
    num_replicas: int,
    rank: int,
    consumer: Consumer,
    at: Position,
) -> dict[str, Any]:
    """The sealed state of ``consumer`` standing at ``at``."""
    return S.seal(
        {
            S.K_KIND: kind,
            S.K_CONFIG: config,
            S.K_SEED: seed,
            S.K_EPOCH: at.epoch,
            S.K_START: 0,
            S.K_STEPS: at.consumed,
            S.K_WORLD: num_replicas,
            S.K_RANK: rank,
            S.K_EXTRA: {
                "worker": consumer.worker,
                "num_workers": consumer.num_workers,
                "segment": at.segment,
                "offset": at.offset,
            },
        }
    )


def seal_workers(
    kind: str,
    config: dict[str, Any],
    seed: int,
    num_replicas: int,
    rank: int,
    epoch: int,
    workers: list[Position],
) -> dict[str, Any]:
    """The sealed state of a whole rank: one position per DataLoader worker."""
    return S.seal(
        {
            S.K_KIND: kind,
            S.K_CONFIG: config,
            S.K_SEED: seed,
            S.K_EPOCH: epoch,
            S.K_START: 0,
            S.K_STEPS: sum(p.consumed for p in workers),
            S.K_WORLD: num_replicas,
            S.K_RANK: rank,
            S.K_EXTRA: {
                "num_workers": len(workers),
                "workers": [[p.consumed, p.segment, p.offset] for p in workers],
            },
        }
    )


def unseal_state(
    state_dict: dict[str, Any], kind: str, config: dict[str, Any], seed: int, here: Consumer
) -> Position | tuple[int, list[Position]]:
    """Check a saved state against this dataset and consumer; return where it stands.

    Returns:
        The consumer's position, or, for a whole rank's state, ``(epoch,
        positions)`` with one position per DataLoader worker.

    Raises:
        StateDictError: foreign or tampered state, another config or seed,
            or another consumer (rank, world size, worker or worker count).
    """
    state = S.unseal(state_dict, kind)
    S.check_config(state[S.K_CONFIG], config)
    if state[S.K_SEED] != seed:
        raise StateDictError(
            f"state_dict was saved with seed={state[S.K_SEED]} but this dataset has "
            f"seed={seed}; build it with seed={state[S.K_SEED]} to resume"
        )
    extra = state[S.K_EXTRA]
    if "workers" in extra:
        return _unseal_workers(state, here)
    keys = ("worker", "num_workers", "segment", "offset")
    if sorted(extra) != sorted(keys) or not all(
        isinstance(extra[k], int) and extra[k] >= 0 for k in keys
    ):
        raise StateDictError(f"state_dict['extra'] must hold the ints {keys}, got {extra!r}")
    saved = Consumer(state[S.K_RANK], state[S.K_WORLD], extra["worker"], extra["num_workers"])
    if saved != here:
        raise StateDictError(
            f"state_dict was saved by {saved} but this process is {here}; a stream resumes "
            "only with the same num_replicas, rank and DataLoader num_workers"
        )
    return Position(state[S.K_EPOCH], state[S.K_STEPS], extra["segment"], extra["offset"])


def _unseal_workers(state: dict[str, Any], here: Consumer) -> tuple[int, list[Position]]:
    extra = state[S.K_EXTRA]
    rows = extra.get("workers")
    count = extra.get("num_workers")
    valid = (
        sorted(extra) == ["num_workers", "workers"]
        and isinstance(count, int)
        and isinstance(rows, list)
        and len(rows) == count >= 1
        and all(
            isinstance(r, list)
            and len(r) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in r)
            for r in rows
        )
    )
    if not valid:
        raise StateDictError(
            "state_dict['extra'] must hold num_workers and one [consumed, segment, offset] "
            f"of ints per worker, got {extra!r}"
        )
    if (state[S.K_RANK], state[S.K_WORLD]) != (here.rank, here.world_size):
        raise StateDictError(
            f"state_dict was saved by rank {state[S.K_RANK]} of {state[S.K_WORLD]} but this "
            f"process is rank {here.rank} of {here.world_size}; a stream resumes only with "
            "the same num_replicas and rank"
        )
    epoch = state[S.K_EPOCH]
    return epoch, [Position(epoch, c, s, o) for c, s, o in rows]
