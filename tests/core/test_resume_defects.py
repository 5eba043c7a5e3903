"""Four resume defects of 0.2, each pinned where it was found.

1. ``DataLoader(num_workers>0, in_order=False)`` hands batches over as they
   finish: a mid-pass state (``loader_state_dict``, ``consumed=``) recorded
   the plan's first ``k`` batches, not the ``k`` the loop took. Refused now,
   naming ``in_order=True``; a state at the end of the pass stays exact.
2. A bare ``sampler.state_dict()`` under ``StatefulDataLoader`` with workers
   counted the prefetched batches. Refused now; the loader's own snapshots
   (``loader.state_dict()``) stay exact.
3. Loading a finished epoch's state into a sampler that had already iterated
   a later epoch (``torchdata.nodes``' ``Loader.load_state_dict``) was
   dropped. It rolls back now; a lazy restore after ``set_epoch(e + 1)``
   with nothing of the later epoch handed out (``StatefulDataLoader``)
   still keeps the later epoch.
4. A probe ``next(iter(loader))`` after ``load_state_dict`` consumed the
   resume point and the loop replayed the epoch. The resume point now
   survives an abandoned pass; a pass that starts at the end of a loaded
   epoch warns, naming ``set_epoch(e + 1)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader

import fairshard
from fairshard import ConfigError, DegenerateConfigWarning

pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")

N = 64
BATCH = 4


def _ids(batches: list[Any]) -> list[int]:
    return [int(i) for b in batches for i in b.tolist()]


def _dl(sampler: Any, workers: int = 0, **kw: Any) -> DataLoader[int]:
    if workers:
        kw.setdefault("multiprocessing_context", "fork")
    return DataLoader(list(range(N)), batch_size=BATCH, sampler=sampler, num_workers=workers, **kw)


# --------------------------------------------------------------- 1. in_order
@pytest.mark.timeout(120)
@pytest.mark.skipif(not hasattr(DataLoader(range(1)), "in_order"), reason="torch < 2.6")
def test_out_of_order_loader_mid_pass_state_is_refused_naming_in_order() -> None:
    sampler = fairshard.DistributedSampler(N, 1, 0, seed=1)
    dl = _dl(sampler, workers=2, in_order=False)
    it = iter(dl)
    for _ in range(4):
        next(it)
    with pytest.raises(ConfigError, match=r"in_order=True"):
        fairshard.loader_state_dict(dl, batches=4)
    with pytest.raises(ConfigError, match=r"in_order=True"):
        sampler.state_dict(consumed=4 * BATCH)
    del it


@pytest.mark.timeout(120)
@pytest.mark.skipif(not hasattr(DataLoader(range(1)), "in_order"), reason="torch < 2.6")
def test_out_of_order_loader_state_at_the_end_of_the_pass_is_exact() -> None:
    sampler = fairshard.DistributedSampler(N, 1, 0, seed=1)
    dl = _dl(sampler, workers=2, in_order=False)
    seen = _ids(list(dl))
    assert sorted(seen) == list(range(N))
    state = fairshard.loader_state_dict(dl, batches=N // BATCH)
    assert state["steps"] == N
    assert fairshard.loader_state_dict(dl, batches=0)["steps"] == 0  # nothing taken: exact


# ------------------------------------------------- 2. StatefulDataLoader bare
@pytest.mark.timeout(120)
def test_bare_state_dict_under_a_stateful_loader_with_workers_is_refused() -> None:
    sdl = pytest.importorskip("torchdata.stateful_dataloader")
    sampler = fairshard.DistributedSampler(N, 1, 0, seed=1)
    loader = sdl.StatefulDataLoader(
        list(range(N)),
        batch_size=BATCH,
        sampler=sampler,
        num_workers=2,
        multiprocessing_context="fork",
    )
    it = iter(loader)
    taken = [next(it) for _ in range(3)]
    with pytest.raises(ConfigError, match=r"loader\.state_dict\(\)"):
        sampler.state_dict()  # the sampler handed out the prefetched batches too
    # What the loader saves is exact, and so is the loop's own count.
    saved = loader.state_dict()
    assert fairshard.loader_state_dict(loader, batches=3)["steps"] == 3 * BATCH
    fresh = fairshard.DistributedSampler(N, 1, 0, seed=1)
    resumed = sdl.StatefulDataLoader(
        list(range(N)),
        batch_size=BATCH,
        sampler=fresh,
        num_workers=2,
        multiprocessing_context="fork",
    )
    resumed.load_state_dict(saved)
    assert sorted(_ids(taken) + _ids(list(resumed))) == list(range(N))
    del it


# ------------------------------------------------------------ 3. rollback
def test_rolling_a_live_sampler_back_to_a_finished_epoch() -> None:
    sampler = fairshard.DistributedSampler(N, 2, 1, seed=4)
    list(sampler)
    end_of_0 = sampler.state_dict()
    sampler.set_epoch(1)
    epoch_1 = list(sampler)  # epoch 1 ran: the load below is a rollback
    sampler.load_state_dict(end_of_0)  # the end of epoch 0: the start of epoch 1
    assert sampler.epoch == 1 and list(sampler) == epoch_1
    sampler.load_state_dict(end_of_0)
    sampler.set_epoch(0)
    assert sampler.epoch == 0 and sampler.remaining == 0
    assert len(sampler) == len(fairshard.DistributedSampler(N, 2, 1))  # the epoch's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        assert list(sampler) == []  # the rest of epoch 0: nothing


def test_a_lazy_restore_before_the_later_epoch_started_keeps_it() -> None:
    done = fairshard.DistributedSampler(N, 2, 1, seed=4)
    list(done)
    sampler = fairshard.DistributedSampler(N, 2, 1, seed=4)
    sampler.set_epoch(1)
    iter(sampler)  # a loader may call iter() before it restores: nothing handed out
    sampler.load_state_dict(done.state_dict())
    reference = fairshard.DistributedSampler(N, 2, 1, seed=4)
    reference.set_epoch(1)
    assert sampler.epoch == 1 and list(sampler) == list(reference)


def _run_test_save_load_state(node: Any, midpoint: int) -> None:
    """torchdata's ``test/nodes/utils.py::run_test_save_load_state`` (meta-pytorch/data)."""
    from torchdata.nodes import Loader

    x = Loader(node)
    initial_state_dict = x.state_dict()
    it = iter(x)
    results = [next(it) for _ in range(midpoint)]
    state_dict = x.state_dict()
    results += list(it)
    state_dict_0_end = x.state_dict()
    it = iter(x)
    results_1 = [next(it) for _ in range(midpoint)]
    state_dict_1 = x.state_dict()
    results_1 += list(it)

    x.load_state_dict(state_dict)
    assert list(x) == results[midpoint:]
    assert list(x) == results_1
    x.load_state_dict(state_dict_1)
    assert list(x) == results_1[midpoint:]
    x.load_state_dict(initial_state_dict)
    assert list(x) == results
    assert list(x) == results_1

    x = Loader(node, restart_on_stop_iteration=False)
    x.load_state_dict(state_dict_0_end)
    assert list(x) == []
    x = Loader(node)
    x.load_state_dict(state_dict_0_end)
    assert list(x) == results_1


