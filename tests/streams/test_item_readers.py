"""The item-mode readers against the layout, at every resume point, with small blocks.

The readers are C-iterator pipelines whose progress is read from length
hints, and streams of unknown length are read in blocks of whole strides;
both must give exactly the consumer's positions of ``item_positions`` (the
same whether or not the total is known), resume at any count, and report
``consumed`` exactly while they run. Blocks are shrunk so that a short
stream spans many of them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import ConfigError
from fairshard._core.partition import TAILS, Tail
from fairshard._streams import read
from fairshard._streams.layout import Consumer, item_positions
from fairshard._streams.read import read_indexed, read_streamed
from fairshard._streams.state import ConsumerProgress


class Stream:
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self) -> Iterator[int]:
        return (i for i in range(self.n))


def expected(n: int, consumer: Consumer, policy: Tail) -> list[int]:
    return [p % n for p in item_positions(n, consumer, policy)]


def run(kind: str, n: int, consumer: Consumer, policy: Tail, start: int) -> list[int]:
    """Items from ``start`` on, checking ``consumed`` after every item."""
    progress = ConsumerProgress(0, consumer, start, 0, 0)
    if kind == "indexed":
        items = read_indexed(list(range(n)), n, policy, progress)
    else:
        items = read_streamed(Stream(n), n if kind == "total" else None, policy, progress)
    out = []
    for item in items:
        out.append(item)
        assert progress.consumed == start + len(out)
    return out


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 80),
    world=st.integers(1, 6),
    workers=st.integers(1, 3),
    policy=st.sampled_from(TAILS),
    kind=st.sampled_from(["indexed", "total", "unknown"]),
    block=st.integers(1, 9),
)
def test_every_consumer_reads_its_positions_from_every_resume_point(
    n: int, world: int, workers: int, policy: Tail, kind: str, block: int
) -> None:
    if policy == "drop" and n < world:
        return  # refused at construction
    old = read._BLOCK
    read._BLOCK = block
    try:
        for rank in range(world):
            for worker in range(workers):
                consumer = Consumer(rank, world, worker, workers)
                want = expected(n, consumer, policy)
                for start in range(len(want) + 1):
                    assert run(kind, n, consumer, policy, start) == want[start:]
    finally:
        read._BLOCK = old


@pytest.mark.parametrize(("actual", "total"), [(9, 10), (11, 10), (3, 10), (40, 10)])
@pytest.mark.parametrize("policy", TAILS)
def test_a_stream_that_breaks_its_total_is_an_error(actual: int, total: int, policy: Tail) -> None:
    progress = ConsumerProgress(0, Consumer(1, 2), 0, 0, 0)
    with pytest.raises(ConfigError, match=f"yielded {actual} items but total={total}"):
        list(read_streamed(Stream(actual), total, policy, progress))
