"""A StepSampler inside torchdata's StatefulDataLoader resumes exactly, with and without workers.

torchdata snapshots the sampler at every batch it delivers (its own ``state_dict()``
call); with workers that snapshot was refused as a bare mid-epoch state.
"""

from __future__ import annotations

import pytest

import fairshard

torchdata = pytest.importorskip("torchdata.stateful_dataloader")

N = 48


def _make() -> fairshard.StepSampler:
    inner = fairshard.DistributedSampler(N, num_replicas=2, rank=0, seed=0)
    return fairshard.StepSampler(inner, micro_batch_size=4, global_batch_size=8)


def _loader(workers: int) -> object:
    kwargs = {"multiprocessing_context": "fork"} if workers else {}
    return torchdata.StatefulDataLoader(
        list(range(N)), batch_size=4, sampler=_make(), num_workers=workers, **kwargs
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("cut", [1, 3, 6, 7])
def test_a_step_stream_resumes_exactly_from_the_loaders_state(workers: int, cut: int) -> None:
    batches = iter(_loader(0))  # type: ignore[call-overload]
    uninterrupted = [next(batches).tolist() for _ in range(12)]
    first = _loader(workers)
    batches = iter(first)  # type: ignore[call-overload]
    head = [next(batches).tolist() for _ in range(cut)]
    state = first.state_dict()  # type: ignore[attr-defined]
    del batches
    again = _loader(workers)
    again.load_state_dict(state)  # type: ignore[attr-defined]
    batches = iter(again)  # type: ignore[call-overload]
    rest = [next(batches).tolist() for _ in range(12 - cut)]
    assert head + rest == uninterrupted


def test_a_bare_state_under_a_wrapper_that_fetches_ahead_is_refused_naming_the_step() -> None:
    from fairshard._core.resume import hold_pass

    sampler = _make()
    batches = iter(sampler)
    next(batches)
    hold = hold_pass(sampler, "Ray Train's prepare_data_loader", "")
    with pytest.raises(fairshard.ConfigError, match=r"state_dict\(step="):
        sampler.state_dict()
    assert sampler.state_dict(step=0)  # the step count is exact under any loader
    hold.release()
    assert sampler.state_dict()
