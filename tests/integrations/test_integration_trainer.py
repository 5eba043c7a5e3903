"""transformers.Trainer with fairshard samplers, on 2 CPU processes under ``torchrun``.

A plain ``Trainer`` hands its loader to ``accelerator.prepare``, which shards a
fairshard sampler's share again (refused at the first batch), and on resume
it skips the consumed batches by drawing them. ``FairshardTrainer`` keeps the
shares, saves each rank's loader state in every checkpoint and restores it
instead of the skip. One launch checks: training shares exact and reshuffled
(index sampler with 2 loader workers, batch sampler), the learning-rate
schedule ending with the last step, a mid-epoch resume that trains exactly
the rest of the run and reads only those rows, evaluation scoring every
sample once through ``gather_for_metrics``, and loud refusals (a plain
Trainer, a checkpoint without loader states, another accumulation, another
world size).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fairshard import ConfigTypeError, DistributedSampler, LengthBucketBatchSampler

from .._dist import free_port
from .._launch import child_env, failure_text, run_job

pytest.importorskip(
    "transformers", reason="the [integrations] extra (transformers) is not installed"
)
pytest.importorskip("torchdata", reason="the [integrations] extra (torchdata) is not installed")

SCRIPT = Path(__file__).parent / "scripts" / "trainer_job.py"
N = 46
LENGTHS = [1 + (5 * i) % 11 for i in range(N)]
CONSUMED = 3 * 2 * 2  # checkpoint-3: 3 optimizer steps x 2 accumulated batches x 2 rows


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("trainer")
    launch = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node=2",
        f"--master-port={free_port()}",
        str(SCRIPT),
        str(out),
    ]
    proc = run_job(launch, env=child_env(), timeout=280)
    assert proc.returncode == 0, failure_text(proc)
    single = run_job(
        [sys.executable, str(SCRIPT), str(out), "single"],
        env=child_env(),
        timeout=120,
    )
    assert single.returncode == 0, failure_text(single)
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]
    return {"ranks": ranks, "single": json.loads((out / "single.json").read_text())}


def _share(name: str, rank: int, epoch: int) -> list[int]:
    if name == "index":
        sampler: Any = DistributedSampler(N, 2, rank, seed=7)
    else:
        sampler = LengthBucketBatchSampler(LENGTHS, 2, num_replicas=2, rank=rank, seed=7)
    sampler.set_epoch(epoch)
    return [i for item in sampler for i in (item if isinstance(item, list) else [item])]


@pytest.mark.distributed
@pytest.mark.timeout(420)
@pytest.mark.parametrize("name", ["index", "batch"])
def test_trainer_trains_on_the_shares_and_resumes_exactly(job: dict[str, Any], name: str) -> None:
    ranks = job["ranks"]
    assert [r["world"] for r in ranks] == [2, 2]
    for rank, r in enumerate(ranks):
        full = r["full"][name]
        expected = [_share(name, rank, e) for e in (0, 1)]
        assert full["epochs"] == expected  # the shares as built, epoch by epoch
        assert expected[0] != expected[1]  # Trainer's set_epoch reached the sampler
        assert full["steps"] == 12
        lr = full["lr"]  # linear schedule built from this rank's len(loader)
        assert len(lr) == 12 and lr[-1] == 0.0 and all(a > b for a, b in itertools.pairwise(lr))

        before, after = r["resumed"][name]["before"], r["resumed"][name]["after"]
        assert before["steps"] == 5 and before["epochs"][0] == expected[0][:20]
        # Resumed from checkpoint-3: exactly the rest of the run, nothing skipped by drawing.
        assert after["epochs"] == [expected[0][CONSUMED:], expected[1]]
        assert after["steps"] == 12 and after["lr"] == full["lr"][3:]
        if name == "batch":  # workers=0: the rows this process read are the ones trained
            assert after["reads"] == len(expected[0]) - CONSUMED + len(expected[1])
        # Resumed from checkpoint-6, the end of epoch 0: Trainer's set_epoch(1) comes
        # before the new loader's first pass, and that pass is epoch 1 (not epoch 0 again).
        boundary = r["resumed"][name]["boundary"]
        assert boundary["epochs"] == [expected[1]] and boundary["steps"] == 12
    if name == "index":
        firsts = [set(_share(name, rank, 0)) for rank in range(2)]
        assert not firsts[0] & firsts[1] and len(firsts[0] | firsts[1]) == N


@pytest.mark.distributed
@pytest.mark.timeout(420)
def test_trainer_evaluation_scores_every_sample_once(job: dict[str, Any]) -> None:
    for r in job["ranks"]:  # compute_metrics sees the gathered predictions on every rank
        assert sorted(r["eval"]["ids"]) == list(range(101)) and r["eval"]["n"] == 101


@pytest.mark.distributed
@pytest.mark.timeout(420)
def test_trainer_refusals_name_the_fix(job: dict[str, Any]) -> None:
    for r in job["ranks"]:
        assert r["refused"].startswith("ConfigError: accelerate's prepare() wrapped")
        assert "FairshardTrainer(..., train_sampler=...)" in r["refused"]
        assert "was not written by FairshardTrainer" in r["foreign"]
        assert "ignore_data_skip=True" in r["foreign"]
        assert "after 6 batches" in r["accumulation"] and "after 3" in r["accumulation"]
        assert "TrainingArguments(dataloader_num_workers=2)" in r["workers"]
    single = job["single"]["error"]
    assert "written by 2 processes and this job runs 1" in single
    assert "Resume on 2 processes" in single


def test_train_sampler_must_be_a_fairshard_sampler() -> None:
    from fairshard.integrations.transformers import _resolve

    with pytest.raises(ConfigTypeError, match=r"train_sampler=.*got RandomSampler"):
        _resolve(
            lambda ds: __import__("torch").utils.data.RandomSampler(ds), range(4), "train_sampler"
        )
    built = _resolve(lambda ds: DistributedSampler(len(ds), 1, 0), range(4), "train_sampler")
    assert isinstance(built, DistributedSampler) and built.n == 4


def test_trainer_loader_takes_trainers_loader_arguments() -> None:
    """FairshardTrainer's loader is built with what Trainer's own loader is built with.

    Trainer seeds its loader workers with ``seed_worker`` (``worker_init_fn``)
    and passes ``in_order``; both reach the DataLoader accelerate iterates.
    """
    import torch
    from transformers import Trainer, TrainingArguments

    from fairshard.integrations.transformers import FairshardTrainer

    args = TrainingArguments(
        output_dir="unused",
        use_cpu=True,
        per_device_train_batch_size=2,
        dataloader_num_workers=2,
        dataloader_prefetch_factor=3,
        dataloader_in_order=False,
        report_to=[],
    )
    data = [{"x": torch.tensor([float(i)]), "labels": torch.tensor(0.0)} for i in range(8)]
    model = torch.nn.Linear(1, 1)
    own = Trainer(model=model, args=args, train_dataset=data).get_train_dataloader()
    ours = FairshardTrainer(
        model=model,
        args=args,
        train_dataset=data,
        train_sampler=lambda ds: DistributedSampler(len(ds), 1, 0),
    ).get_train_dataloader()
    theirs, mine = own.base_dataloader, ours.base_dataloader
    for name in ("num_workers", "prefetch_factor", "in_order", "pin_memory", "generator"):
        assert getattr(mine, name) == getattr(theirs, name), name
    init = mine.worker_init_fn
    assert init is not None and init.func is theirs.worker_init_fn.func, init
    assert init.keywords == theirs.worker_init_fn.keywords
