"""A pass binds its epoch at its first item; a late set_epoch under workers is refused.

Frameworks make the sampler's iterator before they set the epoch (torchdata's
BatchSampler at ``iter(loader)``, Lightning on a restart, accelerate when it
asks a stateful loader for its state). Bound at ``iter()``, such a pass
trained the previous epoch's order, silently (tests/seams/ found it).
"""

from __future__ import annotations

import pytest
from torch.utils.data import DataLoader

import fairshard
from tests.catalog import CATALOG, make_loader, sampler_families

N = 40
NAMES = [f.name for f in sampler_families()]


def _epoch(name: str, epoch: int) -> list[object]:
    sampler = CATALOG[name].make(N, 0, 2)
    sampler.set_epoch(epoch)
    return list(sampler)


@pytest.mark.filterwarnings("ignore:.*split evenly")  # a declared padded tail
@pytest.mark.parametrize("name", NAMES)
def test_an_iterator_made_before_set_epoch_reads_the_epoch_set(name: str) -> None:
    sampler = CATALOG[name].make(N, 0, 2)
    early = iter(sampler)  # made first, as torchdata's BatchSampler and Lightning do
    sampler.set_epoch(1)
    assert list(early) == _epoch(name, 1)


@pytest.mark.parametrize("name", ["distributed", "length-bucket"])
def test_a_stateful_loader_made_before_set_epoch_reads_the_epoch_set(name: str) -> None:
    torchdata = pytest.importorskip("torchdata.stateful_dataloader")
    family = CATALOG[name]
    sampler = family.make(N, 0, 2)
    loader = make_loader(family, sampler, N, loader_class=torchdata.StatefulDataLoader)
    early = iter(loader)
    sampler.set_epoch(3)
    got = [i for batch in early for i in (batch.tolist())]
    want = _epoch(name, 3)
    assert got == [i for item in want for i in (item if isinstance(item, list) else [item])]


@pytest.mark.timeout(60)
def test_set_epoch_after_workers_began_another_epoch_is_refused_naming_the_fix() -> None:
    sampler = CATALOG["distributed"].make(N, 0, 2)
    loader = DataLoader(
        list(range(N)),
        batch_size=4,
        sampler=sampler,
        num_workers=2,
        multiprocessing_context="fork",
    )
    early = iter(loader)  # the workers prefetch epoch 0 at once
    with pytest.raises(fairshard.ConfigError, match=r"set_epoch\(1\) came after a DataLoader"):
        sampler.set_epoch(1)
    del early
    sampler.set_epoch(1)  # before the loop's iter(): fine
    assert [i for b in loader for i in b.tolist()] == _epoch("distributed", 1)


@pytest.mark.timeout(60)
def test_set_epoch_after_a_loop_left_early_is_not_refused() -> None:
    sampler = fairshard.DistributedSampler(N, num_replicas=2, rank=0, seed=0)
    loader = DataLoader(
        list(range(N)),
        batch_size=4,
        sampler=sampler,
        num_workers=2,
        multiprocessing_context="fork",
    )
    for step, _ in enumerate(loader):
        if step == 1:
            break  # a loop that stops early: the loader yielded batches
    sampler.set_epoch(1)
    assert sampler.epoch == 1
