"""Lightning Trainer (CPU, 2 DDP processes) with fairshard samplers, default flags.

fairshard's index samplers are ``torch.utils.data.DistributedSampler``
subclasses, so Lightning's default ``use_distributed_sampler=True`` leaves
them in place (no ``DistributedSamplerWrapper``) and calls their
``set_epoch`` itself: every rank sees exactly its fairshard share of every
epoch, for training (``DistributedSampler``, ``WeightedSampler``) and
validation (``DistributedEvalSampler``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader

import fairshard
from fairshard import ConfigError, DistributedEvalSampler, DistributedSampler, WeightedSampler
from fairshard._batching.base import BatchPlanSampler
from fairshard.integrations import check_lightning
from tests.catalog import batch_families, sampler_families

from .._launch import child_env, failure_text, run_job

FAMILIES = {f.name: f.make for f in sampler_families()}


fabric_distributed = pytest.importorskip("lightning.fabric.utilities.distributed")

SCRIPT = Path(__file__).parent / "scripts" / "lightning_job.py"
N = 50


def _run_job(tmp_path: Path, mode: str) -> list[dict[str, Any]]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join(
            [str(Path(fairshard.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
        ),
    }
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_PORT"):
        env.pop(name, None)
    proc = run_job(
        [sys.executable, str(SCRIPT), str(tmp_path), mode],
        env=env,
        timeout=240,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, failure_text(proc)
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]


def _expected(make: Any, epoch: int) -> list[list[int]]:
    shares = []
    for rank in range(2):
        sampler = make(rank)
        sampler.set_epoch(epoch)
        shares.append(list(sampler))
    return shares


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_default_trainer_gives_every_rank_exactly_its_fairshard_share(tmp_path: Path) -> None:
    ranks = _run_job(tmp_path, "default")
    assert [r["world"] for r in ranks] == [2, 2]
    for r in ranks:
        assert r["check"] == "ok"
        # Lightning left the samplers as built: no DistributedSamplerWrapper.
        assert r["samplers"] == {"plain": "DistributedSampler", "weighted": "WeightedSampler"}
    makers = {
        "plain": lambda rank: DistributedSampler(N, 2, rank, seed=3),
        "weighted": lambda rank: WeightedSampler(
            torch.arange(1.0, N + 1), num_replicas=2, rank=rank, seed=5
        ),
        "val": lambda rank: DistributedEvalSampler(N, 2, rank),
    }
    for name, make in makers.items():
        for epoch in (0, 1):
            seen = [r["seen"][name][str(epoch)] for r in ranks]
            # Lightning called set_epoch(epoch) on our sampler: exactly its share.
            assert seen == _expected(make, epoch if name != "val" else 0), (name, epoch)
    for epoch in ("0", "1"):
        plain = [r["seen"]["plain"][epoch] for r in ranks]
        assert sorted(plain[0] + plain[1]) == list(range(N))  # disjoint, every sample once
        val = [r["seen"]["val"][epoch] for r in ranks]
        assert sorted(val[0] + val[1]) == list(range(N))  # evaluation: exactly once
    assert ranks[0]["seen"]["plain"]["0"] != ranks[0]["seen"]["plain"]["1"]


def _trainer(loader: DataLoader[Any], world: int = 2, rank: int = 0) -> Any:
    return SimpleNamespace(train_dataloader=loader, world_size=world, global_rank=rank)


def test_check_lightning_in_process() -> None:
    data = list(range(N))
    sampler = DistributedSampler(N, 2, 0)
    check_lightning(_trainer(DataLoader(data, sampler=sampler)))  # as built: fine
    # Lightning no longer wraps fairshard samplers; one wrapped by hand is still caught.
    wrapped = fabric_distributed.DistributedSamplerWrapper(sampler, num_replicas=2, rank=0)
    with pytest.raises(ConfigError, match="which shards its share again"):
        check_lightning(_trainer(DataLoader(data, sampler=wrapped)))
    lonely = DistributedSampler(N, 1, 0)  # built before the processes existed
    with pytest.raises(
        ConfigError,
        match=r"num_replicas=1, rank=0 but the trainer runs world_size=2",
    ):
        check_lightning(_trainer(DataLoader(data, sampler=lonely)))
    check_lightning(_trainer(DataLoader(data)))  # not a fairshard sampler: not checked
    check_lightning(SimpleNamespace(train_dataloader=None, world_size=2, global_rank=0))


def test_lightning_keeps_fairshard_samplers_and_refuses_to_rewrap_batch_samplers() -> None:
    from lightning.pytorch.trainer.connectors.data_connector import _DataConnector
    from lightning.pytorch.utilities.data import _update_dataloader

    connector = SimpleNamespace(
        trainer=SimpleNamespace(
            _accelerator_connector=SimpleNamespace(
                use_distributed_sampler=True, is_distributed=True
            )
        )
    )
    from lightning.fabric import Fabric

    needs = _DataConnector._requires_distributed_sampler
    fabric = SimpleNamespace(strategy=SimpleNamespace(distributed_sampler_kwargs={}))
    for sampler in (
        DistributedSampler(N, 2, 0),
        DistributedEvalSampler(N, 2, 0),
        WeightedSampler([1.0] * N, num_replicas=2, rank=0),
    ):
        loader = DataLoader(list(range(N)), sampler=sampler)
        assert not needs(connector, loader)  # type: ignore[arg-type]
        assert not Fabric._requires_distributed_sampler(fabric, loader)  # type: ignore[arg-type]
    plain = DataLoader(list(range(N)), shuffle=True)
    assert needs(connector, plain) and Fabric._requires_distributed_sampler(fabric, plain)  # type: ignore[arg-type]
    # A fairshard batch sampler: the loader's sampler is PyTorch's placeholder
    # SequentialSampler, so Lightning wants to inject its own and, unable to,
    # fails loudly (never silently): use_distributed_sampler=False is needed.
    for batches in (
        fairshard.LengthBucketBatchSampler([1] * N, 4, num_replicas=2, rank=0),
        fairshard.TokenBudgetBatchSampler([1] * N, max_tokens=8, num_replicas=2, rank=0),
        fairshard.ClassBatchSampler(
            [0, 1] * (N // 2), classes_per_batch=2, samples_per_class=2, num_replicas=2, rank=0
        ),
    ):
        loader = DataLoader(list(range(N)), batch_sampler=batches)
        assert needs(connector, loader)  # type: ignore[arg-type]
        with pytest.raises((TypeError, ValueError)):
            _update_dataloader(loader, torch.utils.data.DistributedSampler(range(N), 2, 0))


BATCH_SCRIPT = Path(__file__).parent / "scripts" / "lightning_batch_job.py"
LENGTHS = [1 + (5 * i) % 11 for i in range(80)]


def _launch(tmp_path: Path, mode: str, timeout: int) -> subprocess.CompletedProcess[str]:
    # Lightning's own launcher: `python script.py`, devices=2 (it starts the second process).
    return run_job(
        [sys.executable, str(BATCH_SCRIPT), str(tmp_path), mode],
        env=child_env(),
        timeout=timeout,
        cwd=tmp_path,
    )


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_batch_sampler_reshuffles_and_exact_resume_under_lightnings_launcher(
    tmp_path: Path,
) -> None:
    proc = _launch(tmp_path, "resume", 240)
    assert proc.returncode == 0, failure_text(proc)
    for rank in range(2):
        seen = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert seen["world"] == 2
        expected = []
        for epoch in (0, 1):
            batches = fairshard.LengthBucketBatchSampler(
                LENGTHS, 4, seed=6, num_replicas=2, rank=rank
            )
            batches.set_epoch(epoch)
            expected.append(list(batches))
        # phase 1: 5 steps, checkpoint after step 3; phase 2 resumed from it
        assert seen["phase1"]["0"] == expected[0][:5]
        assert seen["phase1"]["0"][:3] + seen["phase2"]["0"] == expected[0]  # exact rest
        # Lightning called set_epoch(1) through loader.batch_sampler.sampler: reshuffled.
        assert seen["phase2"]["1"] == expected[1] != expected[0]


@pytest.mark.distributed
@pytest.mark.timeout(200)
def test_loader_built_before_the_trainer_fails_naming_the_fix_and_ends(tmp_path: Path) -> None:
    start = time.monotonic()
    proc = _launch(tmp_path, "before", 150)  # a hung parent would raise TimeoutExpired
    # An ordinary failure, not Lightning's SIGKILL of the main process (-9, shells say
    # 137, which reads as an out-of-memory kill).
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "ended with exit code 1" in proc.stderr
    assert "WORLD_SIZE=2 but not RANK" in proc.stderr
    assert "build the DataLoader inside LightningModule.train_dataloader()" in proc.stderr
    assert time.monotonic() - start < 150


def test_lightning_sets_the_epoch_of_every_batch_family() -> None:
    from lightning.fabric.utilities.data import _set_sampler_epoch

    checked = []
    for name, make in sorted(FAMILIES.items()):
        sampler = make(60, 0, 2)
        if not isinstance(sampler, BatchPlanSampler):
            continue  # index samplers: loader.sampler, set by Lightning already
        checked.append(name)
        loader = DataLoader(list(range(60)), batch_sampler=sampler)
        _set_sampler_epoch(loader, 3)  # what Lightning's fit loop calls every epoch
        assert sampler.epoch == 3, name
        assert not hasattr(sampler.sampler, "__iter__"), name  # nothing draws through it
    from fairshard._batching.base import EpochLink

    # every batch family the catalog declares, whatever its position in the table
    assert checked == sorted(f.name for f in batch_families())
    link = fairshard.PackingBatchSampler([3] * 20, 8, 2, num_replicas=1, rank=0).sampler
    assert isinstance(link, EpochLink)


def _iterate(rank: int, world: int, *samplers: Any) -> list[str]:
    said = []
    for sampler in samplers:
        try:
            next(iter(sampler))
            said.append("no error")
        except ConfigError as exc:
            said.append(str(exc))
    return said


@pytest.mark.distributed
@pytest.mark.timeout(240)
def test_a_sampler_built_before_the_processes_refuses_its_first_batch() -> None:
    from tests._dist import run_ranks

    guessed = DistributedSampler(N, seed=0)  # no launcher, no process group: one process
    explicit = DistributedSampler(N, num_replicas=1, rank=0)  # said so: left alone
    assert guessed.num_replicas == 1
    for said in run_ranks(_iterate, 2, guessed, explicit, timeout=200):
        assert "built before the processes were started" in said[0]
        assert "world_size=2" in said[0]
        assert said[1] == "no error"
