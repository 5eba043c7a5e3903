"""Resume through a plain ``torch.utils.data.DataLoader`` with prefetching workers.

The scenario of the report: a ``DataLoader(num_workers=2)`` draws indices
ahead of the loop, so the sampler has handed out more than the loop took
when a checkpoint is written. ``fairshard.loader_state_dict(loader, k)``
(and ``sampler.state_dict(consumed=...)``) count what the loop took; a bare
``state_dict()`` there raises instead of silently skipping the prefetched
items. Every sampler family of the catalog (``tests/catalog.py``) resumes
exactly, on the same world size and on another one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from torch.utils.data import BatchSampler, DataLoader

import fairshard
from fairshard import ConfigError, ConfigTypeError, StateDictError
from tests.catalog import CATALOG, make_loader, sampler_families
from tests.contract import flat, plan_multiset

N = 103
BATCH = 4  # loader batch size for index samplers
NAMES = sorted(f.name for f in sampler_families())


class Indices:
    """A map-style dataset whose sample ``i`` is ``i``."""

    def __len__(self) -> int:
        return N

    def __getitem__(self, i: int) -> int:
        return i


def loader(sampler: Any, workers: int = 2, **kwargs: Any) -> DataLoader[Any]:
    context = "fork" if workers else None
    common = {"num_workers": workers, "multiprocessing_context": context, **kwargs}
    if workers:
        common.setdefault("prefetch_factor", 2)
    if hasattr(sampler, "num_batches"):
        return DataLoader(Indices(), batch_sampler=sampler, **common)
    return DataLoader(Indices(), batch_size=BATCH, sampler=sampler, **common)


def family_loader(name: str, sampler: Any, workers: int = 2) -> DataLoader[Any]:
    """Catalog family ``name``'s loader over ``sampler``, prefetching when it has workers."""
    extra = {"prefetch_factor": 2} if workers else {}
    dl: DataLoader[Any] = make_loader(
        CATALOG[name], sampler, N, workers=workers, batch_size=BATCH, **extra
    )
    return dl


def _ids(batch: Any) -> list[int]:
    if isinstance(batch, dict):  # packed rows, collated: the documents in order
        batch = batch["input_ids"]
    return [int(i) for i in batch.tolist()]


def take(dl: DataLoader[Any], k: int) -> list[list[int]]:
    """The first ``k`` batches of a pass (the loop stops there, as a job that checkpoints)."""
    out: list[list[int]] = []
    if k == 0:
        return out
    for batch in dl:
        out.append(_ids(batch))
        if len(out) == k:
            break
    return out


def all_batches(dl: DataLoader[Any]) -> list[list[int]]:
    return [_ids(b) for b in dl]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", NAMES)
