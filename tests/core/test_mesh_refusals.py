"""A model-parallel group is never taken as the sampler's data-parallel group.

On a ``dp x tp`` mesh, ``group=mesh["tp"]`` gives the tensor-parallel peers
of one model different shares, which they must not have (they compute one
model on one batch). Told apart locally, without any collective, from the
mesh's dim names and this process's own groups: a dim named like a
model-parallel or expert-parallel one (``tp``, ``cp``, ``pp``, ``ep``,
``tensor``, ``pipe``...) is refused by name; any group (a mesh dim of
another name, a ``ProcessGroup``) that holds two ranks of one
model-parallel group of this process is refused by its ranks. Every
refusal names ``group=mesh['dp']``. The whole job given explicitly
(``group=dist.group.WORLD``), the data-parallel dims and
``verify(replicas=mesh["tp"])`` stay accepted. ``seed=None`` with a group
smaller than the job is refused for every family; with the whole job it is
agreed on by a broadcast.

One 4-rank gloo job (2 x 2 meshes) runs every case; the pure name rule is
checked in-process.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
import torch
import torch.distributed as dist

import fairshard
from fairshard import ConfigError
from fairshard._distributed.model_parallel import not_data_parallel_dim

from .._dist import run_ranks
from ..catalog import CATALOG

N = 40

NO_DEVICE_MESH = pytest.mark.skipif(
    importlib.util.find_spec("torch.distributed.device_mesh") is None,
    reason="DeviceMesh arrived in torch 2.2 (this torch is the declared floor, 2.1)",
)


@pytest.mark.parametrize(
    "name",
    [
        "tp",
        "TP",
        "cp",
        "pp",
        "sp",
        "etp",
        "mp",
        "ep",
        "tensor",
        "pipe",
        "pipeline",
        "context",
        "expert",
        "model",
        "tensor_parallel",
        "pipeline-parallel",
        "context_parallel",
        "expert_parallel",
    ],
)
def test_model_and_expert_parallel_names_are_not_data_dims(name: str) -> None:
    assert not_data_parallel_dim(name)


@pytest.mark.parametrize(
    "name",
    ["dp", "dp_replicate", "dp_shard", "dp_shard_in_ep", "dp_shard_mod_ep", "data", "batch"],
)
def test_data_parallel_names_pass_the_name_rule(name: str) -> None:
    # dp_shard_in_ep x dp_shard_mod_ep is torchtitan's data-parallel group with
    # experts: never refused for the "ep" inside its name.
    assert not_data_parallel_dim(name) is None


def _refusal(build: Any, *args: Any, **kwargs: Any) -> str:
    """The ConfigError ``build(*args, **kwargs)`` raises, or ``"accepted"``."""
    try:
        build(*args, **kwargs)
    except ConfigError as exc:
        return str(exc)
    return "accepted"


def _families() -> dict[str, Any]:
    """Every catalog family (index, batch, packing, mixture, streams) plus eval with a seed."""
    out = {name: fam.make for name, fam in CATALOG.items() if name != "eval"}
    out["eval"] = lambda n, r, w, **k: fairshard.DistributedEvalSampler(n, w, r, **k)
    out["eval-shuffled"] = lambda n, r, w, **k: fairshard.DistributedEvalSampler(
        n, w, r, shuffle=True, **k
    )
    out["steps"] = lambda n, r, w, **k: fairshard.StepSampler(
        fairshard.DistributedSampler(n, w, r, **k), micro_batch_size=2, global_batch_size=8
    )
    return out


def refusals_job(rank: int, world: int) -> dict[str, Any]:
    from torch.distributed.device_mesh import init_device_mesh

    out: dict[str, Any] = {}
    families = _families()
    a = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    # A model-parallel mesh dim as the data group: every family, the evaluation helpers.
    out["tp"] = {f: _refusal(make, N, None, None, group=a["tp"]) for f, make in families.items()}
    sampler = fairshard.DistributedEvalSampler(N, group=a["dp"])
    share = torch.tensor(list(sampler))
    out["gather-tp"] = _refusal(lambda: fairshard.gather_in_order(share, sampler, group=a["tp"]))
    out["metrics-tp"] = _refusal(lambda: fairshard.ExactMetrics(3, sampler, group=a["tp"]))
    # Flattened with the tp dim (refused before any group is made), and as a ProcessGroup.
    out["dp+tp"] = _refusal(lambda: fairshard.DistributedSampler(N, group=a["dp", "tp"]))
    out["tp-pg"] = _refusal(lambda: fairshard.DistributedSampler(N, group=a["tp"].get_group()))
    # What stays accepted: the data-parallel dim (mesh or ProcessGroup), the whole job
    # given explicitly, replicas=mesh["tp"] in verify.
    accepted = {
        "dp": lambda: fairshard.DistributedSampler(N, seed=1, group=a["dp"]),
        "dp-pg": lambda: fairshard.DistributedSampler(N, seed=1, group=a["dp"].get_group()),
        "world": lambda: fairshard.DistributedSampler(N, seed=1, group=dist.group.WORLD),
        "verify": lambda: fairshard.verify(
            fairshard.DistributedSampler(N, seed=1, group=a["dp"]), replicas=a["tp"]
        ),
        "verify-pg": lambda: fairshard.verify(
            fairshard.DistributedSampler(N, seed=1, group=a["dp"]), replicas=a["tp"].get_group()
        ),
        "gather-dp": lambda: fairshard.gather_in_order(share, sampler, group=a["dp"]),
    }
    out["accepted"] = {k: _refusal(f) for k, f in accepted.items()}
    # seed=None: refused for every family on a group smaller than the job ...
    out["seed-dp"] = {
        f: _refusal(make, N, None, None, seed=None, group=a["dp"]) for f, make in families.items()
    }
    # ... agreed on by a broadcast when the group is the whole job.
    whole = init_device_mesh("cpu", (4, 1), mesh_dim_names=("dp", "tp"))
    out["seed-whole"] = {
        "mesh": fairshard.DistributedSampler(N, seed=None, group=whole["dp"]).seed,
        "world": fairshard.DistributedSampler(N, seed=None, group=dist.group.WORLD).seed,
    }
    # Megatron's groups carry their kind in the description; any ProcessGroup holding two
    # ranks of one of them is refused (here across dp, so that no mesh group says it).
    megatron = [
        dist.new_group(r, group_desc="TENSOR_MODEL_PARALLEL_GROUP") for r in ([0, 2], [1, 3])
    ]
    mine = megatron[rank % 2]
    out["megatron-pg"] = _refusal(fairshard.ShardedIterable, list(range(N)), group=mine)
    # Other model-parallel names, and a dim whose name hides its replicas: torchtitan's
    # flattened dp_cp holds this process's cp peers (the rank rule, on a mesh).
    b = init_device_mesh("cpu", (2, 2), mesh_dim_names=("pp", "dp"))
    out["pp"] = _refusal(lambda: fairshard.DistributedSampler(N, seed=1, group=b["pp"]))
    out["pp-dp"] = _refusal(lambda: fairshard.DistributedSampler(N, seed=1, group=b["dp"]))
    c = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "cp"))
    c["dp", "cp"]._flatten("dp_cp")
    out["dp_cp"] = _refusal(lambda: fairshard.DistributedSampler(N, seed=1, group=c["dp_cp"]))
    d = init_device_mesh("cpu", (2, 2), mesh_dim_names=("pipe", "ep"))
    out["pipe"] = _refusal(lambda: fairshard.DistributedSampler(N, seed=1, group=d["pipe"]))
    out["ep"] = _refusal(lambda: fairshard.DistributedSampler(N, seed=1, group=d["ep"]))
    return out


@NO_DEVICE_MESH
@pytest.mark.distributed
def test_model_parallel_groups_are_refused_as_the_data_group() -> None:
    results = run_ranks(refusals_job, 4, timeout=300, pg_timeout=200)
    for g, r in enumerate(results):
        for family, message in r["tp"].items():
            assert "group=mesh['tp']" in message and "group=mesh['dp']" in message, (
                g,
                family,
                message,
            )
        for key in ("gather-tp", "metrics-tp"):
            assert "group=mesh['tp']" in r[key] and "group=mesh['dp']" in r[key], (key, r[key])
        assert "group=mesh['dp', 'tp']" in r["dp+tp"] and "group=mesh['dp']" in r["dp+tp"]
        tp_peers, megatron_peers = [g - g % 2, g - g % 2 + 1], [g % 2, g % 2 + 2]
        for key, kind, peers in (
            ("tp-pg", "group tp", tp_peers),
            ("megatron-pg", "group TENSOR_MODEL_PARALLEL_GROUP", megatron_peers),
        ):
            assert f"global ranks {peers}" in r[key] and kind in r[key], (key, r[key])
            assert "group=mesh['dp']" in r[key], (key, r[key])
        assert r["accepted"] == dict.fromkeys(r["accepted"], "accepted")
        for family, message in r["seed-dp"].items():
            assert "seed=None" in message and "pass seed= an int" in message, (family, message)
        assert "group=mesh['pp']" in r["pp"] and "group=mesh['dp']" in r["pp"]
        assert r["pp-dp"] == "accepted"
        assert "cp" in r["dp_cp"] and "group=mesh['dp']" in r["dp_cp"], r["dp_cp"]
        assert "group=mesh['pipe']" in r["pipe"] and "group=mesh['ep']" in r["ep"]
    seeds = {tuple(sorted(r["seed-whole"].items())) for r in results}
    assert len(seeds) == 1  # one agreed seed per sampler across the job
