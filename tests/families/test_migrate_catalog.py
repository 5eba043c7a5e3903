"""Resume on changed data, for every sampler family of the catalog.

A family that migrates (``Family.migrates``) keeps its promises for any
change, world sizes and stop point: every rank of the resumed job takes
equal steps, ``len()`` is exact, the resume is deterministic, a state taken
inside the migrated epoch resumes exactly without ``migrate`` on another
world size, and

- ``"once"``: what any rank took stays taken, removed items are never
  yielded, every appended one is yielded in the rest of the epoch;
- ``"draws"``: the rest holds exactly the epoch's draws not taken yet
  (``num_samples`` of the new data less those taken), drawn from the new
  data only (never an item of weight 0 there).

Every other family refuses ``migrate=`` with a ``ConfigError`` that says
why and what to do instead; without ``migrate`` a state of other data is
refused as before.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import ConfigError, DataChange, FairshardWarning, Partition, StateDictError

from ..catalog import Family, sampler_families
from ..contract import quiet as _quiet

MIGRATING = [f for f in sampler_families() if f.migrates in ("once", "draws")]
REFUSING = [f for f in sampler_families() if f.migrates is None]


def _run(family: Family, n: int, world: int, steps: int) -> tuple[dict[str, Any], list[int]]:
    """Every rank takes ``steps`` items; rank 0's state and what all ranks took."""
    ranks = [_quiet(family.make, n, r, world) for r in range(world)]
    taken: list[int] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairshardWarning)
        for s in ranks:
            it = iter(s)
            taken += [next(it) for _ in range(min(steps, len(s)))]
    return ranks[0].state_dict(), taken


def _resume(family: Family, n: int, world: int, state: dict[str, Any], change: Any) -> list[Any]:
    ranks = [_quiet(family.make, n, r, world) for r in range(world)]
    for s in ranks:
        s.load_state_dict(state, migrate=change)
    return ranks


changes = st.integers(8, 90).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.sets(st.integers(0, n - 1), max_size=n // 2).map(sorted),
        st.integers(0, 30),
    )
)


@pytest.mark.parametrize("family", MIGRATING, ids=lambda f: f.name)
@settings(max_examples=25, deadline=None)
@given(change=changes, world=st.integers(1, 4), new_world=st.integers(1, 4), frac=st.floats(0, 1))
def test_the_rest_of_the_epoch_keeps_every_promise(
    family: Family, change: tuple[int, list[int], int], world: int, new_world: int, frac: float
) -> None:
    n_old, removed, appended = change
    decl = DataChange(n_old, removed=removed, appended=appended)
    n_new = decl.new_size
    probe = _quiet(family.make, n_old, 0, world)
    steps = int(frac * len(probe))
    state, taken = _run(family, n_old, world, steps)
    resumed = _resume(family, n_new, new_world, state, decl)
    epoch = state["epoch"]
    rest = resumed[0].plan(epoch)
    if Partition(len(rest), new_world, tail=family.tail).max_items == 0:
        assert all(s.epoch == epoch + 1 for s in resumed)  # nothing left: the next epoch
        return
    assert all(s.epoch == epoch for s in resumed)
    shares = [_quiet(list, s) for s in resumed]
    assert len({len(x) for x in shares}) == 1  # equal steps on every rank
    assert [len(x) for x in shares] == [len(s) for s in resumed]  # len() exact
    again = _resume(family, n_new, new_world, state, decl)
    assert [_quiet(list, s) for s in again] == shares  # deterministic
    got = Counter(int(i) for x in shares for i in x)
    assert all(0 <= i < n_new for i in got)
    items = rest.take(np.arange(len(rest))).tolist()
    if family.migrates == "once":
        if family.tail == "drop" and steps == len(probe):  # a finished epoch: its dropped tail
            taken = list(range(n_old))
        consumed = {int(i) for i in decl.new_index(taken).tolist() if i >= 0}
        assert not consumed & set(got)  # consumed stays consumed this epoch
        assert sorted(items) == sorted(set(range(n_new)) - consumed)  # each left item once
        if family.tail == "pad":
            assert set(range(n_old - len(removed), n_new)) <= set(got)  # every appended one
    else:
        probe_new = _quiet(family.make, n_new, 0, 1)
        total = probe.num_samples  # the saved epoch's draws, all ranks
        used = total if steps >= len(probe) else min(steps * world, total)
        assert len(items) == max(0, probe_new.num_samples - used)
        weights = getattr(probe_new, "probabilities", None)
        if weights is not None:
            assert all(weights()[i] > 0 for i in got)  # drawn from the new data only


@pytest.mark.parametrize("family", MIGRATING, ids=lambda f: f.name)
def test_a_state_inside_the_migrated_epoch_resumes_exactly_on_another_world(
    family: Family,
) -> None:
    state, _ = _run(family, 60, 4, 5)
    decl = DataChange(60, removed=[0, 7, 59], appended=13)
    ref = _resume(family, decl.new_size, 3, state, decl)
    its = [iter(s) for s in ref]
    head = [[int(next(it)) for _ in range(4)] for it in its]
    mid = ref[0].state_dict()
    assert "migrated" in mid["extra"]
    cont = [_quiet(lambda it: [int(i) for i in it], it) for it in its]
    for world in (3, 2):
        again = [_quiet(family.make, decl.new_size, r, world) for r in range(world)]
        for s in again:
            s.load_state_dict(mid)  # no migrate: the state carries its change
        shares = [_quiet(lambda s: [int(i) for i in s], s) for s in again]
        assert len({len(x) for x in shares}) == 1
        if world == 3:
            assert shares == cont
        elif family.migrates == "once":
            done = {i for h in head for i in h}
            got = {i for x in shares for i in x}
            assert not done & got
            if family.tail == "pad":  # (a drop tail leaves out other items on 2 ranks)
                assert got == {i for x in cont for i in x}


@pytest.mark.parametrize("family", MIGRATING, ids=lambda f: f.name)
def test_without_migrate_a_state_of_other_data_is_refused_naming_the_fix(family: Family) -> None:
    state, _ = _run(family, 40, 2, 3)
    with pytest.raises(StateDictError, match=r"changed size .* migrate=DataChange\(40, removed"):
        _quiet(family.make, 45, 0, 2).load_state_dict(state)


@pytest.mark.parametrize("family", REFUSING, ids=lambda f: f.name)
def test_the_other_families_refuse_migrate_saying_why_and_what_to_do(family: Family) -> None:
    state, _ = _run(family, 40, 2, 3)
    target = _quiet(family.make, 40, 0, 2)
    with pytest.raises(ConfigError, match=r"^migrate: .+; finish that epoch on the data"):
        target.load_state_dict(state, migrate=DataChange(40))
    _quiet(target.load_state_dict, state)  # the refusal changed nothing: the plain resume loads
