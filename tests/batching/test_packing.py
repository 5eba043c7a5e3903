"""PackingBatchSampler: rows within capacity, every item once, the contract, collation."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.data import DataLoader

import fairshard
from fairshard import (
    ConfigError,
    DegenerateConfigWarning,
    PackedRows,
    PackingBatchSampler,
    collate_packed,
    collate_packed_padded,
    step_imbalance,
)
from fairshard._batching.cost_balance import (
    step_ratios,
)
from fairshard._batching.pack_plan import pack_windows

from ..contract import SamplerContract, flat

LENGTHS = 1 + (np.arange(301) * 37) % 61


class TestPackingPad(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> PackingBatchSampler:
        return PackingBatchSampler(
            LENGTHS, 128, 2, window=64, num_replicas=world_size, rank=rank, seed=2, **kw
        )


class TestPackingAttentionCostDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> PackingBatchSampler:
        return PackingBatchSampler(
            LENGTHS,
            100,
            3,
            cost="attention",
            balance_run=None,
            num_replicas=world_size,
            rank=rank,
            seed=6,
            tail="drop",
            **kw,
        )


@given(
    st.lists(st.integers(1, 300), min_size=1, max_size=400),
    st.integers(0, 300),
    st.integers(1, 50),
    st.integers(0, 2**32),
)
def test_rows_fit_and_every_item_once(
    lengths: list[int], extra: int, window: int, seed: int
) -> None:
    capacity = max(lengths) + extra
    s = PackingBatchSampler(lengths, capacity, 3, window=window, num_replicas=1, rank=0, seed=seed)
    batches = list(s)
    assert sorted(flat(batches)) == list(range(len(lengths)))
    for batch in batches:
        assert 1 <= len(batch) <= 3
        for row in batch:
            assert row and sum(lengths[i] for i in row) <= capacity


def test_rows_are_maximal_within_a_window() -> None:
    """No row could take another item of its window: bin completion closes a row only then."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 90, 500)
    members, offsets = pack_windows(lengths, 100, 500)
    loads = np.add.reduceat(lengths[members], offsets[:-1])
    for r in range(offsets.size - 1):
        later = members[offsets[r + 1] :]
        assert (100 - loads[r]) < lengths[later].min(initial=101) or later.size == 0


def test_efficiency_and_balance_on_log_normal_lengths() -> None:
    lengths = np.random.default_rng(1).lognormal(5, 0.8, 100_000).round().astype(np.int64) + 1
    lengths = np.minimum(lengths, 4096)  # truncated, as a tokenizer with max_length does
    s = PackingBatchSampler(lengths, 4096, 8, num_replicas=8, rank=0)
    assert s.efficiency() >= 0.98
    assert step_imbalance(s.batch_costs(), 8) <= 1.02


def test_epochs_repack_differently_and_deterministically() -> None:
    a = PackingBatchSampler(LENGTHS, 128, 2, num_replicas=1, rank=0, seed=4)
    b = PackingBatchSampler(LENGTHS, 128, 2, num_replicas=1, rank=0, seed=4)
    a.set_epoch(1)
    b.set_epoch(1)
    first = list(b)
    assert list(a) == first
    a.set_epoch(2)
    rows_1 = {tuple(sorted(r)) for batch in first for r in batch}
    rows_2 = {tuple(sorted(r)) for batch in a for r in batch}
    assert rows_1 != rows_2


