"""``fairshard simulate --step N``: which samples step N held, per rank, as the ranks yield them."""

from __future__ import annotations

import json

import pytest

import fairshard
from fairshard._cli.main import main


def _ranks_yield(
    step: int, world: int, micro: int, size: int, skip: list[tuple[int, int]]
) -> list[list[int]]:
    out = []
    for rank in range(world):
        inner = fairshard.DistributedSampler(1000, num_replicas=world, rank=rank, seed=4)
        sampler = fairshard.StepSampler(
            inner, micro_batch_size=micro, global_batch_size=size, skip=skip, start_step=step
        )
        stream = iter(sampler)
        out.append([next(stream) for _ in range(sampler.accumulation_steps(step) * micro)])
    return out


def test_step_json_is_what_the_ranks_yield(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "-n", "1000", "-w", "4", "--seed", "4", "--step", "300"]
    argv += ["--global-batch-size", "64", "--micro-batch-size", "8", "--skip", "5:90", "--json"]
    assert main(argv) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["step"] == 300 and view["first_sample"] == 300 * 64
    assert view["ranks"] == _ranks_yield(300, 4, 8, 64, [(5, 90)])
    assert min(p for pos in view["positions"] for p in pos) == 300 * 64 + 85


def test_step_text_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["simulate", "-n", "100", "-w", "2", "--step", "3", "--global-batch-size", "8"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("step 3: samples [24, 32) of the stream") and "rank 1:" in out
    assert main(["simulate", "-n", "100", "--step", "3"]) == 2
    assert "--global-batch-size" in capsys.readouterr().err
    argv = ["simulate", "-n", "100", "-w", "3", "--step", "3", "--global-batch-size", "8"]
    assert main(argv) == 2
    assert "not a multiple of num_replicas" in capsys.readouterr().err


def test_streams_are_refused_naming_why() -> None:
    stream = fairshard.ShardedIterable([[1, 2], [3]], num_replicas=1, rank=0)
    with pytest.raises(fairshard.ConfigTypeError, match="no plan over positions"):
        fairshard.StepSampler(stream, micro_batch_size=1, global_batch_size=1)  # type: ignore[arg-type]
