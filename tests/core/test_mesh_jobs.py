"""Real gloo ``DeviceMesh`` jobs: every family shards by the data-parallel group.

One launch per mesh shape. On dp=2 x tp=2 (4 processes) and on
dp_replicate=2 x dp_shard=2 x tp=2 (8 processes), for every family: one
epoch whose all-gathered ledgers are identical within each tp group and
cover the plan exactly once across the data-parallel ranks (declared
padding and drops aside) in equal steps; ``verify(replicas=mesh["tp"])``
passes, and fails naming the global ranks for a sampler built for the whole
job. The 4-process job also cuts every family mid-epoch, saves one state
(global rank 0's) and resumes it on dp=4 x tp=1 and on dp=1 x tp=4 with
nothing lost or repeated, once through ``torch.distributed.checkpoint``.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.distributed as dist

import fairshard
from fairshard import ConfigError, CoverageSegment, RankMismatchError, check_coverage
from fairshard._distributed.world import all_gather_objects

from .._dist import run_ranks
from ..catalog import CATALOG, sampler_families

pytestmark = [pytest.mark.distributed]

N = 40
#: Every sampler family of the catalog (the streams are checked on their own below).
ALL: dict[str, Callable[..., Any]] = {f.name: f.make for f in sampler_families()}


def _size(name: str) -> int:
    """Dataset indices the family's items range over."""
    return N  # the mixture's sources add up to N too


def _build(name: str, group: Any) -> Any:
    return ALL[name](N, None, None, group=group)  # group= alone sets rank and world


def _check_epoch(name: str, sampler: Any, ledger: list[Any], dp_rank: int, dp_size: int) -> None:
    """All-gather this epoch's ledgers; identical within tp, exactly once across dp."""
    everyone = all_gather_objects((dp_rank, ledger))
    by_dp: dict[int, list[list[Any]]] = {}
    for r, items in everyone:
        by_dp.setdefault(r, []).append(items)
    assert sorted(by_dp) == list(range(dp_size)), name
    for r, copies in by_dp.items():
        assert all(c == copies[0] for c in copies), f"{name}: tp peers of dp rank {r} differ"
    observed = [by_dp[r][0] for r in range(dp_size)]
    part = sampler.partition()
    verdict = check_coverage(sampler.plan(), [CoverageSegment(part, observed)], _size(name))
    assert not verdict["ranks_off_plan"], (name, verdict["ranks_off_plan"])
    assert verdict["positions_missing"] == part.num_dropped(), name
    assert verdict["positions_repeated"] == verdict["declared_padding"], name
    assert verdict["equal_steps"] or part.tail == "uneven", name


def _meshes(shape: tuple[int, ...]) -> tuple[Any, Any, Any]:
    from torch.distributed.device_mesh import init_device_mesh

    if len(shape) == 2:
        mesh = init_device_mesh("cpu", shape, mesh_dim_names=("dp", "tp"))
        return mesh, mesh["dp"], mesh["tp"]
    mesh = init_device_mesh("cpu", shape, mesh_dim_names=("dp_replicate", "dp_shard", "tp"))
    return mesh, mesh["dp_replicate", "dp_shard"], mesh["tp"]


def _epoch_checks(dp: Any, tp: Any) -> dict[str, Any]:
    """Every family on the data-parallel group: one epoch, verify, the global world caught."""
    out: dict[str, Any] = {"steps": {}}
    dp_rank = dp_size = -1
    for name in ALL:
        sampler = _build(name, dp)
        dp_rank, dp_size = sampler.rank, sampler.num_replicas
        fairshard.verify(sampler, replicas=tp)
        ledger = list(sampler)
        _check_epoch(name, sampler, ledger, dp_rank, dp_size)
        out["steps"][name] = len(ledger)
    stream = fairshard.ShardedIterable(list(range(N)), group=dp)
    fairshard.verify(stream, replicas=tp)
    items = list(stream)
    everyone = all_gather_objects((stream.rank, items))
    per_dp = {r: [i for rr, i in everyone if rr == r] for r in range(stream.num_replicas)}
    assert all(all(c == v[0] for c in v) for v in per_dp.values()), "stream: tp peers differ"
    flat = [i for v in per_dp.values() for i in v[0]]
    assert len(flat) == len(set(flat)) == N - N % stream.num_replicas  # tail="drop"
    out["steps"]["stream"] = len(items)
    _evaluation_checks(dp)
    try:
        fairshard.DistributedSampler(N, seed=5)
    except ConfigError as exc:
        out["implicit"] = str(exc)
    whole = fairshard.DistributedSampler(N, seed=5, group=dist.group.WORLD)
    try:
        fairshard.verify(whole, replicas=tp)
    except RankMismatchError as exc:
        out["whole"] = str(exc)
    out["dp"] = (dp_rank, dp_size)
    return out


