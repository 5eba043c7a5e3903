"""The state protocol: JSON round trips, O(1) resume, and refusal of bad states."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from fairshard import DegenerateConfigWarning, DistributedSampler, StateDictError
from fairshard._core.state import seal


def midway(n: int = 1000, world: int = 4, rank: int = 0, k: int = 100, **kw: object) -> dict:
    s = DistributedSampler(n, world, rank, **kw)  # type: ignore[arg-type]
    it = iter(s)
    for _ in range(k):
        next(it)
    return s.state_dict()


def test_state_is_plain_json() -> None:
    state = midway()
    assert json.loads(json.dumps(state)) == state
    assert state["steps"] == 100 and state["kind"] == "DistributedSampler"


def test_state_before_and_after_a_pass() -> None:
    s = DistributedSampler(10, 2, 0)
    assert s.state_dict()["steps"] == 0
    list(s)
    done = s.state_dict()
    assert done["steps"] == 5
    fresh = DistributedSampler(10, 2, 0, auto_epoch=True)
    fresh.load_state_dict(done)
    assert len(list(fresh)) == 5 and fresh.epoch == 1  # the completed epoch is not repeated


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("n", 999, "saved with n=1000 but this sampler has n=999; the dataset changed size"),
        ("shuffle", False, "saved with shuffle=True but this sampler has shuffle=False"),
        ("order", "torch", "saved with order='lazy'"),
        ("seed", 5, "saved with seed=0 but this sampler has seed=5"),
        ("tail", "drop", "saved with tail='pad'"),
        ("layout", "blocked", "saved with layout='strided'"),
    ],
)
def test_state_from_other_config(field: str, value: object, match: str) -> None:
    kwargs = {
        "n": 1000,
        "shuffle": True,
        "order": "lazy",
        "seed": 0,
        "tail": "pad",
        "layout": "strided",
    }
    state = midway()
    kwargs[field] = value
    n = kwargs.pop("n")
    target = DistributedSampler(n, 4, 0, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(StateDictError, match=match):
        target.load_state_dict(state)


def test_tampered_and_foreign_states() -> None:
    s = DistributedSampler(1000, 4, 0)
    state = midway()
    with pytest.raises(StateDictError, match="checksum does not match"):
        s.load_state_dict({**state, "steps": 7})
    with pytest.raises(StateDictError, match="not a fairshard sampler state"):
        s.load_state_dict({"epoch": 0, "yielded": 3})
    with pytest.raises(StateDictError, match="has no 'steps' entry"):
        s.load_state_dict({k: v for k, v in state.items() if k != "steps"})
    with pytest.raises(StateDictError, match="unknown entries"):
        s.load_state_dict({**state, "bonus": 1})
    with pytest.raises(StateDictError, match="has type str, expected int"):
        s.load_state_dict({**state, "epoch": "3"})
    with pytest.raises(StateDictError, match="version=2.*newer fairshard"):
        s.load_state_dict(
            seal(
                {k: v for k, v in state.items() if k not in ("format", "version", "checksum")}
                | {"version": 2}
            )
        )
    other = {k: v for k, v in state.items() if k not in ("format", "version", "checksum")}
    with pytest.raises(
        StateDictError, match="saved by a WeightedSampler, not a DistributedSampler"
    ):
        s.load_state_dict(seal({**other, "kind": "WeightedSampler"}))
    with pytest.raises(StateDictError, match="exceeds the 250 items"):
        s.load_state_dict(seal({**other, "steps": 9999}))
    with pytest.raises(StateDictError, match="'epoch'.*must be >= 0"):
        s.load_state_dict(seal({**other, "epoch": -1}))


def test_resume_is_constant_time() -> None:
    s = DistributedSampler(10**9, 8, 0)
    it = iter(s)
    next(it)
    state = s.state_dict()
    state = seal(
        {
            **{k: v for k, v in state.items() if k not in ("format", "version", "checksum")},
            "steps": 10**9 // 16,
        }
    )
    fresh = DistributedSampler(10**9, 8, 0)
    fresh.load_state_dict(state)
    plan = fresh.plan()
    evaluated: list[int] = []
    take = plan.take

    def counting_take(positions: np.ndarray) -> np.ndarray:
        evaluated.append(int(positions.size))
        return take(positions)

    plan.take = counting_take  # type: ignore[method-assign]
    first = next(iter(fresh))
    # O(1): only the first small chunk after the resume point is computed, never
    # the 62.5 million skipped positions (the benchmark reports the time: ~0.3 ms).
    assert sum(evaluated) <= 256
    ref = DistributedSampler(10**9, 8, 0)
    positions = ref.partition().positions(0, 10**9 // 16, 10**9 // 16 + 1)
    assert first == int(ref.plan().take(positions)[0])


def test_blocked_layout_resumes_only_on_the_same_world_size() -> None:
    state = midway(layout="blocked", tail="uneven")
    with pytest.raises(StateDictError, match="use layout='strided' for elastic resume"):
        DistributedSampler(1000, 3, 0, layout="blocked", tail="uneven").load_state_dict(state)


def test_state_at_the_end_of_an_epoch_does_not_replay_it() -> None:
    """A checkpoint taken after the last step resumes at the next epoch, nothing of it again."""
    done = DistributedSampler(8, 2, 0, seed=1)
    list(done)
    state = done.state_dict()
    for world, rank in ((2, 0), (3, 2), (1, 0)):  # same world size and elastic
        reference = DistributedSampler(8, world, rank, seed=1)
        reference.set_epoch(1)
        nxt = list(reference)
        resumed = DistributedSampler(8, world, rank, seed=1)
        resumed.load_state_dict(state)
        assert resumed.epoch == 1 and len(resumed) == len(nxt) > 0  # the epoch boundary
        assert resumed.remaining == len(nxt)
        assert list(resumed) == nxt  # no set_epoch needed: epoch 1
        again = DistributedSampler(8, world, rank, seed=1)
        again.load_state_dict(state)
        again.set_epoch(0)  # a resume loop re-announcing the finished epoch
        assert again.remaining == 0
        assert len(again) == 4  # the 4 steps the state took, none left
        with pytest.warns(DegenerateConfigWarning, match="yields nothing"):  # and why
            assert list(again) == []
        again.set_epoch(1)
        assert list(again) == nxt


def test_elastic_resume_after_a_dropped_tail_completes_the_epoch() -> None:
    """Complete on 5 ranks with tail='drop' (40 items: 8 steps each) -> nothing left on 4."""
    first = DistributedSampler(40, 5, 0, drop_last=True)
    list(first)
    later = DistributedSampler(40, 4, 1, drop_last=True)
    later.load_state_dict(first.state_dict())
    nxt = DistributedSampler(40, 4, 1, drop_last=True)
    nxt.set_epoch(1)
    assert later.epoch == 1 and list(later) == list(nxt)  # the next epoch
    later.load_state_dict(first.state_dict())
    later.set_epoch(0)
    with pytest.warns(DegenerateConfigWarning, match="yields nothing"):
        assert list(later) == []


def test_a_complete_epoch_loaded_after_set_epoch_keeps_the_later_epoch() -> None:
    """StatefulDataLoader loads lazily, after the user's set_epoch(e + 1): keep e + 1."""
    done = DistributedSampler(20, 2, 0)
    list(done)
    state = done.state_dict()
    later = DistributedSampler(20, 2, 0)
    later.set_epoch(1)
    later.load_state_dict(state)
    ref = DistributedSampler(20, 2, 0)
    ref.set_epoch(1)
    assert later.epoch == 1
    assert list(later) == list(ref)
    # a mid-epoch state still wins: it is the epoch to finish
    half = DistributedSampler(20, 2, 0)
    it = iter(half)
    head = [next(it) for _ in range(4)]
    moved = DistributedSampler(20, 2, 0)
    moved.set_epoch(1)
    moved.load_state_dict(half.state_dict())
    assert moved.epoch == 0
    assert head + list(moved) == list(DistributedSampler(20, 2, 0))


