"""Resume after the data changed: ``load_state_dict(state, migrate=DataChange(...))``.

What any rank consumed of the saved epoch stays consumed, removed items are
never yielded (not even as padding), appended items join the rest of the
epoch, every rank of the resumed job takes equal steps (on any world size),
a state taken inside the migrated epoch resumes exactly, the next epoch is
the new data's plain plan, and without ``migrate`` the refusal stays.
"""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import (
    ConfigError,
    ConfigTypeError,
    DataChange,
    DistributedSampler,
    Partition,
    StateDictError,
)

from ..contract import quiet as _quiet


def _run(n_old: int, world: int, steps: int, **kw: object) -> tuple[dict, list[int]]:
    """Every rank takes ``steps`` items; rank 0's state and what all ranks took."""
    samplers = [
        _quiet(DistributedSampler, n_old, num_replicas=world, rank=r, **kw) for r in range(world)
    ]
    taken: list[int] = []
    for s in samplers:
        it = iter(s)
        taken += [int(next(it)) for _ in range(min(steps, len(s)))]
    return samplers[0].state_dict(), taken


changes = st.integers(2, 120).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.sets(st.integers(0, n - 1), max_size=n - 1).map(sorted),
        st.integers(0, 40),
    )
)


@settings(max_examples=60, deadline=None)
@given(
    change=changes,
    world=st.integers(1, 4),
    new_world=st.integers(1, 5),
    frac=st.floats(0, 1),
    order=st.sampled_from(["lazy", "torch", "plain"]),
    tail=st.sampled_from(["pad", "drop"]),
)
def test_consumed_stay_consumed_removed_never_new_join_equal_steps(
    change: tuple[int, list[int], int],
    world: int,
    new_world: int,
    frac: float,
    order: str,
    tail: str,
) -> None:
    n_old, removed, appended = change
    kw: dict[str, object] = {"seed": 11, "tail": tail}
    kw.update({"shuffle": False} if order == "plain" else {"order": order})
    if tail == "drop" and n_old < world:
        return
    steps = int(frac * (n_old // world))
    state, taken = _run(n_old, world, steps, **kw)
    decl = DataChange(n_old, removed=removed, appended=appended)
    n_new = decl.new_size
    if tail == "drop" and n_new < new_world:
        return
    resumed = [
        _quiet(DistributedSampler, n_new, num_replicas=new_world, rank=r, **kw)
        for r in range(new_world)
    ]
    for s in resumed:
        s.load_state_dict(state, migrate=decl)
    rest_steps = Partition(len(resumed[0].plan(state["epoch"])), new_world, tail=tail).max_items
    if rest_steps == 0:  # nothing left (or all dropped): the epoch is complete,
        assert all(s.epoch == state["epoch"] + 1 for s in resumed)  # so the next one starts
        return
    shares = [_quiet(list, s) for s in resumed]
    assert len({len(x) for x in shares}) == 1  # equal steps on every rank
    assert [len(x) for x in shares] == [len(s) for s in resumed] or all(
        len(s) == 0 for s in resumed
    )
    if tail == "drop" and steps == n_old // world:  # a finished epoch: its dropped tail too
        taken = list(range(n_old))
    consumed = {int(i) for i in decl.new_index(taken).tolist() if i >= 0}
    rest = Counter(int(i) for x in shares for i in x)
    assert not consumed & set(rest)  # what was consumed stays consumed this epoch
    gone = set(decl.new_index(removed).tolist())
    assert gone <= {-1}
    plan = resumed[0].plan()
    left = Counter(plan.take(np.arange(len(plan))).tolist())
    assert all(c == 1 for c in left.values())  # the rest holds each item once
    assert set(left) == set(range(n_new)) - consumed  # kept ones and every appended one
    assert set(rest) <= set(left)  # padding recycles items of the rest only
    if tail == "pad":
        assert set(rest) == set(left)


def test_refusal_without_migrate_names_the_fix() -> None:
    state, _ = _run(100, 2, 10)
    with pytest.raises(
        StateDictError, match=r"saved with n=100 but this sampler has n=120.*migrate="
    ):
        DistributedSampler(120, num_replicas=2, rank=0).load_state_dict(state)


def test_state_inside_the_migrated_epoch_resumes_exactly_on_any_world_size() -> None:
    state, _ = _run(200, 4, 23, seed=5)
    decl = DataChange(200, removed=range(0, 200, 9), appended=31)
    ref = [DistributedSampler(decl.new_size, num_replicas=3, rank=r, seed=5) for r in range(3)]
    for s in ref:
        s.load_state_dict(state, migrate=decl)
    its = [iter(s) for s in ref]
    head = [[next(it) for _ in range(7)] for it in its]
    mid = ref[0].state_dict()
    assert mid["extra"]["migrated"]["old_size"] == 200
    cont = [_quiet(list, it) for it in its]  # the reference run goes on
    done = {int(i) for h in head for i in h}
    for world in (3, 2):
        again = [
            DistributedSampler(decl.new_size, num_replicas=world, rank=r, seed=5)
            for r in range(world)
        ]
        for s in again:
            s.load_state_dict(mid)  # no migrate: the state carries its migration
        shares = [_quiet(list, s) for s in again]
        assert len({len(x) for x in shares}) == 1
        if world == 3:
            assert shares == cont  # exactly the same steps on every rank
        got = {int(i) for x in shares for i in x}
        assert got == {int(i) for x in cont for i in x} and not done & got


def test_the_next_epoch_is_the_new_datas_plain_plan() -> None:
    state, _ = _run(50, 2, 5, seed=2)
    s = DistributedSampler(60, num_replicas=2, rank=1, seed=2)
    s.load_state_dict(state, migrate=DataChange(50, appended=10))
    _quiet(list, s)
    s.set_epoch(1)
    fresh = DistributedSampler(60, num_replicas=2, rank=1, seed=2)
    fresh.set_epoch(1)
    assert list(s) == list(fresh)
    assert "migrated" not in s.state_dict()["extra"]


def test_rest_of_epoch_is_pinned() -> None:
    """The rest's order is part of the compatibility policy (docs/compatibility.md)."""
    state, _ = _run(1000, 4, 37, seed=123)
    s = DistributedSampler(1010, num_replicas=1, rank=0, seed=123)
    s.load_state_dict(state, migrate=DataChange(1000, removed=[1, 2, 3, 500, 999], appended=15))
    rest = s.plan().take(np.arange(len(s.plan())))
    assert len(rest) == len(set(rest.tolist())) == PINNED_LEN
    assert rest[:8].tolist() == PINNED_HEAD
    assert hashlib.sha256(rest.astype("<i8").tobytes()).hexdigest() == PINNED_SHA


PINNED_LEN = 863  # 1000 - 148 consumed - 4 removed of the rest + 15 appended
PINNED_HEAD = [124, 964, 972, 1002, 443, 925, 184, 160]
PINNED_SHA = "b631bb50e21663b542e7742b402ac1393e8659c0e90e95a0c41abbb91a746277"


def test_bad_migrations_name_the_parameter() -> None:
    state, _ = _run(30, 2, 3)
    s = DistributedSampler(32, num_replicas=2, rank=0)
    with pytest.raises(
        ConfigError, match=r"migrate declares old_size=31 but the state was saved on n=30"
    ):
        s.load_state_dict(state, migrate=DataChange(31, appended=1))
    with pytest.raises(ConfigError, match=r"migrate leads to 33 items .* has n=32"):
        s.load_state_dict(state, migrate=DataChange(30, appended=3))
    with pytest.raises(ConfigError, match=r"migrate must be a fairshard.DataChange"):
        s.load_state_dict(state, migrate={"appended": 2})  # type: ignore[arg-type]
    blocked = DistributedSampler(32, num_replicas=2, rank=0, layout="blocked")
    with pytest.raises(
        ConfigError, match=r"migrate: resuming on changed data needs layout='strided'"
    ):
        blocked.load_state_dict(state, migrate=DataChange(30, appended=2))
    other = DistributedSampler(32, num_replicas=2, rank=0, shuffle=False)
    with pytest.raises(StateDictError, match=r"shuffle"):  # only n may differ
        other.load_state_dict(state, migrate=DataChange(30, appended=2))
    s.load_state_dict(state, migrate=DataChange(30, appended=2))
    inside = s.state_dict()
    t = DistributedSampler(34, num_replicas=2, rank=0)
    with pytest.raises(ConfigError, match=r"inside a migrated epoch"):
        t.load_state_dict(inside, migrate=DataChange(32, appended=2))
    with pytest.raises(ConfigError, match=r"removed holds index 30, outside"):
        DataChange(30, removed=[30])
    with pytest.raises(ConfigError, match=r"removed holds index 4 twice"):
        DataChange(30, removed=[4, 4])
    with pytest.raises(ConfigError, match=r"appended must be >= 0"):
        DataChange(30, appended=-1)
    with pytest.raises(ConfigTypeError, match=r"removed\[0\] must be an int"):
        DataChange(30, removed=[1.5])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match=r"leaves no item"):
        DataChange(2, removed=[0, 1])
    # a refused migration leaves the sampler as it was
    u = DistributedSampler(32, num_replicas=2, rank=0)
    before = list(u)
    with pytest.raises(ConfigError):
        u.load_state_dict(state, migrate=DataChange(30, appended=3))
    u.set_epoch(0)
    assert _quiet(list, u) == before


def test_a_family_that_migrates_without_its_hooks_is_refused_when_defined() -> None:
    """``_data_keys`` without ``_old_plan_length``/``_rest_plan``: a TypeError at the class."""
    from fairshard._core.migrating import Migrating

    with pytest.raises(TypeError, match=r"Half sets _data_keys=\('n',\).*_rest_plan"):

        class Half(Migrating):
            _data_keys = ("n",)

            def _old_plan_length(self, change: object, saved: dict[str, object], e: int) -> int:
                return 0

    class Inherits(DistributedSampler):  # the hooks come with the family
        pass

    assert Inherits._data_keys == ("n",)
