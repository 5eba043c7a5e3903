import os
from typing import Any

import pytest
import torch.utils.data as tud

from fairshard import ConfigTypeError, DistributedEvalSampler, DistributedSampler, verify
from fairshard._distributed.verify import fingerprint
from fairshard._errors import RankMismatchError

from .._dist import run_ranks


def _caught(fn: Any) -> str:
    try:
        fn()
    except RankMismatchError as exc:
        return str(exc)
    return "no error"


def _scenarios(rank: int, world_size: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    good = DistributedSampler(1003, seed=5)
    out["good"] = verify(good)
    out["eval_uneven"] = verify(DistributedEvalSampler(1003))["len"]
    seeded = DistributedSampler(1003, seed=1 if rank == 2 else 0)
    out["seed"] = _caught(lambda: verify(seeded))
    epoch = DistributedSampler(1003)
    epoch.set_epoch(1 if rank == 3 else 0)
    out["epoch"] = _caught(lambda: verify(epoch))
    same_rank = DistributedSampler(1003, num_replicas=world_size, rank=0)
    out["rank"] = _caught(lambda: verify(same_rank))
    out["world"] = _caught(lambda: verify(DistributedSampler(1003, num_replicas=2, rank=rank % 2)))
    size = DistributedSampler(1000 if rank == 1 else 1003)
    out["size"] = _caught(lambda: verify(size))
    # A sampler of a data-parallel sub-group is verified against that group.
    import torch.distributed as dist

    halves = [dist.new_group([0, 1]), dist.new_group([2, 3])]
    mine = halves[rank // 2]
    sub = DistributedSampler(1003, num_replicas=2, rank=rank % 2, seed=rank // 2)
    out["group"] = verify(sub, group=mine)["rank"]
    odd = DistributedSampler(1003, num_replicas=2, rank=rank % 2, seed=1 if rank == 3 else 0)
    out["group_bad"] = _caught(lambda: verify(odd, group=mine))
    theirs = tud.DistributedSampler(range(100), seed=7 if rank == 0 else 0)
    out["torch"] = _caught(lambda: verify(theirs))
    os.environ["FAIRSHARD_VERIFY"] = "1"
    try:
        env = DistributedSampler(1003, seed=9 if rank == 3 else 0)
        out["env"] = _caught(lambda: next(iter(env)))
        out["env_ok"] = next(iter(DistributedSampler(1003, seed=4)))
    finally:
        del os.environ["FAIRSHARD_VERIFY"]
    return out


@pytest.mark.distributed
def test_verify_on_four_gloo_ranks() -> None:
    results = run_ranks(_scenarios, 4, timeout=180)
    for rank, out in enumerate(results):
        assert out["good"]["rank"] == rank and out["good"]["seed"] == 5
        assert out["eval_uneven"] in (250, 251)
        assert out["seed"].startswith("ranks disagree on the sampler's seed:")
        assert "ranks [0, 1, 3] have seed=0; rank 2 has seed=1" in out["seed"]
        assert "never seed=rank" in out["seed"]
        assert "ranks [0, 1, 2] have epoch=0; rank 3 has epoch=1" in out["epoch"]
        assert "process ranks [1, 2, 3] built their samplers with rank=[0, 0, 0]" in out["rank"]
        assert "num_replicas=2 but the process group has 4 ranks" in out["world"]
        assert out["group"] == rank % 2
        if rank < 2:
            assert out["group_bad"] == "no error"
        else:
            assert "rank 0 has seed=0; rank 1 has seed=1" in out["group_bad"]
        assert "sampler's config field 'n'" in out["size"]
        assert "ranks [0, 2, 3] have n=1003; rank 1 has n=1000" in out["size"]
        assert "ranks [1, 2, 3] have seed=0; rank 0 has seed=7" in out["torch"]
        assert "rank 3 has seed=9" in out["env"]
        assert isinstance(out["env_ok"], int)
    assert len({r["good"]["plan"] for r in results}) == 1
    assert len({r["good"]["first"] for r in results}) == 4


def test_verify_without_process_group_returns_fingerprint() -> None:
    s = DistributedSampler(10, num_replicas=2, rank=1, seed=3)
    fp = verify(s)
    assert fp == fingerprint(s)
    s.set_epoch(2)
    assert verify(s)["epoch"] == 2 and verify(s)["plan"] != fp["plan"]
    theirs = verify(tud.DistributedSampler(range(10), num_replicas=2, rank=1))
    assert theirs["kind"] == "torch.utils.data.distributed.DistributedSampler"
    with pytest.raises(ConfigTypeError, match=r"verify\(\) needs a fairshard sampler.*list"):
        verify([1, 2, 3])


def test_fingerprint_samples_large_plans_cheaply() -> None:
    fp = fingerprint(DistributedSampler(10**12, num_replicas=8, rank=3))
    assert fp["plan_length"] == 10**12 and fp["len"] == 125_000_000_000


def test_compare_names_a_rank_whose_share_differs() -> None:
    from fairshard._distributed.verify import _compare

    samplers = [DistributedSampler(103, num_replicas=3, rank=r, seed=1) for r in range(3)]
    gathered = [fingerprint(s) for s in samplers]
    _compare(gathered[0], gathered, samplers[0])  # agree: no error
    bad = [dict(fp) for fp in gathered]
    bad[2]["first"] = gathered[1]["first"]
    with pytest.raises(RankMismatchError, match="rank 2's first items differ"):
        _compare(bad[0], bad, samplers[0])
    bad = [dict(fp) for fp in gathered]
    bad[1]["len"] = 30
    with pytest.raises(RankMismatchError, match="rank 1 has len=30"):
        _compare(bad[0], bad, samplers[0])
