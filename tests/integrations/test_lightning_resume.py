"""Resumed epochs under Lightning's own launcher: every item of the epoch exactly once.

One launch (``scripts/lightning_resume_job.py``, 2 DDP processes on CPU)
runs three recipes, each stopped after 6 steps of epoch 0 and resumed from
the checkpoint of step 4 with ``fit(ckpt_path=...)``: torchdata's
``StatefulDataLoader(num_workers=2)`` over an index sampler and over a
batch sampler, and the hand-made recipe (the sampler's state saved in
``on_save_checkpoint`` and loaded in ``train_dataloader``). Lightning ends
an epoch when its restored batch counter reaches ``len(loader)``: with
``len()`` of what was left, each resumed epoch (and, through Lightning's
cached limits, every later one) lost its last steps without a word.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import fairshard

from .._launch import child_env, failure_text, run_job

pytest.importorskip("lightning")
pytest.importorskip("torchdata.stateful_dataloader")

SCRIPT = Path(__file__).parent / "scripts" / "lightning_resume_job.py"
N, BATCH, STEPS_BEFORE = 203, 4, 4  # 102 items a rank (one padded), 26 batches
LENGTHS = [1 + (5 * i) % 11 for i in range(N)]
RECIPES = ("stateful-index", "stateful-batch", "handmade")


@pytest.fixture(scope="module")
def ledgers(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("lightning_resume")
    proc = run_job(
        [sys.executable, str(SCRIPT), str(out)],
        env=child_env(),
        timeout=400,
        cwd=out,
    )
    assert proc.returncode == 0, failure_text(proc)
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


def _epoch(recipe: str, rank: int, epoch: int) -> list[list[int]]:
    """The batches of ``rank``'s share of ``epoch``, as the recipe's sampler plans them."""
    if recipe == "stateful-batch":
        batches = fairshard.LengthBucketBatchSampler(
            LENGTHS, BATCH, num_replicas=2, rank=rank, seed=6
        )
        batches.set_epoch(epoch)
        return list(batches)
    sampler = fairshard.DistributedSampler(N, 2, rank, seed=3)
    sampler.set_epoch(epoch)
    items = list(sampler)
    return [items[i : i + BATCH] for i in range(0, len(items), BATCH)]


def _flat(batches: list[list[int]]) -> list[int]:
    return [i for b in batches for i in b]


@pytest.mark.distributed
@pytest.mark.timeout(450)
@pytest.mark.parametrize("recipe", RECIPES)
def test_a_resumed_epoch_under_lightning_reads_every_item_once(
    ledgers: list[dict[str, Any]], recipe: str
) -> None:
    shares = []
    for rank, ledger in enumerate(ledgers):
        first, second = ledger[recipe]["phase1"], ledger[recipe]["phase2"]
        epoch0, epoch1 = _epoch(recipe, rank, 0), _epoch(recipe, rank, 1)
        assert first["seen"]["0"] == _flat(epoch0[:6])
        # The resumed epoch is exactly the rest after step 4; the next one is whole.
        done = _flat(epoch0[:STEPS_BEFORE])
        assert done + second["seen"]["0"] == _flat(epoch0), f"rank {rank}: epoch 0"
        assert second["seen"]["1"] == _flat(epoch1), f"rank {rank}: epoch 1"
        # Lightning read the whole epoch's len() before and after the resume.
        assert set(first["lengths"] + second["lengths"]) == {len(epoch0)}
        assert second["warnings"] == [] == first["warnings"]
        shares.append(done + second["seen"]["0"])
    if recipe != "stateful-batch":  # every sample of the epoch, once (one declared pad)
        assert sorted(set(shares[0] + shares[1])) == list(range(N))
        assert len(shares[0]) + len(shares[1]) == N + 1


def _launch_elastic(out: Path, devices: int) -> None:
    proc = run_job(
        [sys.executable, str(SCRIPT), str(out), "elastic", str(devices)],
        env=child_env(),
        timeout=200,
        cwd=out,
    )
    assert proc.returncode == 0, failure_text(proc)


@pytest.mark.distributed
@pytest.mark.timeout(450)
def test_a_resumed_epoch_lightning_cuts_short_warns_with_the_count(tmp_path: Path) -> None:
    """One process to two: Lightning keeps the fresh epoch's length, and the backstop says so.

    Lightning reads ``len(loader)`` before ``StatefulDataLoader`` restores
    the sampler: 26 batches, a rank's share of a fresh epoch on two ranks.
    Resumed after 16 items taken on one rank, the epoch is 16 + 94 items
    (28 batches) a rank; Lightning stops at 26 and leaves the last 6 items
    of each rank unread, and ``set_epoch(1)`` warns with that count. The
    fix it names, ``ExactResume``, reads the whole rest in the same launches.
    """
    _launch_elastic(tmp_path, 1)
    _launch_elastic(tmp_path, 2)
    one = fairshard.DistributedSampler(N, 1, 0, seed=3)
    it = iter(one)
    for _ in range(STEPS_BEFORE * BATCH):
        next(it)
    state = one.state_dict()
    for rank in range(2):
        ledger = json.loads((tmp_path / f"elastic2-rank{rank}.json").read_text())
        resumed = fairshard.DistributedSampler(N, 2, rank, seed=3)
        resumed.load_state_dict(state)
        assert len(resumed) == 110 and resumed.remaining == 94
        rest = list(resumed)
        cut, exact = ledger["stateful-index"], ledger["exact"]
        assert cut["seen"]["0"] == rest[:88]  # Lightning stopped 6 items short
        assert cut["lengths"] == [26]
        [said] = cut["warnings"]
        assert "epoch 0 was resumed" in said
        assert "6 of the epoch's 110 items on this rank never read" in said
        assert "ExactResume" in said
        assert len(cut["seen"]["1"]) == 102  # the next epoch is whole
        # ExactResume loads the state before Lightning reads len(): the whole rest.
        assert exact["seen"]["0"] == rest and exact["lengths"] == [28]
        assert exact["warnings"] == [] and len(exact["seen"]["1"]) == 102
