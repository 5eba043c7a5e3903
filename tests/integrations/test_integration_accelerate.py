"""HF accelerate with fairshard samplers, on 2 CPU processes under ``accelerate launch``.

``Accelerator.prepare(loader)`` shards every map-style DataLoader again on
more than one process, whatever its sampler. ``prepare_data_loader`` from
``fairshard.integrations.accelerate`` wraps the loader in accelerate's own
``DataLoaderShard`` without that second sharding. One launch checks: shares
exact and reshuffled every epoch (index and batch samplers), gradient
accumulation's end-of-loader sync, ``gather_for_metrics`` over uneven eval
shares (every sample exactly once), the learning-rate schedule recipe, and a
mid-epoch ``save_state``/``load_state`` that reads only the rest of the
epoch; a fairshard loader passed to ``accelerator.prepare`` is refused at
its first batch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from fairshard import (
    ConfigError,
    ConfigTypeError,
    DistributedSampler,
    LengthBucketBatchSampler,
    StepSampler,
)

from .._dist import free_port
from .._launch import child_env, failure_text, run_job

pytest.importorskip("accelerate", reason="the [integrations] extra (accelerate) is not installed")
pytest.importorskip("torchdata", reason="the [integrations] extra (torchdata) is not installed")

SCRIPT = Path(__file__).parent / "scripts" / "accelerate_job.py"
N = 40
LENGTHS = [1 + (7 * i) % 13 for i in range(N)]


@pytest.fixture(scope="module")
def ranks(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("accelerate")
    cmd = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--multi_gpu",  # with Accelerator(cpu=True): 2 gloo CPU processes
        "--num_processes=2",
        "--num_machines=1",
        "--mixed_precision=no",
        "--dynamo_backend=no",
        f"--main_process_port={free_port()}",  # not 29500: tests run side by side
        str(SCRIPT),
        str(out),
    ]
    proc = run_job(cmd, env=child_env(), timeout=240, cwd=out)
    assert proc.returncode == 0, failure_text(proc)
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


def _share(make: Any, epoch: int) -> list[Any]:
    sampler = make()
    sampler.set_epoch(epoch)
    return [list(b) if isinstance(b, list) else b for b in sampler]


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_prepare_data_loader_keeps_shares_and_everything_accelerate_does(
    ranks: list[dict[str, Any]],
) -> None:
    assert [r["world"] for r in ranks] == [2, 2]
    for rank, r in enumerate(ranks):
        seen = r["helper"]
        assert seen["same"] == [True]  # accelerator.prepare(it) returns it unchanged
        assert set(seen["device"]) == {"cpu"}  # batches placed on accelerator.device
        for epoch in (0, 1):  # accelerate's pass counter drove set_epoch
            plain = [i for b in seen["plain"][epoch] for i in b]
            assert plain == _share(lambda r=rank: DistributedSampler(N, 2, r, seed=4), epoch)
            bucket = LengthBucketBatchSampler(LENGTHS, 3, num_replicas=2, rank=rank, seed=2)
            bucket.set_epoch(epoch)
            assert seen["bucket"][epoch] == list(bucket)
        assert seen["plain"][0] != seen["plain"][1] and seen["bucket"][0] != seen["bucket"][1]
        # gradient_accumulation_steps=4: a sync every 4 batches and at the loader's end
        sync = [False, False, False, True, True] * 2
        assert seen["sync"][:10] == sync
        assert seen["sync"][10:17] == [False, False, False, True, False, False, True]
        assert seen["len"] == [5, 7]
    for epoch in (0, 1):
        both = [i for r in ranks for b in r["helper"]["plain"][epoch] for i in b]
        assert sorted(both) == list(range(N))


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_gather_for_metrics_scores_every_eval_sample_exactly_once(
    ranks: list[dict[str, Any]],
) -> None:
    # 101 samples: 51 and 50 on the two ranks; batch sizes 4, 5 and 51
    for r in ranks:
        for scored in r["eval"].values():
            assert sorted(scored) == list(range(101))
    assert ranks[0]["eval"] == ranks[1]["eval"]


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_the_schedule_recipe_ends_with_the_last_step(ranks: list[dict[str, Any]]) -> None:
    for r in ranks:
        recipe, usual = r["lr"]["recipe"], r["lr"]["usual"]
        assert len(recipe) == len(usual) == 10  # 2 epochs of 5 batches per rank
        assert recipe[-1] == 0.0 and min(recipe[:-1]) > 0.0  # reaches 0 with the last step
        assert recipe == [round(1 - 2 * (k + 1) / 20, 6) for k in range(10)]
        # Built from len(loader) alone, accelerate's scheduler (stepping once per
        # process) reaches 0 after half the training.
        assert usual[4] == 0.0 and usual[3] > 0.0


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_save_state_load_state_resume_mid_epoch_exactly_in_o1(
    ranks: list[dict[str, Any]],
) -> None:
    for rank, r in enumerate(ranks):
        res = r["resume"]
        epoch1 = _share(lambda r=rank: DistributedSampler(N, 2, r, seed=9), 1)
        assert res["before"] + res["after"] == epoch1  # the uninterrupted epoch
        assert res["after"] == res["lost"]  # restarted at the batch after the checkpoint
        assert res["reads"] == len(res["after"])  # nothing consumed was read again
        assert res["next"] == _share(lambda r=rank: DistributedSampler(N, 2, r, seed=9), 2)


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_accelerator_prepare_of_a_fairshard_loader_is_refused(
    ranks: list[dict[str, Any]],
) -> None:
    for r in ranks:
        # Preparing the loader would shard each share again: refused, loudly, at once.
        assert "wrapped this DataLoader in BatchSamplerShard" in r["refused"]
        assert "Do not pass this DataLoader to accelerator.prepare" in r["refused"]
        assert "fairshard.integrations.accelerate.prepare_data_loader" in r["check"]
    # One-process sampler, prepared: accelerate shards it; every epoch covers the data
    # once, in a new order, because accelerate called set_epoch.
    for epoch in range(2):
        shares = [r["global"][epoch] for r in ranks]
        assert sorted(shares[0] + shares[1]) == list(range(N))
    assert ranks[0]["global"][0] != ranks[0]["global"][1]
    assert [r["global_epoch"] for r in ranks] == [1, 1]


@pytest.mark.distributed
@pytest.mark.timeout(300)
def test_accelerate_splits_a_stream_that_holds_one_rank_share_again(
    ranks: list[dict[str, Any]],
) -> None:
    # FS115's premise: each rank's stream holds its own half of the items; prepared, the
    # two ranks read one half of the data between them, no item twice: (W-1)/W is lost.
    read = [i for r in ranks for i in r["twice"]]
    assert len(read) == len(set(read)) == N // 2


def test_prepare_data_loader_refuses_what_it_cannot_keep() -> None:
    from accelerate import Accelerator

    from fairshard.integrations.accelerate import prepare_data_loader

    accelerator = Accelerator(cpu=True)
    with pytest.raises(ConfigError, match="has no fairshard sampler"):
        prepare_data_loader(accelerator, DataLoader(list(range(N))))
    other = DataLoader(list(range(N)), sampler=DistributedSampler(N, 2, 1))
    with pytest.raises(ConfigError, match="built for num_replicas=2, rank=1"):
        prepare_data_loader(accelerator, other)
    with pytest.raises(ConfigTypeError, match="plain torch DataLoader"):
        prepare_data_loader(accelerator, SimpleNamespace())  # type: ignore[arg-type]
    loader = prepare_data_loader(
        accelerator, DataLoader(list(range(N)), batch_size=4, sampler=DistributedSampler(N, 1, 0))
    )
    with pytest.raises(ConfigTypeError, match="prepared already"):
        prepare_data_loader(accelerator, loader)


def test_the_guard_sees_accelerates_wrappers_in_process() -> None:
    from accelerate.data_loader import BatchSamplerShard
    from torch.utils.data import BatchSampler

    for workers in (0, 2):
        sampler = DistributedSampler(N, 2, 0)
        shard = BatchSamplerShard(BatchSampler(sampler, 4, False), num_processes=2)
        with pytest.raises(ConfigError, match="wrapped this DataLoader in BatchSamplerShard"):
            next(iter(DataLoader(list(range(N)), batch_sampler=shard, num_workers=workers)))
    alone = DistributedSampler(N, 1, 0, seed=4)
    shard = BatchSamplerShard(BatchSampler(alone, 4, False), num_processes=2, process_index=1)
    assert len([i for b in shard for i in b]) == N // 2
    single = BatchSamplerShard(BatchSampler(DistributedSampler(N, 2, 0), 4, False))
    assert sorted(i for b in single for i in b) == sorted(DistributedSampler(N, 2, 0))


class _Seeds(Dataset[int]):
    """Each row is the torch seed of the worker that read it."""

    def __len__(self) -> int:
        return N

    def __getitem__(self, i: int) -> int:
        return int(torch.initial_seed())


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("batch", [False, True])
def test_set_epoch_before_the_first_pass_is_the_pass_epoch(workers: int, batch: bool) -> None:
    """``loader.set_epoch(e)`` before the first pass: that pass is epoch ``e``, the next ``e+1``.

    accelerate's wrapper asks its StatefulDataLoader for a state when it is
    built, which draws a pass of the sampler at epoch 0 that the first
    ``iter()`` then reused: epoch ``e`` was never seen.
    """
    from accelerate import Accelerator

    from fairshard.integrations.accelerate import prepare_data_loader

    def make() -> Any:
        if batch:
            return LengthBucketBatchSampler(LENGTHS, 3, num_replicas=1, rank=0, seed=2)
        return DistributedSampler(N, 1, 0, seed=4)

    def epoch_of(e: int) -> list[int]:
        sampler = make()
        sampler.set_epoch(e)
        return [i for b in sampler for i in (b if batch else [b])]

    sampler = make()
    params: dict[str, Any] = {"batch_sampler": sampler} if batch else {"sampler": sampler}
    if not batch:
        params["batch_size"] = 4
    loader = prepare_data_loader(
        Accelerator(cpu=True), DataLoader(list(range(N)), num_workers=workers, **params)
    )
    loader.set_epoch(3)
    assert [i for b in loader for i in b.tolist()] == epoch_of(3)
    assert [i for b in loader for i in b.tolist()] == epoch_of(4)
    assert sampler.epoch == 4


def test_every_dataloader_argument_is_kept() -> None:
    """What the DataLoader was built with reaches accelerate's loader (``generator=`` too).

    The worker seeds come from the loader's ``generator``; dropped, they came
    from the global RNG, so two runs with one generator seed read different
    augmentations.
    """
    import inspect

    from accelerate import Accelerator

    from fairshard.integrations.accelerate import prepare_data_loader

    accelerator = Accelerator(cpu=True)

    def seeds(generator_seed: int, global_seed: int) -> list[int]:
        torch.manual_seed(global_seed)
        generator = torch.Generator().manual_seed(generator_seed)
        loader = DataLoader(
            _Seeds(),
            batch_size=4,
            sampler=DistributedSampler(N, 1, 0),
            num_workers=1,
            generator=generator,
        )
        prepared = prepare_data_loader(accelerator, loader)
        return [i for b in prepared for i in b.tolist()]

    assert seeds(5, 1) == seeds(5, 2)  # the generator decides, not the global RNG
    assert seeds(5, 1) != seeds(6, 1)
    # Every argument a DataLoader keeps, set to something other than its default.
    generator = torch.Generator().manual_seed(1)
    values: dict[str, Any] = {
        "num_workers": 1,
        "collate_fn": collate_rows,
        "pin_memory": False,
        "timeout": 7.0,
        "worker_init_fn": _no_op,
        "multiprocessing_context": "spawn",
        "generator": generator,
        "prefetch_factor": 3,
        "persistent_workers": True,
        "pin_memory_device": "",
        "in_order": False,
    }
    handled = {"self", "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "drop_last"}
    params = set(inspect.signature(DataLoader.__init__).parameters) - handled
    assert params <= set(values), f"a new DataLoader argument to check: {params - set(values)}"
    loader = DataLoader(list(range(N)), batch_size=4, sampler=DistributedSampler(N, 1, 0), **values)
    base = prepare_data_loader(accelerator, loader).base_dataloader
    for name, value in values.items():
        got = getattr(base, name)
        if name == "multiprocessing_context":
            got = got.get_start_method()
        assert got is value or got == value, f"{name}: {got!r} != {value!r}"


def collate_rows(rows: list[Any]) -> Any:
    return rows


def _no_op(worker: int) -> None:
    return None


NLP_SCRIPT = Path(__file__).parent / "scripts" / "accelerate_nlp_job.py"
NLP_N, NLP_EVAL_N = 46, 13  # the job's training and evaluation rows


@pytest.mark.distributed
@pytest.mark.timeout(300)
@pytest.mark.parametrize("workers", [0])
def test_complete_nlp_example_loop_resumes_exactly_and_exits(tmp_path: Path, workers: int) -> None:
    """accelerate's ``complete_nlp_example`` loop, resumed from three step checkpoints.

    Its resume is ``load_state`` and then ``skip_first_batches`` of the
    consumed batches. On a fairshard loader (restored by ``load_state``)
    that skip drew the batches again on a loader of accelerate's, and the
    restored state then came back at the next epoch: the rest of epoch 0 was
    trained again as epoch 1, and from the end of epoch 0 (``step_6``) the
    whole of epoch 0 was. Now the skip returns the restored loader; every
    run trains each rank's share of every epoch exactly once and exits in time.
    """
    cmd = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--multi_gpu",
        "--num_processes=2",
        "--num_machines=1",
        "--mixed_precision=no",
        "--dynamo_backend=no",
        f"--main_process_port={free_port()}",  # not 29500: tests run side by side
        str(NLP_SCRIPT),
        str(tmp_path),
        str(workers),
    ]
    proc = run_job(cmd, env=child_env(), timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, failure_text(proc)
    for rank in range(2):
        report = json.loads((tmp_path / f"rank{rank}.json").read_text())
        share = [_share(lambda r=rank: DistributedSampler(NLP_N, 2, r, seed=3), e) for e in (0, 1)]
        full = report["full"]
        assert full["seen"] == {"0": share[0], "1": share[1]} and full["steps"] == 12
        assert sorted(full["evaluated"]) == sorted(list(range(NLP_EVAL_N)) * 2)
        for step in (3, 6, 9):  # 6 batches of 4 (the last of 3) per rank and epoch
            run = report[f"step_{step}"]
            epoch, done = divmod(step, 6)
            want = {str(e): share[e][done * 4 if e == epoch else 0 :] for e in range(epoch, 2)}
            assert run["seen"] == want, (rank, step)
            assert run["steps"] == 12, (rank, step)
            assert sorted(run["evaluated"]) == sorted(list(range(NLP_EVAL_N)) * (2 - epoch))


@pytest.mark.timeout(120)
def test_a_step_stream_prepared_with_workers_starts_at_its_first_step() -> None:
    """The state-only iterator accelerate makes is kept for a StepSampler: dropping it lost
    what its workers had prefetched (the stream is addressed by steps, it has no epoch)."""
    from accelerate import Accelerator

    from fairshard.integrations.accelerate import prepare_data_loader

    def stream() -> Any:
        inner = DistributedSampler(N, 1, 0, seed=4)
        return StepSampler(inner, micro_batch_size=4, global_batch_size=4)

    batches = iter(stream())
    want = [[next(batches) for _ in range(4)] for _ in range(3)]
    loader = prepare_data_loader(
        Accelerator(cpu=True),
        DataLoader(
            list(range(N)),
            batch_size=4,
            sampler=stream(),
            num_workers=2,
            multiprocessing_context="fork",
        ),
    )
    got = iter(loader)
    assert [next(got).tolist() for _ in range(3)] == want
