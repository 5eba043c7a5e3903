"""The re-deal of an epoch's unread positions: any leaves and joins, every position once."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import ConfigError
from fairshard._core.partition import Partition
from fairshard._core.redeal import Deal, first_deal, redeal, unread

GROUP_IDS = st.integers(min_value=0, max_value=6)
quorums = st.sets(GROUP_IDS, min_size=1, max_size=5)


@st.composite
def histories(draw: st.DrawFn) -> tuple[int, int, str, list[tuple[set[int], list[float]]]]:
    """``(total, slots_per_group, tail, [(groups, per-group commit fractions), ...])``."""
    total = draw(st.integers(min_value=0, max_value=400))
    spg = draw(st.integers(min_value=1, max_value=4))
    tail = draw(st.sampled_from(["pad", "drop"]))
    uniform = draw(st.booleans())
    events = []
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        groups = draw(quorums)
        if uniform:
            frac = draw(st.floats(min_value=0, max_value=1))
            fracs = [frac] * len(groups)
        else:
            fracs = draw(
                st.lists(
                    st.floats(min_value=0, max_value=1), min_size=len(groups), max_size=len(groups)
                )
            )
        events.append((groups, fracs))
    return total, spg, tail, events


def committed_reads(deal: Deal, committed: dict[int, int]) -> tuple[list[int], int]:
    """Positions the groups read in their committed steps, and how many were padding slots."""
    reads: list[int] = []
    padded = 0
    for group, count in committed.items():
        reads += deal.positions(group, 0, count).ravel().tolist()
        for step in range(count):
            padded += int((deal.offsets(group, step) >= len(deal.pool)).sum())
    return reads, padded


@settings(max_examples=150, deadline=None)
@given(first=quorums, history=histories())
def test_any_sequence_of_leaves_and_joins_reads_every_position_once(
    first: set[int], history: tuple[int, int, str, list[tuple[set[int], list[float]]]]
) -> None:
    total, spg, tail, events = history
    deal = first_deal(total, first, spg, tail)  # type: ignore[arg-type]
    reads: Counter[int] = Counter()
    padded = 0
    for groups, fracs in [*events, (set(), [])]:
        # each group of the running quorum committed some of its steps (a failed or
        # leaving group fewer than the others); the final quorum runs to the end
        if groups:
            counts = [int(f * deal.num_steps) for f in fracs]
            committed = dict(zip(deal.groups, counts, strict=False))
        else:
            committed = dict.fromkeys(deal.groups, deal.num_steps)
        got, pad = committed_reads(deal, committed)
        reads.update(got)
        padded += pad
        left = unread(deal, committed)
        assert set(left.tolist()).isdisjoint(got)
        assert sorted(set(left.tolist()) | set(got)) == sorted(set(deal.pool.tolist()))
        if groups:
            deal = redeal(deal, committed, groups)
            assert deal.groups == tuple(sorted(groups))
            assert np.array_equal(deal.pool, left)
    missing = [p for p in range(total) if reads[p] == 0]
    duplicates = sum(reads.values()) - (total - len(missing))
    assert duplicates <= padded  # repeats are declared padding only
    if tail == "pad":
        assert missing == []  # 0 lost
    else:
        assert len(missing) == deal.num_dropped() <= deal.num_slots - 1
    assert set(reads) <= set(range(total))


@given(
    total=st.integers(min_value=0, max_value=500),
    groups=quorums,
    spg=st.integers(min_value=1, max_value=5),
    tail=st.sampled_from(["pad", "drop"]),
)
def test_every_group_of_a_quorum_takes_the_same_steps(
    total: int, groups: set[int], spg: int, tail: str
) -> None:
    deal = first_deal(total, groups, spg, tail)  # type: ignore[arg-type]
    shapes = {deal.positions(g, 0, deal.num_steps).shape for g in groups}
    assert shapes == {(deal.num_steps, spg)}


@given(
    total=st.integers(min_value=0, max_value=500),
    groups=st.integers(min_value=1, max_value=6),
    spg=st.integers(min_value=1, max_value=4),
    tail=st.sampled_from(["pad", "drop"]),
)
def test_one_quorum_deals_as_the_strided_partition(
    total: int, groups: int, spg: int, tail: str
) -> None:
    """One quorum: (group, slot) reads what rank ``g * spg + slot`` of a Partition reads."""
    deal = first_deal(total, range(groups), spg, tail)  # type: ignore[arg-type]
    part = Partition(total, groups * spg, "strided", tail)  # type: ignore[arg-type]
    assert deal.num_steps == part.max_items
    for g in range(groups):
        got = deal.positions(g, 0, deal.num_steps)
        for slot in range(spg):
            rank = g * spg + slot
            assert got[:, slot].tolist() == part.positions(rank, 0, part.num_items(rank)).tolist()


def test_a_deal_is_a_pure_function_of_the_history() -> None:
    def run() -> list[list[int]]:
        deal = first_deal(101, [3, 1], 2)
        deal = redeal(deal, {1: 4, 3: 2}, [1, 5, 3])
        deal = redeal(deal, dict.fromkeys(deal.groups, 3), {5, 1})
        return deal.positions(5, 0, deal.num_steps).tolist()

    assert run() == run()


def test_a_uniform_commit_re_deals_the_tail_of_the_pool_without_a_copy() -> None:
    deal = first_deal(50, [0, 1], 3)
    nxt = redeal(deal, {0: 4, 1: 4}, [0, 1, 2])
    assert nxt.pool.tolist() == list(range(24, 50))
    assert nxt.pool.base is deal.pool


def test_a_group_that_failed_before_committing_has_its_steps_dealt_again() -> None:
    deal = first_deal(12, [0, 1], 1)  # step s: group 0 reads 2s, group 1 reads 2s + 1
    nxt = redeal(deal, {0: 3, 1: 2}, [0])  # group 1 died before committing its step 2
    assert nxt.pool.tolist() == [5, 6, 7, 8, 9, 10, 11]


def test_errors_name_the_value_and_the_fix() -> None:
    deal = first_deal(10, [0, 1], 1)
    with pytest.raises(ConfigError, match=r"group=7 is not in this quorum's groups=\(0, 1\)"):
        deal.positions(7, 0, 1)
    with pytest.raises(ConfigError, match="group=7"):
        unread(deal, {7: 1})
    with pytest.raises(ConfigError, match="at least one replica group"):
        redeal(deal, {0: 1, 1: 1}, [])
    with pytest.raises(ConfigError, match="distinct"):
        first_deal(10, [1, 1], 1)
    with pytest.raises(ConfigError, match=r"committed\[0\]"):
        unread(deal, {0: 99})
    with pytest.raises(ConfigError, match="tail"):
        first_deal(10, [0], 1, "uneven")  # type: ignore[arg-type]