@pytest.mark.parametrize("updater", [False, True])
@pytest.mark.parametrize("midpoint", [0, 7])
def test_torchdata_nodes_own_save_load_check_for_sampler_wrapper(
    midpoint: int, updater: bool
) -> None:
    """torchdata's ``TestSamplerWrapper.test_save_load_state(_with_updater)``, on fairshard."""
    nodes = pytest.importorskip("torchdata.nodes")
    sampler = fairshard.DistributedSampler(20, 2, 1)
    if updater:
        node = nodes.SamplerWrapper(sampler, initial_epoch=2, epoch_updater=lambda e: e + 5)
    else:
        node = nodes.SamplerWrapper(sampler)
    _run_test_save_load_state(node, midpoint)


# ---------------------------------------------------------------- 4. probe
@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
def test_a_probe_after_a_resume_keeps_the_resume_point(workers: int) -> None:
    """The DDP tutorial's ``next(iter(loader))`` before the epoch loop (issue: 30 of 100)."""
    first = fairshard.DistributedSampler(N, 1, 0, seed=2)
    dl = _dl(first)
    taken = []
    for batch in dl:
        taken.append(batch)
        if len(taken) == 5:
            break
    state = fairshard.loader_state_dict(dl, batches=5)
    sampler = fairshard.DistributedSampler(N, 1, 0, seed=2)
    sampler.load_state_dict(state)
    loader = _dl(sampler, workers)
    assert sampler.remaining == N - 5 * BATCH
    probe = next(iter(loader))  # read the batch size
    assert len(probe) == BATCH
    assert len(loader) == N // BATCH  # the epoch's, the 5 batches taken included
    sampler.set_epoch(0)  # the resume loop's set_epoch of the saved epoch
    rest = _ids(list(loader))
    assert _ids(taken) + rest == list(first.plan().take(torch.arange(N).numpy()))


def test_a_probe_of_an_epoch_a_loaded_state_ended_reads_the_next_epoch() -> None:
    """The tutorial snapshots after epoch e and probes before set_epoch: the probe reads e + 1.

    It raised StopIteration (the empty rest of epoch e); the relaunch of
    tests/core/test_ddp_tutorial.py runs the tutorial's loop itself.
    """
    done = fairshard.DistributedSampler(N, 1, 0)
    list(done)
    sampler = fairshard.DistributedSampler(N, 1, 0)
    sampler.load_state_dict(done.state_dict())
    loader = _dl(sampler)
    reference = fairshard.DistributedSampler(N, 1, 0)
    reference.set_epoch(1)
    nxt = list(reference)
    assert next(iter(loader)).tolist() == nxt[:BATCH]  # the probe: epoch 1
    sampler.set_epoch(1)
    assert _ids(list(loader)) == nxt
    sampler.load_state_dict(done.state_dict())
    sampler.set_epoch(0)  # the finished epoch re-announced: its end, which says why
    with pytest.warns(DegenerateConfigWarning, match=r"set_epoch\(1\)"):
        assert list(loader) == []