def _evaluation_checks(dp: Any) -> None:
    """gather_in_order and ExactMetrics in the data-parallel group: tp peers gather alike."""
    sampler = fairshard.DistributedEvalSampler(N, group=dp)
    share = torch.tensor(list(sampler))
    full = fairshard.gather_in_order(share * 10, sampler)  # the sampler's group
    assert full is not None and full.tolist() == [10 * i for i in range(N)]
    to_one = fairshard.gather_in_order(share * 10, sampler, dst=1, group=dp)
    assert (to_one is None) == (sampler.rank != 1)
    metrics = fairshard.ExactMetrics(3, sampler)
    metrics.update(share % 3, share % 2)
    expected = fairshard.ClassificationMetrics.from_labels(
        np.arange(N) % 3, np.arange(N) % 2, num_classes=3
    )
    assert metrics.compute() == expected


def _resume_checks(tmp: str) -> dict[str, Any]:
    """Cut every family mid-epoch on 2 x 2; resume global rank 0's state on 4 x 1 and 1 x 4."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.stateful import Stateful

    _, dp, _ = _meshes((2, 2))
    targets = {shape: _meshes(shape)[1] for shape in ((4, 1), (1, 4))}
    resumed: list[str] = []
    for name in ALL:
        if not CATALOG[name].elastic:  # the blocked layout resumes on its own world size only
            continue
        old = _build(name, dp)
        steps = max(1, len(old) // 3)
        if steps >= len(old):  # a one-step epoch: a state after it is the next epoch's
            steps = 0  # start (tests/core/test_state.py); resume from its beginning instead
        it = iter(old)
        head = [next(it) for _ in range(steps)]
        state = all_gather_objects(old.state_dict())[0]  # one state per job: rank 0's
        heads = {r: h for r, h in all_gather_objects((old.rank, head))}
        old_seg = CoverageSegment(old.partition(), [heads[r] for r in range(old.num_replicas)])
        for shape, new_dp in targets.items():
            new = _build(name, new_dp)
            if name == "distributed" and shape == (4, 1):
                assert isinstance(old, Stateful)
                path = f"{tmp}/dcp"
                dcp.save({"sampler": old}, checkpoint_id=path)  # every rank calls; one state
                dcp.load({"sampler": new}, checkpoint_id=path)
            else:
                new.load_state_dict(state)
            part = new.partition()  # the remainder of the epoch, re-partitioned
            assert part.world_size == new.num_replicas and (part.start > 0 or not steps), name
            rest = list(new)
            everyone = all_gather_objects((new.rank, rest))
            per_dp = {r: [i for rr, i in everyone if rr == r] for r in range(new.num_replicas)}
            assert all(all(c == v[0] for c in v) for v in per_dp.values()), (name, shape)
            new_seg = CoverageSegment(part, [per_dp[r][0] for r in range(new.num_replicas)])
            verdict = check_coverage(old.plan(), [old_seg, new_seg], _size(name))
            assert not verdict["ranks_off_plan"], (name, shape)
            assert verdict["positions_missing"] == part.num_dropped(), (name, shape)
            assert verdict["positions_repeated"] == verdict["declared_padding"], (name, shape)
            resumed.append(f"{name}@{shape[0]}x{shape[1]}")
    return {"resumed": resumed}


def _argument_checks(dp: Any, tp: Any) -> dict[str, str]:
    """Conflicting num_replicas/rank, seed=None on a sub-group, pickling, FAIRSHARD_VERIFY."""
    out = {}
    os.environ["FAIRSHARD_VERIFY"] = "1"
    try:
        list(fairshard.DistributedSampler(N, seed=5, group=dp))  # both checks pass
        peer_seeded = fairshard.DistributedSampler(N, seed=tp.get_local_rank(), group=dp)
        try:
            iter(peer_seeded)  # the dp group agrees; the tp peers do not
        except RankMismatchError as exc:
            out["verify_env"] = str(exc)
    finally:
        del os.environ["FAIRSHARD_VERIFY"]
    for key, kwargs in (("num_replicas", {"num_replicas": 3}), ("rank", {"rank": 5})):
        try:
            fairshard.DistributedSampler(N, seed=5, group=dp, **kwargs)  # type: ignore[arg-type]
        except ConfigError as exc:
            out[key] = str(exc)
    try:
        fairshard.DistributedSampler(N, seed=None, group=dp)
    except ConfigError as exc:
        out["seed"] = str(exc)
    copy = pickle.loads(pickle.dumps(fairshard.DistributedSampler(N, seed=5, group=dp)))
    out["pickled"] = f"{copy.rank}/{copy.num_replicas}"
    return out


def mesh_job(rank: int, world: int, shape: tuple[int, ...], tmp: str) -> dict[str, Any]:
    _, dp, tp = _meshes(shape)
    out = _epoch_checks(dp, tp)
    if len(shape) == 2:
        out.update(_argument_checks(dp, tp))
        out.update(_resume_checks(tmp))
    return out


def _assert_common(results: list[dict[str, Any]], tp: int) -> None:
    for g, r in enumerate(results):
        assert r["dp"] == (g // tp, len(results) // tp)
        assert "group=mesh['dp']" in r["implicit"] and "tp=2" in r["implicit"]
        peers = [g - g % tp + i for i in range(tp)]
        assert f"global ranks {peers}" in r["whole"] and "group=mesh['dp']" in r["whole"]
    assert len({tuple(sorted(r["steps"].items())) for r in results}) == 1  # equal steps


NO_DEVICE_MESH = pytest.mark.skipif(
    importlib.util.find_spec("torch.distributed.device_mesh") is None,
    reason="DeviceMesh arrived in torch 2.2 (this torch is the declared floor, 2.1)",
)


@NO_DEVICE_MESH
def test_dp2_tp2_every_family_one_epoch_verify_and_resume_on_other_meshes(
    tmp_path: Path,
) -> None:
    results = run_ranks(mesh_job, 4, (2, 2), str(tmp_path), timeout=400, pg_timeout=240)
    _assert_common(results, 2)
    first = results[0]
    assert (
        "num_replicas=3 conflicts with group=mesh['dp'], which has 2 ranks" in first["num_replicas"]
    )
    assert "rank=5 conflicts with group=mesh['dp']" in first["rank"]
    assert "seed=None" in first["seed"] and "pass seed= an int" in first["seed"]
    assert [r["pickled"] for r in results] == ["0/2", "0/2", "1/2", "1/2"]
    for g, r in enumerate(results):
        peers = [g - g % 2, g - g % 2 + 1]
        assert f"replicas in mesh['tp'] (global ranks {peers})" in r["verify_env"]
        assert "disagree on seed" in r["verify_env"]
    expected = {f"{n}@{s}" for n in ALL if CATALOG[n].elastic for s in ("4x1", "1x4")}
    assert "eval" not in {n.split("@")[0] for n in expected}  # the blocked layout is not elastic
    assert set(first["resumed"]) == expected


@NO_DEVICE_MESH
@pytest.mark.slow
def test_hsdp_2x2_tp2_every_family_one_epoch_and_verify(tmp_path: Path) -> None:
    results = run_ranks(mesh_job, 8, (2, 2, 2), str(tmp_path), timeout=600, pg_timeout=400)
    _assert_common(results, 2)
