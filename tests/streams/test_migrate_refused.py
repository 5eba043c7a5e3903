"""A stream refuses ``migrate=`` (resume on changed data) and names the exact routes.

The samplers re-plan the rest of an epoch on changed data from plan
positions; a ``ShardedIterable`` deals items or shards to consumers as they
are read, so what a rank consumed cannot be mapped onto new data exactly.
``load_state_dict(state, migrate=...)`` is refused with a ``ConfigError``
(not a ``TypeError`` of an unknown keyword) in both modes, mid-epoch and at
an epoch's end; the route the message names -- finish the epoch on the old
data, then a stream on the new data from the next epoch -- reads every new
item exactly once.
"""

from __future__ import annotations

from collections import Counter

import pytest

from fairshard import ConfigError, DataChange, ShardedIterable, StateDictError

SHARDS = [list(range(i * 10, i * 10 + 10)) for i in range(6)]
GROWN = [*SHARDS, list(range(60, 70)), list(range(70, 80))]  # two shards: one each


def _stream(data: list[list[int]], mode: str, rank: int = 0, world: int = 2) -> ShardedIterable:
    if mode == "shard":
        return ShardedIterable(
            data, mode="shard", shard_sizes=[len(s) for s in data], num_replicas=world, rank=rank
        )
    flat = [i for shard in data for i in shard]
    return ShardedIterable(flat, num_replicas=world, rank=rank)


@pytest.mark.parametrize("mode", ["item", "shard"])
@pytest.mark.parametrize("taken", [7, 30])  # mid-epoch, and the whole share (30 of 60 on 2)
def test_migrate_is_refused_naming_the_exact_routes(mode: str, taken: int) -> None:
    old = _stream(SHARDS, mode)
    it = iter(old)
    for _ in range(taken):
        next(it)
    state = old.state_dict()
    grown = _stream(GROWN, mode)
    with pytest.raises(ConfigError, match=r"cannot resume on changed data \(migrate=") as info:
        grown.load_state_dict(state, migrate=DataChange(60, appended=20))
    message = str(info.value)
    assert "Finish epoch 0 on the data it was saved with" in message
    assert "set_epoch with the next epoch" in message and "migrate=fairshard.DataChange" in message
    with pytest.raises(StateDictError, match="saved with"):  # no change declared
        grown.load_state_dict(state)


@pytest.mark.parametrize("mode", ["item", "shard"])
def test_the_named_route_reads_every_new_item_once(mode: str) -> None:
    """Finish epoch 0 on the saved data, then the grown data from epoch 1."""
    ranks = [_stream(GROWN, mode, rank=r) for r in range(2)]
    seen: Counter[int] = Counter()
    for stream in ranks:
        stream.set_epoch(1)
        seen.update(stream)
    assert sorted(seen) == list(range(80)) and set(seen.values()) == {1}
