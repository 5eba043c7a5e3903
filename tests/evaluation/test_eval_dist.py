"""Distributed evaluation on real gloo ranks: exact gathers and metrics, no hangs.

One 4-rank spawn runs every 4-rank case (1003 on 4, 3 on 4 with an empty
rank, 0 on 4, bad inputs, a rank that skips the gather); one small 8-rank
spawn runs 5 samples on 8 ranks (three ranks with nothing to do).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
import torch.utils.data as tud

from fairshard import (
    ClassificationMetrics,
    ConfigError,
    DegenerateConfigWarning,
    DistributedEvalSampler,
    DistributedSampler,
    ExactMetrics,
    RankMismatchError,
    gather_in_order,
)

from .._dist import run_ranks

pytestmark = pytest.mark.distributed

K = 5
BATCH = 50  # 1003 on 4 ranks: shares 251, 251, 251, 250 -> 6, 6, 6, 5 batches


def dataset(n: int) -> tud.TensorDataset:
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(n, 2 * K, generator=g)
    y = torch.randint(0, K, (n,), generator=g)
    return tud.TensorDataset(torch.arange(n), x, y)


def model(x: torch.Tensor) -> torch.Tensor:
    """A fixed tiny model; elementwise, so each row's output is batch-independent."""
    return x[:, :K] * 1.5 + x[:, K:]


def reference(n: int) -> tuple[torch.Tensor, ClassificationMetrics]:
    """The single-process outputs and metrics."""
    _, x, y = dataset(n).tensors
    logits = model(x)
    return logits, ClassificationMetrics.from_labels(logits.argmax(1).numpy(), y.numpy(), K)


def evaluate(sampler: Any, n: int, exact: bool = True) -> dict[str, Any]:
    """One evaluation pass over ``sampler``'s share; collectives only after the loop."""
    loader = tud.DataLoader(dataset(n), batch_size=BATCH, sampler=sampler)
    metrics = ExactMetrics(K, sampler=sampler if exact else None)
    logits, names, batches = [], [], 0
    for idx, x, y in loader:
        out = model(x)
        metrics.update(out, y, indices=idx if exact else None)
        logits.append(out)
        names += [f"sample-{i}" for i in idx.tolist()]
        batches += 1
    stacked = torch.cat(logits) if logits else torch.empty(0, K)
    gathered = gather_in_order(stacked, sampler, timeout=30) if exact else None
    return {  # tensors go back as numpy: the result queue would share their memory
        "batches": batches,
        "logits": None if gathered is None else (type(gathered), gathered.numpy()),
        "names_on_0": gather_in_order(names, sampler, dst=0) if exact else None,
        "numpy": gather_in_order(stacked.numpy(), sampler) if exact else None,
        "metrics": metrics.compute(timeout=30).confusion,
    }


def quiet(make: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)  # empty datasets warn
        return make()


def cases(rank: int, world: int, n: int) -> dict[str, Any]:
    """Every sampler flavour on ``n`` samples."""
    shuffled = quiet(lambda: DistributedSampler(n, shuffle=True, seed=11))
    shuffled.set_epoch(3)
    torch_padded = tud.DistributedSampler(range(n), shuffle=False)
    return {
        "eval": evaluate(quiet(lambda: DistributedEvalSampler(n)), n),
        "shuffled_pad": evaluate(shuffled, n),
        "torch_exact": evaluate(torch_padded, n),
        "torch_naive": evaluate(torch_padded, n, exact=False),
    }


def bad_inputs(rank: int, world: int) -> dict[str, str]:
    sampler = DistributedEvalSampler(1003)
    size = len(sampler) - (1 if rank == 2 else 0)
    out: dict[str, str] = {}
    try:
        gather_in_order(torch.zeros(size, 2), sampler, timeout=30)
    except (ConfigError, RankMismatchError) as exc:
        out["size"] = f"{type(exc).__name__}: {exc}"
    dtype = torch.float64 if rank == 1 else torch.float32
    try:
        gather_in_order(torch.zeros(len(sampler), 2, dtype=dtype), sampler, timeout=30)
    except RankMismatchError as exc:
        out["dtype"] = str(exc)
    try:
        gather_in_order(torch.zeros(len(sampler)), sampler, dst=rank % 2, timeout=30)
    except RankMismatchError as exc:
        out["dst"] = str(exc)
    return out


