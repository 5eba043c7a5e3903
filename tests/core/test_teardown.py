"""Tearing the process group down right after a fairshard collective never hangs.

On torch before 2.9 a gloo worker thread can still be letting go of a
finished collective's tensors when ``destroy_process_group()`` joins it while
holding the GIL; if the thread holds the last reference, it needs the GIL too
and both wait forever (``_distributed/collectives.py``, its NOTE). On torch
2.1 that hung about one teardown in ten right after ``verify``,
``gather_in_order`` or a plain ``all_gather_object``. fairshard keeps the
tensors of its collectives referenced, so every one of its collectives, each
followed at once by a teardown, many times over, finishes on every torch.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import torch
import torch.distributed as dist

import fairshard
from fairshard._distributed.collectives import _RETAIN, RETAINED, _retained, retain

from .._dist import free_port, run_ranks

REPS = 8


def _call(name: str, rank: int) -> Any:
    """One public entry point that makes a collective; its result, to check it worked."""
    if name == "verify":
        fingerprint = fairshard.verify(fairshard.DistributedSampler(100, seed=0), timeout=30)
        return fingerprint["rank"], fingerprint["len"]
    if name == "gather_in_order_dst":
        sampler = fairshard.DistributedEvalSampler(101)
        out = fairshard.gather_in_order(torch.tensor(list(sampler)), sampler, dst=0, timeout=30)
        return None if out is None else out.tolist() == list(range(101))
    if name == "gather_in_order_all":
        sampler = fairshard.DistributedEvalSampler(101)
        out = fairshard.gather_in_order(list(sampler), sampler)
        return out == list(range(101))
    if name == "exact_metrics":
        sampler = fairshard.DistributedEvalSampler(10)
        metrics = fairshard.ExactMetrics(2, sampler=sampler)
        idx = torch.tensor(list(sampler))
        metrics.update(torch.nn.functional.one_hot(idx % 2, 2).double(), idx % 2, indices=idx)
        return metrics.compute(timeout=30).accuracy
    if name == "stop_together":
        return len(list(fairshard.stop_together(range(3 + rank))))
    if name == "random_seed":  # seed=None agrees on one seed with a broadcast
        return len(fairshard.DistributedSampler(100, seed=None))
    raise AssertionError(name)


def _teardown_after_each(rank: int, world: int, name: str, ports: list[int]) -> list[Any]:
    dist.destroy_process_group()  # the harness's group; each repetition makes its own
    results = []
    for port in ports:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=world,
            timeout=timedelta(seconds=30),
        )
        results.append(_call(name, rank))
        dist.destroy_process_group()  # at once: no sleep, no barrier
    return results


EXPECTED = {
    "verify": ((0, 50), (1, 50)),
    "gather_in_order_dst": (True, None),
    "gather_in_order_all": True,
    "exact_metrics": 1.0,
    "stop_together": 3,
    "random_seed": 50,
}


@pytest.mark.distributed
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_teardown_right_after_each_collective_finishes(name: str) -> None:
    ports = [free_port() for _ in range(REPS)]
    results = run_ranks(_teardown_after_each, 2, name, ports, timeout=90)
    for rank, values in enumerate(results):
        expected = EXPECTED[name]
        want = expected[rank] if isinstance(expected, tuple) else expected
        assert values == [want] * REPS, (rank, values)


def test_tensors_are_retained_only_where_torch_needs_it_and_boundedly() -> None:
    version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    assert (version < (2, 9)) == _RETAIN
    before = list(_retained)
    try:
        _retained.clear()
        tensors = [torch.tensor([i]) for i in range(RETAINED + 5)]
        for t in tensors:
            retain(t)
        kept = [t for (t,) in _retained]
        # the last few collectives' buffers, the older ones let go; none on a fixed torch
        assert [id(t) for t in kept] == [id(t) for t in (tensors[-RETAINED:] if _RETAIN else [])]
    finally:
        _retained.clear()
        _retained.extend(before)