def test_oversized_items_error_or_skip() -> None:
    with pytest.raises(ConfigError, match=r"item 1 has 9 tokens, over capacity=8"):
        PackingBatchSampler([3, 9, 2], 8, 1)
    with pytest.warns(DegenerateConfigWarning, match="skipping 1 item"):
        s = PackingBatchSampler([3, 9, 2], 8, 1, oversized="skip", num_replicas=1, rank=0)
    assert s.num_skipped == 1 and sorted(flat(s)) == [0, 2]
    with (
        pytest.warns(DegenerateConfigWarning),
        pytest.raises(ConfigError, match="every item is longer"),
    ):
        PackingBatchSampler([9, 9], 8, 1, oversized="skip")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lengths": [1.5, 2.0]}, "whole token counts"),
        ({"capacity": 0}, "capacity"),
        ({"rows_per_batch": 0}, "rows_per_batch"),
        ({"window": 0}, "window"),
        ({"oversized": "split"}, "oversized"),
        ({"cost": "flops"}, "cost"),
    ],
)
def test_bad_configs_name_the_parameter(kwargs: dict[str, Any], match: str) -> None:
    args = {"lengths": [3, 4], "capacity": 8, "rows_per_batch": 1, **kwargs}
    with pytest.raises(ConfigError, match=match):
        PackingBatchSampler(**args)