def worker4(rank: int, world: int) -> dict[str, Any]:
    result: dict[str, Any] = {n: cases(rank, world, n) for n in (1003, 3, 0)}
    result["bad"] = bad_inputs(rank, world)
    # Last: rank 3 never calls; the others must fail within the timeout, not hang.
    sampler = DistributedEvalSampler(8)
    if rank != 3:
        try:
            gather_in_order(torch.zeros(len(sampler)), sampler, timeout=3)
        except RankMismatchError as exc:
            result["absent"] = str(exc)
    return result


def worker8(rank: int, world: int) -> dict[str, Any]:
    return {5: cases(rank, world, 5)}


@pytest.fixture(scope="module")
def four() -> list[dict[str, Any]]:
    return run_ranks(worker4, 4, timeout=150)


@pytest.fixture(scope="module")
def eight() -> list[dict[str, Any]]:
    return run_ranks(worker8, 8, timeout=150)


def check_exact(results: list[dict[str, Any]], n: int) -> None:
    logits, metrics = reference(n)
    names = [f"sample-{i}" for i in range(n)]
    for rank, by_n in enumerate(results):
        for flavour in ("eval", "shuffled_pad", "torch_exact"):
            got = by_n[n][flavour]
            kind, values = got["logits"]
            assert kind is torch.Tensor and np.array_equal(values, logits.numpy()), (rank, flavour)
            assert np.array_equal(got["numpy"], logits.numpy()), (rank, flavour)
            assert got["names_on_0"] == (names if rank == 0 else None), (rank, flavour)
            assert ClassificationMetrics(got["metrics"]) == metrics, (rank, flavour)


def test_1003_on_4_gathers_and_metrics_equal_single_process(four: list[dict[str, Any]]) -> None:
    check_exact(four, 1003)
    assert [r[1003]["eval"]["batches"] for r in four] == [6, 6, 6, 5]  # uneven, no hang


def test_torch_padding_gives_a_different_metric(four: list[dict[str, Any]]) -> None:
    _, metrics = reference(1003)
    naive = ClassificationMetrics(four[0][1003]["torch_naive"]["metrics"])
    assert naive.num_samples == 1004 and metrics.num_samples == 1003
    assert naive.accuracy != metrics.accuracy
    assert ClassificationMetrics(four[0][1003]["torch_exact"]["metrics"]) == metrics


def test_empty_ranks_and_empty_dataset(four: list[dict[str, Any]]) -> None:
    check_exact(four, 3)
    assert [r[3]["eval"]["batches"] for r in four] == [1, 1, 1, 0]
    check_exact(four, 0)
    assert four[0][0]["eval"]["logits"][1].shape == (0, K)
    assert np.isnan(ClassificationMetrics(four[0][0]["eval"]["metrics"]).accuracy)


@pytest.mark.slow
def test_5_on_8(eight: list[dict[str, Any]]) -> None:
    check_exact(eight, 5)
    assert [r[5]["eval"]["batches"] for r in eight] == [1] * 5 + [0] * 3
    _, metrics = reference(5)
    naive = ClassificationMetrics(eight[0][5]["torch_naive"]["metrics"])
    assert naive.num_samples == 8 and naive != metrics


def test_bad_inputs_fail_on_every_rank(four: list[dict[str, Any]]) -> None:
    sizes = [r["bad"]["size"] for r in four]
    assert sizes[2].startswith("ConfigError: outputs have 250 samples")
    assert "rank 2's share has 251" in sizes[2]
    for r in (0, 1, 3):
        assert sizes[r].startswith("RankMismatchError: gather_in_order failed on rank(s) [2]")
        assert "outputs have 250 samples" in sizes[r]
    assert all("torch.float64" in r["bad"]["dtype"] and "rank 1" in r["bad"]["dtype"] for r in four)
    assert all("ranks disagree on the dst" in r["bad"]["dst"] for r in four)


def test_absent_rank_times_out_instead_of_hanging(four: list[dict[str, Any]]) -> None:
    for r in (0, 1, 2):
        assert "did not complete within 3.0s" in four[r]["absent"]
    assert "absent" not in four[3]