@pytest.mark.parametrize("family", ["weighted-no-replacement", "torch-order"])
def test_loading_an_end_of_epoch_state_builds_no_plan_when_the_length_is_known(
    family: str,
) -> None:
    """Materialized plans: loading a finished epoch must not build that epoch's plan again."""
    from fairshard import WeightedSampler

    def make() -> Any:
        if family == "torch-order":
            return DistributedSampler(20, 2, 0, order="torch")
        return WeightedSampler(np.arange(1.0, 41.0), 20, replacement=False, num_replicas=2, rank=0)

    done = make()
    list(done)
    built: list[int] = []
    fresh = make()
    build = fresh._build_plan

    def counting(epoch: int) -> object:
        built.append(epoch)
        return build(epoch)

    fresh._build_plan = counting  # type: ignore[method-assign]
    fresh.set_epoch(1)
    fresh.load_state_dict(done.state_dict())
    assert len(list(fresh)) == 10
    assert built == [1]  # epoch 1 only: the finished epoch 0 is not planned again


def test_an_uneven_rank_that_took_its_whole_share_is_complete() -> None:
    """tail='uneven': rank 1 takes 5 of 11 items, rank 0 takes 6; each is done after its own."""
    short = DistributedSampler(11, 2, 1, tail="uneven", layout="blocked")
    list(short)
    state = short.state_dict()
    again = DistributedSampler(11, 2, 1, tail="uneven", layout="blocked")
    again.load_state_dict(state)
    assert again.epoch == 1 and len(again) == 5 == again.remaining  # the next epoch
    again.set_epoch(0)
    assert again.remaining == 0 and len(again) == 5  # its 5 steps taken, none left
    with pytest.warns(DegenerateConfigWarning, match="yields nothing"):
        assert list(again) == []
    later = DistributedSampler(11, 2, 1, tail="uneven", layout="blocked")
    later.set_epoch(1)
    later.load_state_dict(state)  # a finished epoch: the later set_epoch stands
    assert later.epoch == 1
    assert len(list(later)) == 5
    strided = [DistributedSampler(11, 2, r, tail="uneven") for r in range(2)]
    for s in strided:
        list(s)
    behind = DistributedSampler(11, 2, 0, tail="uneven")
    behind.load_state_dict(strided[1].state_dict())  # rank 1's 5 steps: rank 0 has 1 left
    assert list(behind) == [int(strided[0].plan().take(np.array([10]))[0])]
