"""Golden orders of a resume on changed data (``migrate=``), for every family that migrates.

The rest of an epoch after a declared change is an order like any other: the
compatibility policy (docs/compatibility.md) covers it. For each family that
migrates -- the catalog's (``Family.migrates``), the mixture
(``MixtureChange``) and ``StepSampler`` -- a fixed job saves on 2 ranks
part-way into epoch 1 (a stream of steps: into its second epoch), the data
changes (items removed and appended; for the mixture a source removed, one
appended, new weights), and 3 ranks resume. ``tests/golden/migrate.json``
holds, per family, what rank 1 of 3 yields first, how many items the rest of
the epoch holds and the digest of the whole rest, and a frozen state saved
inside the migrated epoch, which must keep loading (without ``migrate``) and
finish that epoch with the items its rank had left. Existing entries change
only with a deliberate, documented order change (``python -m
tests.families.test_golden_migrate`` rewrites them all; ``--add`` adds a new
family's entry and keeps the others).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairshard import (
    DataChange,
    DistributedSampler,
    MixtureChange,
    MixtureSampler,
    StepSampler,
)
from tests.catalog import sampler_families
from tests.contract import quiet as _quiet

GOLDEN = Path(__file__).parents[1] / "golden" / "migrate.json"
N_OLD, REMOVED, APPENDED = 60, [3, 17, 41, 59], 9
CHANGE = DataChange(N_OLD, removed=REMOVED, appended=APPENDED)
SAVED_WORLD, WORLD, RANK, EPOCH, TAKEN = 2, 3, 1, 1, 7


def _saved(
    make: Callable[[int, int], Any], taken: int = TAKEN, epoch: bool = True
) -> dict[str, Any]:
    """Rank 0's state after every rank of ``SAVED_WORLD`` took ``taken`` items of ``EPOCH``."""
    ranks = [make(r, SAVED_WORLD) for r in range(SAVED_WORLD)]
    for sampler in ranks:
        if epoch:
            sampler.set_epoch(EPOCH)
        it = iter(sampler)
        for _ in range(taken):
            next(it)
    return ranks[0].state_dict()  # type: ignore[no-any-return]


#: A case: the sampler resumed on the new data (rank 1 of 3), the rest of its
#: epoch's plan (``None`` for a stream of steps), and how to build a fresh
#: sampler on the new data (the same rank) that a later state loads into.
Case = tuple[Any, Any, Callable[[], Any]]


def _catalog_case(name: str) -> Callable[[], Case]:
    family = {f.name: f for f in sampler_families()}[name]

    def case() -> Case:
        state = _quiet(_saved, lambda r, w: family.make(N_OLD, r, w))
        resumed = _quiet(family.make, CHANGE.new_size, RANK, WORLD)
        resumed.load_state_dict(state, migrate=CHANGE)
        return resumed, resumed.plan(EPOCH), lambda: family.make(CHANGE.new_size, RANK, WORLD)

    return case


def _mixture_case() -> Case:
    old = [30, 20, 10]

    def make(sizes: list[int], weights: list[int], rank: int, world: int) -> MixtureSampler:
        return MixtureSampler(sizes, weights, num_replicas=world, rank=rank, seed=5)

    state = _quiet(_saved, lambda r, w: make(old, [3, 2, 1], r, w))
    resumed = _quiet(make, [30, 10, 14], [1, 1, 2], RANK, WORLD)  # source 1 gone, one added
    resumed.load_state_dict(state, migrate=MixtureChange(old, removed=[1], appended=1))
    return resumed, resumed.plan(EPOCH), lambda: make([30, 10, 14], [1, 1, 2], RANK, WORLD)


def _steps_case() -> Case:
    def make(n: int, rank: int, world: int) -> StepSampler:
        inner = DistributedSampler(n, num_replicas=world, rank=rank, seed=5)
        return StepSampler(inner, micro_batch_size=2, global_batch_size=12)

    # 7 steps of 12 on 2 ranks: 84 samples, past epoch 0's 60, into epoch 1
    state = _quiet(_saved, lambda r, w: make(N_OLD, r, w), 7 * 6, False)
    resumed = make(CHANGE.new_size, RANK, WORLD)
    resumed.load_state_dict(state, migrate=CHANGE)
    return resumed, None, lambda: make(CHANGE.new_size, RANK, WORLD)


CASES: dict[str, Callable[[], Case]] = {
    **{f.name: _catalog_case(f.name) for f in sampler_families() if f.migrates},
    "mixture": _mixture_case,
    "steps": _steps_case,
}
NAMES = sorted(CASES)


def entry(name: str) -> dict[str, Any]:
    """What rank 1 of 3 yields first after the resume, the whole rest's size and digest,
    and a frozen state saved inside the migrated epoch with what its rank had left."""
    sampler, rest, _ = CASES[name]()
    it = iter(sampler)
    first = [int(next(it)) for _ in range(12)]
    if rest is None:  # an endless stream: the next 60 of this rank stand for the rest
        items = np.array(first + [int(next(it)) for _ in range(48)], dtype="<i8")
    else:
        items = np.asarray(rest.take(np.arange(len(rest))), dtype="<i8")
    inside, _, _ = CASES[name]()
    it = iter(inside)
    for _ in range(8):  # for the stream of steps, two whole steps of this rank (4 items each)
        next(it)
    state = json.loads(json.dumps(inside.state_dict()))  # plain data, as saved to disk
    left = [int(i) for i in (itertools.islice(it, 30) if rest is None else it)]
    return {
        "first": first,
        "rest": int(items.size),
        "sha256": hashlib.sha256(items.tobytes()).hexdigest(),
        "frozen": {"state": state, "remaining": left},
    }


def test_every_migrating_family_is_pinned() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == NAMES
    assert {"weighted", "class-balanced", "mixture", "steps"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_rest_after_a_declared_change_is_pinned(name: str) -> None:
    assert _quiet(entry, name) == json.loads(GOLDEN.read_text())[name]


@pytest.mark.parametrize("name", NAMES)
def test_a_frozen_state_inside_the_migrated_epoch_keeps_loading_and_resuming(name: str) -> None:
    """Version-1 states saved inside a migrated epoch load, without migrate, and finish it."""
    saved = json.loads(GOLDEN.read_text())[name]["frozen"]
    assert saved["state"]["version"] == 1
    sampler = CASES[name]()[2]()
    _quiet(sampler.load_state_dict, saved["state"])
    got = [int(i) for i in itertools.islice(iter(sampler), len(saved["remaining"]) + 1)]
    assert got[: len(saved["remaining"])] == saved["remaining"]
    if name != "steps":  # an epoch's rank ends where the saving run's did
        assert len(got) == len(saved["remaining"])


def write(add_only: bool) -> None:
    """Rewrite the file; ``add_only`` keeps every existing entry as it is."""
    old = json.loads(GOLDEN.read_text()) if add_only and GOLDEN.exists() else {}
    rows = [f" {json.dumps(n)}: {json.dumps(old.get(n) or _quiet(entry, n))}" for n in NAMES]
    GOLDEN.write_text("{\n" + ",\n".join(rows) + "\n}\n")


if __name__ == "__main__":  # regenerate (a deliberate order change only) or --add new families
    write(add_only="--add" in sys.argv[1:])
    sys.exit(0)
