"""``StepSampler`` at its edges: skip ranges at the resume point, a world larger
than the ramp's first sizes, Megatron's ramp rounding, the locality order, and
the epoch-loop calls an endless stream does not have.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.data import DataLoader

import fairshard
from fairshard import BatchSchedule, ConfigError, ConfigTypeError, StateDictError, StepSampler

N = 1000
G = 16


def _sampler(world: int = 2, rank: int = 0, **kw: Any) -> StepSampler:
    inner = fairshard.DistributedSampler(N, num_replicas=world, rank=rank, seed=0)
    args: dict[str, Any] = {"micro_batch_size": 4, "global_batch_size": G} | kw
    return StepSampler(inner, **args)


def _step(sampler: StepSampler, step: int) -> list[Any]:
    """What this rank yields in step ``step``, iterating from its resume point there."""
    it = iter(sampler)
    return [next(it) for _ in range(sampler.accumulation_steps(step) * sampler.micro_batch_size)]


# ------------------------------------------------ (a) skip ranges at the resume point
def test_the_docs_loss_spike_workflow_loads_the_state_of_the_step_it_skips_from() -> None:
    """docs/steps.md: checkpoint of step 120, then skip steps 120-124 on restart."""
    first = _sampler()
    state = json.loads(json.dumps(first.state_dict(step=120)))
    spike = first.positions_of_steps(120, 125)
    again = _sampler(skip=[spike])
    again.load_state_dict(state)  # refused before: "skipped the stream ranges"
    assert again.consumed_samples == 120 * G
    assert _step(again, 120) == first.indices_at(125).ranks[0]  # step 125's data
    assert again.state_dict()["extra"]["skip"] == [list(spike)]


@settings(max_examples=60, deadline=None)
@given(
    old=st.lists(st.tuples(st.integers(0, 120), st.integers(1, 12)), max_size=3),
    new=st.lists(st.tuples(st.integers(0, 160), st.integers(1, 12)), max_size=3),
    step=st.integers(0, 6),
)
def test_a_state_loads_exactly_when_the_skipped_past_agrees(
    old: list[tuple[int, int]], new: list[tuple[int, int]], step: int
) -> None:
    """Accepted iff both samplers skip the same positions among those the past read.

    The past is the stream positions of the consumed samples, up to the last
    one taken; ranges from the next position on (even one starting exactly
    there, or one the saved run had declared there) are the resumed run's
    choice. Accepted, the resumed stream is the new sampler's own from there.
    """
    old_ranges = [(a, a + k) for a, k in old]
    new_ranges = [(a, a + k) for a, k in new]
    saver = _sampler(skip=old_ranges)
    state = saver.state_dict(step=step)
    consumed = step * G
    old_pos = set(saver.skip.position(np.arange(consumed, dtype=np.int64)).tolist())
    past_end = max(old_pos) + 1 if old_pos else 0

    def skipped(ranges: list[tuple[int, int]]) -> set[int]:
        return {p for a, b in ranges for p in range(a, min(b, past_end))}

    agrees = skipped(old_ranges) == skipped(new_ranges)
    loader = _sampler(skip=new_ranges)
    if not agrees:
        with pytest.raises(StateDictError, match="skipped the stream ranges"):
            loader.load_state_dict(state)
        return
    loader.load_state_dict(state)
    fresh = _sampler(skip=new_ranges, start_step=step)
    assert _step(loader, step) == _step(fresh, step) == fresh.indices_at(step).ranks[0]


def test_a_range_that_reaches_into_the_past_is_still_refused() -> None:
    first = _sampler()
    state = first.state_dict(step=10)  # positions [0, 160) consumed
    for rng in [(150, 170), (159, 160), (0, 1), (100, 120)]:
        with pytest.raises(StateDictError, match="skipped the stream ranges"):
            _sampler(skip=[rng]).load_state_dict(state)
    for rng in [(160, 170), (161, 200)]:
        _sampler(skip=[rng]).load_state_dict(state)


# --------------------------------------- (b) a larger world once the ramp has passed
RAMP = BatchSchedule.ramp(start=16, increment=16, ramp_samples=400, final=128)


def test_a_ramp_job_resumes_on_a_world_larger_than_its_first_sizes() -> None:
    """W=8, b=4 (32 per micro-step) cannot run the 16/48/80/112 steps, but can after."""
    small = [_sampler(world=2, rank=r, schedule=RAMP, global_batch_size=None) for r in range(2)]
    ok_from = next(s for s in itertools.count() if RAMP.first(s) > 400)  # the ramp is over
    state = json.loads(json.dumps(small[0].state_dict(step=ok_from + 2)))
    wide = [_sampler(world=8, rank=r, schedule=RAMP, global_batch_size=None) for r in range(8)]
    for sampler in wide:
        sampler.load_state_dict(state)  # refused at construction before
    got = sorted(i for s in wide for i in _step(s, ok_from + 2))
    assert got == sorted(i for r in small[0].indices_at(ok_from + 2).ranks for i in r)
    assert wide[0].accumulation_steps(ok_from + 2) == 4


def test_a_larger_world_is_refused_where_the_resume_point_needs_a_size_it_cannot_split() -> None:
    state = _sampler(world=2, schedule=RAMP, global_batch_size=None).state_dict(step=3)
    wide = _sampler(world=8, schedule=RAMP, global_batch_size=None)
    with pytest.raises(ConfigError, match=r"not a multiple of .*from step \d+ on"):
        wide.load_state_dict(state)
    with pytest.raises(ConfigError, match=r"not a multiple of .*from step \d+ on"):
        iter(wide)  # a fresh start at step 0 on that world
    with pytest.raises(ConfigError, match="not a multiple of"):
        wide.accumulation_steps(0)
    with pytest.raises(ConfigError, match="not a multiple of"):  # no step ever fits: refused now
        _sampler(world=8, schedule=BatchSchedule.steps({0: 32, 64: 48}), global_batch_size=None)


# ------------------------------------------------------- (c) Megatron's ramp rounding
def _megatron_replay(start: int, incr: int, ramp: int, final: int, steps: int) -> list[int]:
    """Megatron-LM's RampupBatchsizeNumMicroBatchesCalculator.update, step by step.

    Its lines: ``rampup_samples_per_increment = ramup_samples / num_increments``;
    ``final`` once ``consumed_samples > ramup_samples``, else ``start +
    int(consumed_samples / rampup_samples_per_increment) * increment`` (floats).
    """
    per_increment = ramp / ((final - start) // incr)
    consumed, sizes = 0, []
    for _ in range(steps):
        size = final if consumed > ramp else start + int(consumed / per_increment) * incr
        sizes.append(size)
        consumed += size
    return sizes


def _mega(start: int, incr: int, ramp: int, final: int) -> BatchSchedule:
    return BatchSchedule.ramp(
        start=start, increment=incr, ramp_samples=ramp, final=final, rounding="megatron"
    )


def test_megatron_rounding_reproduces_its_calculator_where_the_exact_one_does_not() -> None:
    exact = BatchSchedule.ramp(start=1, increment=1, ramp_samples=9, final=8)
    megatron = _mega(1, 1, 9, 8)
    assert exact.size_after(9) == 8 and megatron.size_after(9) == 7  # 9 / (9 / 7) = 6.999...
    assert megatron.size_after(10) == 8
    differ = 0
    for ramp, k, incr in itertools.product(range(1, 61), range(1, 13), (1, 3)):
        start, final = 2 * incr, 2 * incr + k * incr
        want = _megatron_replay(start, incr, ramp, final, 80)
        sched = BatchSchedule.ramp(
            start=start, increment=incr, ramp_samples=ramp, final=final, rounding="megatron"
        )
        assert [sched.size(s) for s in range(80)] == want, (start, incr, ramp, final)
        # every threshold, not only those a step boundary lands on
        per_increment = ramp / k
        size_at = [
            final if c > ramp else start + int(c / per_increment) * incr for c in range(ramp + 2)
        ]
        changes = [(0, start)] + [
            (c, size_at[c]) for c in range(1, ramp + 2) if size_at[c] != size_at[c - 1]
        ]
        assert list(sched.points) == changes
        assert [sched.first(s) for s in range(80)] == list(itertools.accumulate([0, *want[:-1]]))
        plain = BatchSchedule.ramp(start=start, increment=incr, ramp_samples=ramp, final=final)
        differ += list(plain.points) != changes
    assert differ >= 10  # the grid holds ramps where the two roundings disagree


def test_megatron_rounding_passes_megatrons_own_calculator_cases() -> None:
    """The cases of Megatron-LM's tests/unit_tests/test_num_microbatches_calculator.py."""
    # RampupBatchsizeNumMicroBatchesCalculator(32, 8, 2, False, 0, 16, 16, 48): one
    # micro-batch of 8 on 2 ranks, global batch 16 at the start.
    sched = _mega(16, 16, 48, 32)
    inner = fairshard.DistributedSampler(N, num_replicas=2, rank=0)
    assert StepSampler(inner, micro_batch_size=8, schedule=sched).accumulation_steps(0) == 1
    assert sched.size(0) == 16
    # test_ramp_up: [16, 16, 96] to 32 -- the consumed samples after each step.
    sched = _mega(16, 16, 96, 32)
    want = [0, 16, 32, 48, 64, 80, 96, 128, 160, 192, 224, 256]
    assert [sched.first(s) for s in range(len(want))] == want
    # test_update_num_microbatches: [16, 8, 96] to 32, micro 4 on 2 ranks: 2, then 3 at 48.
    sched = _mega(16, 8, 96, 32)
    assert sched.size_after(0) // 8 == 2 and sched.size_after(48) // 8 == 3
    assert sched.size_after(49) % 16  # 24: Megatron's consistency check fails for micro 8
    with pytest.raises(ConfigError, match="rounding must be one of"):
        BatchSchedule.ramp(start=1, increment=1, ramp_samples=9, final=8, rounding="float")