def test_plain_loader_with_workers_resumes_exactly_on_the_same_world(name: str) -> None:
    make = CATALOG[name].make
    full = all_batches(family_loader(name, make(N, 1, 2)))
    for k in sorted({1, len(full) // 2, len(full) - 1}):
        sampler = make(N, 1, 2)
        dl = family_loader(name, sampler)
        before = []
        for batch in dl:
            before.append(_ids(batch))
            if len(before) == k:
                # The workers have prefetched more than the loop took: refused, loudly.
                with pytest.raises(ConfigError, match="loader_state_dict"):
                    sampler.state_dict()
                state = fairshard.loader_state_dict(dl, batches=k)
                break
        del dl
        fresh = make(N, 1, 2)
        fresh.load_state_dict(state)
        after = all_batches(family_loader(name, fresh))
        assert before + after == full, f"{name}: cut after {k} of {len(full)} batches"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", NAMES)
def test_plain_loader_with_workers_resumes_exactly_on_another_world(name: str) -> None:
    """Save after k steps on 2 ranks, resume on 3: the epoch is covered exactly once."""
    make = CATALOG[name].make
    old = [make(N, r, 2) for r in range(2)]
    k = max(1, len(all_batches(family_loader(name, make(N, 0, 2), workers=0))) // 3)
    seen: Counter[int] = Counter()
    states = []
    for sampler in old:
        dl = family_loader(name, sampler)
        seen.update(flat(take(dl, k)))
        states.append(fairshard.loader_state_dict(dl, batches=k))
        del dl
    assert states[0]["steps"] == states[1]["steps"]
    new = [make(N, r, 3) for r in range(3)]
    if not CATALOG[name].elastic:  # the blocked layout, or a plan laid out for 2 ranks, says so
        refusal = "layout='strided' for elastic resume|num_replicas=2 ranks.*num_replicas=3"
        with pytest.raises(StateDictError, match=refusal):
            new[0].load_state_dict(states[0])
        return
    for sampler in new:
        sampler.load_state_dict(states[0])
    dropped = _declared_drops(new[0])
    for sampler in new:
        seen.update(flat(all_batches(family_loader(name, sampler))))
    expected = plan_multiset(old[0])
    assert sum((expected - seen).values()) <= dropped, f"{name}: a sample was lost"
    extra = sum((seen - expected).values())
    assert extra <= _padding_bound(old[0], new[0]), f"{name}: samples repeated beyond padding"


def _declared_drops(sampler: Any) -> int:
    part, plan = sampler.partition(), sampler.plan()
    positions = np.arange(part.total - part.num_dropped(), part.total, dtype=np.int64)
    return len(flat(plan.items(positions)))


def _padding_bound(old: Any, new: Any) -> int:
    """Items the two segments may pad: one whole plan item per rank at most, each."""
    plan = old.plan()
    largest = max(len(flat([x])) for x in plan.items(np.arange(len(plan), dtype=np.int64)))
    return (old.num_replicas + new.num_replicas) * largest


@pytest.mark.timeout(60)
@pytest.mark.parametrize("workers", [0, 2])
def test_state_dict_consumed_counts_what_the_loop_took(workers: int) -> None:
    sampler = fairshard.DistributedSampler(N, 2, 0, seed=1)
    dl = loader(sampler, workers)
    before = flat(take(dl, 3))
    state = sampler.state_dict(consumed=3 * BATCH)
    assert state["steps"] == len(before) == 12
    if workers == 0:  # no prefetch: the sampler's own count is the loop's
        assert sampler.state_dict() == state


@pytest.mark.timeout(60)
def test_the_report_scenario_398_samples_none_lost() -> None:
    """The report: 96 consumed, 160 handed out, 128 lost. Now none is lost."""
    sampler = fairshard.DistributedSampler(398, 1, 0, seed=3)
    dl = DataLoader(
        list(range(398)),
        batch_size=16,
        sampler=sampler,
        num_workers=2,
        multiprocessing_context="fork",
    )
    before = flat(take(dl, 6))
    with pytest.raises(ConfigError, match=r"handed out 160 items"):
        sampler.state_dict()
    state = fairshard.loader_state_dict(dl, batches=6)
    assert state["steps"] == len(before) == 96
    fresh = fairshard.DistributedSampler(398, 1, 0, seed=3)
    fresh.load_state_dict(state)
    rest = [i for b in DataLoader(list(range(398)), batch_size=16, sampler=fresh) for i in b]
    assert sorted(before + [int(i) for i in rest]) == list(range(398))


@pytest.mark.timeout(60)
def test_leaving_the_loop_early_is_refused_even_after_the_loader_is_gone() -> None:
    sampler = fairshard.DistributedSampler(N, 1, 0)
    take(loader(sampler), 2)  # the loader iterator is garbage now; its prefetch is lost
    with pytest.raises(ConfigError, match="num_workers=2"):
        sampler.state_dict()
    assert sampler.state_dict(consumed=2 * BATCH)["steps"] == 2 * BATCH


@pytest.mark.timeout(60)
def test_after_a_complete_pass_the_bare_state_is_exact() -> None:
    sampler = fairshard.DistributedSampler(N, 2, 0)
    dl = loader(sampler, persistent_workers=True)
    assert len(flat(all_batches(dl))) == len(sampler)
    assert sampler.state_dict()["steps"] == len(sampler)


def test_consumed_is_checked() -> None:
    sampler = fairshard.DistributedSampler(N, 2, 0)
    it = iter(sampler)
    next(it)
    with pytest.raises(ConfigError, match="handed out 1 item"):
        sampler.state_dict(consumed=2)
    with pytest.raises(ConfigTypeError, match="consumed must be an int"):
        sampler.state_dict(consumed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="consumed=1"):
        fairshard.DistributedSampler(N, 2, 0).state_dict(consumed=1)  # nothing handed out


def test_loader_state_dict_needs_a_fairshard_loader() -> None:
    from torch.utils.data import RandomSampler

    with pytest.raises(ConfigTypeError, match="fairshard sampler"):
        fairshard.loader_state_dict(DataLoader(Indices(), sampler=RandomSampler(Indices())), 1)
    with pytest.raises(ConfigError, match="batches must be >= 0, got batches=-1"):
        fairshard.loader_state_dict(loader(fairshard.DistributedSampler(N, 1, 0)), -1)
    with pytest.raises(ConfigTypeError, match="batches must be an int"):
        fairshard.loader_state_dict(loader(fairshard.DistributedSampler(N, 1, 0)), True)
    dl = loader(fairshard.DistributedSampler(N, 1, 0), workers=0)
    take(dl, 1)
    with pytest.raises(ConfigError, match="at most 26 batch"):
        fairshard.loader_state_dict(dl, 27)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", ["torch-batch-sampler", "no-batching"])
def test_other_ways_to_batch_an_index_sampler(how: str) -> None:
    """A torch BatchSampler around a fairshard sampler, or batch_size=None."""
    sampler = fairshard.WeightedSampler(1.0 + np.arange(N) % 3, num_replicas=2, rank=1, seed=2)
    size = 5 if how == "torch-batch-sampler" else 1

    def build(s: Any) -> DataLoader[Any]:
        if how == "torch-batch-sampler":
            batches = BatchSampler(s, size, drop_last=False)
            return DataLoader(Indices(), batch_sampler=batches, num_workers=2)
        return DataLoader(Indices(), batch_size=None, sampler=s, num_workers=2)

    full = [int(i) for b in build(sampler) for i in np.atleast_1d(np.asarray(b))]
    sampler = fairshard.WeightedSampler(1.0 + np.arange(N) % 3, num_replicas=2, rank=1, seed=2)
    dl = build(sampler)
    before: list[int] = []
    for k, batch in enumerate(dl, start=1):
        before += np.atleast_1d(np.asarray(batch)).tolist()
        if k == 3:
            state = fairshard.loader_state_dict(dl, batches=3)
            break
    assert state["steps"] == 3 * size
    fresh = fairshard.WeightedSampler(1.0 + np.arange(N) % 3, num_replicas=2, rank=1, seed=2)
    fresh.load_state_dict(state)
    after = [int(i) for b in build(fresh) for i in np.atleast_1d(np.asarray(b))]
    assert before + after == full


@pytest.mark.timeout(60)
def test_a_sampler_mid_pass_still_pickles_and_copies() -> None:
    """The loader is held weakly; a copy keeps what was known of it (and stays careful)."""
    import copy
    import pickle

    sampler = fairshard.DistributedSampler(N, 1, 0)
    dl = loader(sampler)
    it = iter(dl)
    next(it)
    for twin in (copy.deepcopy(sampler), pickle.loads(pickle.dumps(sampler))):
        with pytest.raises(ConfigError, match="num_workers=2"):
            twin.state_dict()
        assert twin.state_dict(consumed=BATCH)["steps"] == BATCH
    del it