# ---------------------------------------------------------------- collation
class Docs(torch.utils.data.Dataset[dict[str, torch.Tensor]]):
    """Item i: i % 7 + 1 tokens with ids 100 * i + position; labels = ids + 1."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        ids = 100 * i + torch.arange(i % 7 + 1)
        return {"input_ids": ids, "labels": ids + 1}


def doc_lengths(n: int) -> list[int]:
    return [i % 7 + 1 for i in range(n)]


@pytest.mark.parametrize("workers", [0, 2])
def test_dataloader_with_packed_rows_and_varlen_collate(workers: int) -> None:
    n = 40
    sampler = PackingBatchSampler(doc_lengths(n), 12, 2, num_replicas=1, rank=0, seed=1)
    loader = DataLoader(
        PackedRows(Docs(n)), batch_sampler=sampler, collate_fn=collate_packed, num_workers=workers
    )
    seen: list[int] = []
    for out, rows in zip(loader, sampler.plan().items(np.arange(len(sampler))), strict=True):
        docs = [i for row in rows for i in row]
        seen.extend(docs)
        expected = torch.cat([Docs(n)[i]["input_ids"] for i in docs])
        assert torch.equal(out["input_ids"], expected)
        cu = out["cu_seqlens"]
        labels = expected + 1
        labels[cu[:-1].long()] = -100  # each document's first label position
        assert torch.equal(out["labels"], labels)
        assert cu.dtype == torch.int32 and cu[0] == 0 and cu[-1] == expected.numel()
        assert out["max_seqlen"] == max(i % 7 + 1 for i in docs)
        for k, i in enumerate(docs):
            a, b = int(cu[k]), int(cu[k + 1])
            assert out["position_ids"][a:b].tolist() == list(range(i % 7 + 1))
        assert out["row_offsets"].tolist() == [0, *np.cumsum([len(r) for r in rows]).tolist()]
    assert sorted(seen) == list(range(n))


def test_padded_mask_attention_equals_per_document_attention() -> None:
    torch.manual_seed(0)
    batch = [[[1, 2, 3], [4, 5]], [[6, 7, 8, 9]]]
    out = collate_packed_padded(batch, 6)
    assert out["input_ids"].tolist() == [[1, 2, 3, 4, 5, 0], [6, 7, 8, 9, 0, 0]]
    assert out["position_ids"].tolist() == [[0, 1, 2, 0, 1, 0], [0, 1, 2, 3, 0, 0]]
    assert out["labels"].tolist() == [[-100, 2, 3, -100, 5, -100], [-100, 7, 8, 9, -100, -100]]
    q, k, v = (torch.randn(2, 1, 6, 4) for _ in range(3))
    packed = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=out["attention_mask"]
    )
    assert not packed.isnan().any()
    varlen = collate_packed(batch)
    cu = varlen["cu_seqlens"].tolist()
    rows_of_doc = [(0, 0), (0, 3), (1, 0)]  # (row, start column) of each document
    for d, (row, col) in enumerate(rows_of_doc):
        n = cu[d + 1] - cu[d]
        alone = torch.nn.functional.scaled_dot_product_attention(
            q[row : row + 1, :, col : col + n],
            k[row : row + 1, :, col : col + n],
            v[row : row + 1, :, col : col + n],
            is_causal=True,
        )
        assert torch.allclose(packed[row : row + 1, :, col : col + n], alone, atol=1e-6)


def test_collate_errors_name_the_problem() -> None:
    with pytest.raises(ConfigError, match="over capacity=4"):
        collate_packed_padded([[[1, 2, 3], [4, 5]]], 4)
    with pytest.raises(ConfigError, match="without 'input_ids'"):
        collate_packed([[{"ids": [1]}]])
    with pytest.raises(ConfigError, match="document 1 of the batch has no tokens"):
        collate_packed([[[1], []]])
    with pytest.raises(TypeError, match="indexed by a row"):
        PackedRows([1, 2])[0]


def test_exported() -> None:
    assert fairshard.PackingBatchSampler is PackingBatchSampler
    assert math.isclose(PackingBatchSampler([4, 4], 8, 1, num_replicas=1, rank=0).efficiency(), 1.0)


def test_simulator_checks_packed_batches() -> None:
    report = fairshard.simulate(
        lambda rank, world: PackingBatchSampler(
            LENGTHS, 128, 2, num_replicas=world, rank=rank, seed=1
        ),
        world_size=3,
        dataset_size=LENGTHS.size,
        epochs=2,
    )
    assert report.ok, report


@pytest.mark.parametrize("tail", ["pad", "uneven", "drop"])
def test_step_imbalance_counts_the_final_step_as_the_ranks_run_it(tail: str) -> None:
    """Per-step ratios from what 8 ranks really yield; the worst step beside the mean."""
    lengths = np.minimum(np.random.default_rng(3).lognormal(5, 0.8, 1200).astype(np.int64) + 1, 512)
    ranks = [
        PackingBatchSampler(lengths, 512, 4, num_replicas=8, rank=r, seed=2, tail=tail)  # type: ignore[arg-type]
        for r in range(8)
    ]
    costs = ranks[0].batch_costs()
    assert costs.size % 8, "the case of interest: a final partial step"
    yielded = [[int(lengths[flat([b])].sum()) for b in s] for s in ranks]
    steps = max(len(y) for y in yielded)
    by_step = np.array([[y[k] if k < len(y) else 0 for y in yielded] for k in range(steps)])
    truth = by_step.max(axis=1) / by_step.mean(axis=1)
    ratios = step_ratios(costs, 8, tail=tail)
    np.testing.assert_allclose(ratios, truth)
    mean, worst = (
        step_imbalance(costs, 8, tail=tail),
        step_imbalance(costs, 8, tail=tail, worst=True),
    )
    assert mean == pytest.approx(truth.mean()) and worst == pytest.approx(truth.max())
    if tail != "drop":
        assert int(np.argmax(truth)) == steps - 1 and worst > mean  # the final step is the worst


def reference_pack(lengths: list[int], capacity: int, window: int) -> list[list[int]]:
    """Bin completion as the module notes state it, one item at a time: the rows in order.

    Every step, each window with items left (in window order) opens a row
    with its longest item left, or adds the longest item left that fits the
    open row, or closes that row when none does; ties go to the later
    position. Rows are numbered as they open.
    """
    windows = []
    for first in range(0, len(lengths), window):
        positions = range(first, min(first + window, len(lengths)))
        left = sorted(positions, key=lambda i: (lengths[i], i))  # ascending
        windows.append({"left": left, "row": None, "room": 0})
    rows: list[list[int]] = []
    while any(w["left"] for w in windows):
        for w in windows:
            left = w["left"]
            if not left:
                continue
            if w["row"] is None:
                item = left.pop()
                w["row"], w["room"] = len(rows), capacity - lengths[item]
                rows.append([item])
                continue
            fits = [k for k, i in enumerate(left) if lengths[i] <= w["room"]]
            if not fits:
                w["row"] = None
                continue
            item = left.pop(fits[-1])
            w["room"] -= lengths[item]
            rows[w["row"]].append(item)
    return rows


@given(
    st.lists(st.integers(1, 40), min_size=0, max_size=300),
    st.integers(0, 40),
    st.integers(1, 70),
)
def test_pack_windows_is_the_reference_bin_completion(
    lengths: list[int], extra: int, window: int
) -> None:
    """The vectorized packing (all windows in lock step) makes exactly the reference's rows."""
    capacity = max(lengths, default=1) + extra
    members, offsets = pack_windows(np.array(lengths, dtype=np.int64), capacity, window)
    rows = [members[a:b].tolist() for a, b in itertools.pairwise(offsets)]
    assert rows == reference_pack(lengths, capacity, window)