# ---------------------------------------------------------------- (d) locality order
def test_the_locality_order_runs_under_a_step_sampler_and_keeps_its_windows() -> None:
    block, window = 8, 4
    span = block * window

    def make(world: int, rank: int, **kw: Any) -> StepSampler:
        inner = fairshard.DistributedSampler(
            N, world, rank, seed=3, order="locality", block_size=block, window=window
        )
        return StepSampler(inner, micro_batch_size=2, global_batch_size=G, **kw)

    view = make(4, 0).indices_at(0)
    assert view.global_batch_size == G
    stream = [i for s in range(3 * N // G) for r in make(1, 0).indices_at(s).ranks for i in r]
    for epoch in range(2):  # within an epoch, each span of the stream reads <= 2 windows of blocks
        part = stream[epoch * N : (epoch + 1) * N]
        assert sorted(part) == list(range(N))
        for at in range(0, N - span, span // 2):
            assert len({i // block for i in part[at : at + span]}) <= 2 * window
    # the steps are the same on any world size, and resume on another one
    for s in (0, 7, 70):
        one = sorted(make(1, 0).indices_at(s).ranks[0])
        assert sorted(i for r in make(4, 0).indices_at(s).ranks for i in r) == one
    state = json.loads(json.dumps(make(4, 1).state_dict(step=40)))
    resumed = make(2, 1)
    resumed.load_state_dict(state)
    assert _step(resumed, 40) == make(1, 0).indices_at(40, num_replicas=2).ranks[1]


# --------------------------------------------------- (e) the calls of an epoch loop
def test_set_epoch_and_len_name_what_to_do_instead() -> None:
    sampler = _sampler()
    with pytest.raises(AttributeError, match="no epochs") as err:
        sampler.set_epoch(1)  # type: ignore[attr-defined]
    assert isinstance(err.value, ConfigError)
    assert "start_step" in str(err.value) and "with_epoch" in str(err.value)
    assert not hasattr(sampler, "set_epoch")  # so a framework's epoch loop leaves it alone
    with pytest.raises(ConfigTypeError, match="endless") as len_err:
        len(sampler)
    assert "max_steps" in str(len_err.value) and "accumulation_steps" in str(len_err.value)
    assert bool(sampler)  # truth tests do not ask for a length
    loader = DataLoader(range(N), batch_size=4, sampler=sampler)
    with pytest.raises(TypeError, match="endless"):  # frameworks catch TypeError: no length
        len(loader)
    assert next(iter(loader)).tolist() == sampler.indices_at(0).ranks[0][:4]
    with pytest.raises(AttributeError, match="no_such"):
        sampler.no_such  # type: ignore[attr-defined]  # noqa: B018


# ------------------------------------------------ the fast path keeps its promises
def test_a_plan_change_mid_step_takes_effect_at_the_next_step_of_a_chunk_read_ahead() -> None:
    """The stream reads many steps ahead in one list; a change cuts it at the step's end."""
    import gc
    import pickle

    def make() -> Any:
        return fairshard.OnlineMixtureSampler(
            [500, 200, 50], [1, 1, 1], num_samples=750, num_replicas=1, rank=0, seed=0
        )

    inner = make()
    steps = StepSampler(inner, micro_batch_size=4, global_batch_size=16)
    stream = iter(steps)
    before = [next(stream) for _ in range(16 * 9 + 6)]  # into step 9, many steps evaluated
    epoch, position = steps.epoch_position(10)
    inner.update_weights([0, 0, 1], epoch=epoch, position=position)
    rest = [next(stream) for _ in range(10 + 16 * 2)]
    assert before + rest[:10] == [i for s in range(10) for i in steps.indices_at(s).ranks[0]]
    assert all(i >= 700 for i in rest[10:])  # steps 10 and 11: only the third source
    assert rest[10:] == steps.indices_at(10).ranks[0] + steps.indices_at(11).ranks[0]
    assert steps.consumed_samples == 12 * 16
    # the watchers are held weakly and outside the sampler
    pickle.loads(pickle.dumps(inner))
    del steps, stream
    gc.collect()
    inner.update_weights([1, 1, 1], epoch=epoch, position=position + 64)
