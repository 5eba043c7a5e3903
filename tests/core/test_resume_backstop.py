"""The backstop: a pass begun from a loaded state and cut short says how much was lost.

A loop driven by someone else's counter (Lightning's, a framework that read
``len()`` before the state was loaded) may end a resumed epoch before its
end. At the next ``set_epoch`` the sampler warns once, naming the items (or
batches) of the epoch the loop never read: those the sampler never handed
out, and those a live multi-worker ``DataLoader`` fetched but never gave
the loop. The correct paths stay silent: a resumed pass read to its end,
torchdata's ``StatefulDataLoader`` resumed from its own state, a probe
followed by the whole pass.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import DegenerateConfigWarning

N, BATCH, DONE = 64, 4, 5  # 16 batches; the state is taken after 5


def _state(sampler: Any, batch_size: int | None = BATCH) -> dict[str, Any]:
    loader = DataLoader(list(range(N)), batch_size=batch_size, sampler=sampler)
    if batch_size is None:
        loader = DataLoader(list(range(N)), batch_sampler=sampler)
    it = iter(loader)
    for _ in range(DONE):
        next(it)
    return fairshard.loader_state_dict(loader, batches=DONE)


@pytest.mark.timeout(120)
def test_a_resumed_pass_cut_short_under_workers_counts_what_the_loop_never_read() -> None:
    sampler = fairshard.DistributedSampler(N, 1, 0, seed=2)
    sampler.load_state_dict(_state(fairshard.DistributedSampler(N, 1, 0, seed=2)))
    assert len(sampler) == N and sampler.remaining == N - DONE * BATCH
    loader = DataLoader(
        list(range(N)),
        batch_size=BATCH,
        sampler=sampler,
        num_workers=2,
        multiprocessing_context="fork",
    )
    it = iter(loader)
    for _ in range(3):  # the loop stops after 3 batches; the workers fetched more
        next(it)
    unread = N - DONE * BATCH - 3 * BATCH
    with pytest.warns(DegenerateConfigWarning, match=f"{unread} of the epoch's {N} items"):
        sampler.set_epoch(1)
    del it


@pytest.mark.timeout(120)
def test_a_batch_sampler_counts_batches() -> None:
    def make() -> Any:
        return fairshard.LengthBucketBatchSampler(
            [1 + i % 5 for i in range(N)], BATCH, num_replicas=1, rank=0
        )

    batches = make()
    batches.load_state_dict(_state(make(), None))
    total = len(batches)
    loader = DataLoader(
        list(range(N)), batch_sampler=batches, num_workers=2, multiprocessing_context="fork"
    )
    it = iter(loader)
    next(it)
    unread = total - DONE - 1
    with pytest.warns(DegenerateConfigWarning, match=f"{unread} of the epoch's {total} batches"):
        batches.set_epoch(1)
    del it


@pytest.mark.timeout(120)
def test_the_exact_paths_stay_silent() -> None:
    from torchdata.stateful_dataloader import StatefulDataLoader

    def loader(sampler: Any) -> Any:
        return StatefulDataLoader(
            list(range(N)),
            batch_size=BATCH,
            sampler=sampler,
            num_workers=2,
            multiprocessing_context="fork",
        )

    first = loader(fairshard.DistributedSampler(N, 1, 0, seed=2))
    it = iter(first)
    taken = [next(it) for _ in range(DONE)]
    saved = first.state_dict()
    del it
    sampler = fairshard.DistributedSampler(N, 1, 0, seed=2)
    resumed = loader(sampler)
    resumed.load_state_dict(saved)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rest = list(resumed)  # torchdata restores the sampler, the loop reads to the end
        assert len(resumed) == N // BATCH and len(taken) + len(rest) == N // BATCH
        sampler.set_epoch(1)
        # A plain loop: a probe, then the whole rest of the epoch.
        plain = fairshard.DistributedSampler(N, 1, 0, seed=2)
        plain.load_state_dict(_state(fairshard.DistributedSampler(N, 1, 0, seed=2)))
        dl = DataLoader(list(range(N)), batch_size=BATCH, sampler=plain)
        next(iter(dl))
        assert len(list(dl)) == N // BATCH - DONE == len(dl) - DONE
        plain.set_epoch(1)