@pytest.mark.parametrize("window", [1, 7, 64, 100, 5000])
def test_pack_windows_is_the_reference_on_wide_windows_and_many_items(window: int) -> None:
    """Past one 64-slot word per window and past the key blocks; lengths with long runs of ties."""
    rng = np.random.default_rng(window)
    lengths = np.minimum(rng.integers(1, 300, 3000), rng.integers(1, 12, 3000) * 25)
    members, offsets = pack_windows(lengths, 320, window)
    rows = [members[a:b].tolist() for a, b in itertools.pairwise(offsets)]
    assert rows == reference_pack(lengths.tolist(), 320, window)


@pytest.mark.parametrize("capacity", [32, 33, 40_000])
def test_pack_windows_is_the_reference_where_runs_end(capacity: int) -> None:
    """Runs of many short items (up to a bit word), one-token items, keys past int16."""
    rng = np.random.default_rng(capacity)
    lengths = np.where(rng.random(4000) < 0.7, 1, rng.integers(1, capacity + 1, 4000))
    for window in (31, 32, 33, 97):
        members, offsets = pack_windows(lengths, capacity, window)
        rows = [members[a:b].tolist() for a, b in itertools.pairwise(offsets)]
        assert rows == reference_pack(lengths.tolist(), capacity, window)


@pytest.mark.parametrize("cost", ["tokens", "attention"])
def test_plan_int64_items_from_the_in_place_build(cost: str) -> None:
    """Past 2**15 items the plan is built inside its own int64 result: still every item once."""
    lengths = np.random.default_rng(3).integers(1, 200, 40_000)
    lengths[::997] = 999  # skipped: the kept ids go through the in-place build too
    with pytest.warns(DegenerateConfigWarning):
        s = PackingBatchSampler(
            lengths, 512, 4, oversized="skip", cost=cost, num_replicas=1, rank=0
        )
    plan = s.plan(0)
    assert plan.flat.dtype == np.int64
    assert np.array_equal(np.sort(plan.flat), np.flatnonzero(lengths <= 512))
    loads = np.add.reduceat(lengths[plan.flat], plan.row_offsets[:-1])
    assert loads.max() <= 512


@pytest.mark.parametrize("oversized", ["error", "skip"])
def test_batch_costs_from_row_loads_equal_the_items_lengths(oversized: str) -> None:
    """The plan's per-row token counts are the sums of their items' lengths, every row."""
    lengths = np.random.default_rng(4).integers(1, 700, 20_000)
    capacity = 1024 if oversized == "error" else 600
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairshard.DegenerateConfigWarning)
        s = fairshard.PackingBatchSampler(lengths, capacity, 4, oversized=oversized)
    plan = s.plan(0)
    assert plan.row_loads is not None
    sums = np.add.reduceat(lengths[plan.flat], plan.row_offsets[:-1])
    assert np.array_equal(plan.row_loads, sums) and int(plan.row_loads.max()) <= capacity
    gathered = s._batch_costs(plan.flat, plan.row_offsets, plan.batch_rows)
    assert np.array_equal(s.batch_costs(0), gathered)
    # A plan published without the loads (cached by an earlier build) still reports them.
    arrays = {k: v for k, v in plan.plan_arrays()[0].items() if k != "row_loads"}
    older = type(plan).from_plan_arrays(arrays, {})
    assert older.row_loads is None and older.items(np.arange(3)) == plan.items(np.arange(3))
