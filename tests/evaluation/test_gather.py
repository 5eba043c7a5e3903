"""gather_in_order without processes: shares, codec, assembly over virtual ranks, errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
import torch.utils.data as tud
from hypothesis import given
from hypothesis import strategies as st

from fairshard import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    DistributedEvalSampler,
    DistributedSampler,
    gather_in_order,
    padding_mask,
)
from fairshard._core.base import PlannedSampler
from fairshard._core.plans import BatchPlan
from fairshard._evaluation.codec import decode, encode
from fairshard._evaluation.gather import _assemble
from fairshard._evaluation.shares import describe


def make(n: int, w: int, **kw: Any) -> list[DistributedSampler]:
    """One sampler per virtual rank (an empty dataset's warning is expected here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        return [DistributedSampler(n, w, r, **kw) for r in range(w)]


def virtual_gather(samplers: list[Any], outputs: list[Any]) -> Any:
    """What gather_in_order returns on rank 0, computed in one process."""
    encoded = [encode(o) for o in outputs]
    longest = max(e.meta.length for e in encoded)
    gathered = []
    for e in encoded:  # pad like the collective does
        buf = torch.zeros((longest, e.meta.width), dtype=torch.uint8)
        buf[: e.meta.length] = e.data
        gathered.append(buf)
    return _assemble(gathered, [e.meta for e in encoded], describe(samplers[0]), encoded[0])


def per_sample(index: np.ndarray) -> torch.Tensor:
    """A deterministic (m, 3) output for dataset indices (elementwise, batch-independent)."""
    x = torch.from_numpy(index).double()
    return torch.stack([x, torch.sin(x), x * x], dim=1)


configs = st.tuples(
    st.integers(0, 60),  # n
    st.integers(1, 9),  # world size
    st.sampled_from(["strided", "blocked"]),
    st.sampled_from(["pad", "uneven"]),
    st.booleans(),  # shuffle
)


@given(configs)
def test_shares_match_what_each_rank_iterates(config: tuple[Any, ...]) -> None:
    n, w, layout, tail, shuffle = config
    samplers = make(n, w, shuffle=shuffle, seed=5, layout=layout, tail=tail)
    shares = describe(samplers[0])
    real: list[int] = []
    for r, s in enumerate(samplers):
        order = list(s)
        assert shares.indices(r).tolist() == order
        mask = padding_mask(s)
        assert mask.shape == (len(order),)
        assert not mask[: shares.num_real(r)].any() and mask[shares.num_real(r) :].all()
        real += shares.indices(r, 0, shares.num_real(r)).tolist()
    assert sorted(real) == list(range(n))  # every sample exactly once, padding excluded
    assert sum(int(padding_mask(s).sum()) for s in samplers) == shares.partition.num_padded()


@given(configs)
def test_virtual_ranks_gather_equals_single_process(config: tuple[Any, ...]) -> None:
    n, w, layout, tail, shuffle = config
    samplers = make(n, w, shuffle=shuffle, seed=9, layout=layout, tail=tail)
    reference = per_sample(np.arange(n))
    shares = [np.asarray(list(s), dtype=np.int64) for s in samplers]
    result = virtual_gather(samplers, [per_sample(idx) for idx in shares])
    assert torch.equal(result, reference)
    objects = virtual_gather(samplers, [[{"i": int(i)} for i in idx] for idx in shares])
    assert objects == [{"i": i} for i in range(n)]
    arrays = virtual_gather(samplers, [idx.astype("U4") for idx in shares])
    assert arrays.tolist() == [str(i) for i in range(n)]


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize(("n", "w"), [(10, 4), (3, 5), (0, 2), (12, 3)])
def test_torch_distributed_sampler_is_described_exactly(
    n: int, w: int, shuffle: bool, drop_last: bool
) -> None:
    for r in range(w):
        s = tud.DistributedSampler(
            range(n), num_replicas=w, rank=r, shuffle=shuffle, seed=4, drop_last=drop_last
        )
        s.set_epoch(2)
        assert describe(s).indices(r).tolist() == list(s)
        assert describe(tud.BatchSampler(s, 4, False)).indices(r).tolist() == list(s)


def test_torch_padded_sampler_gathers_without_duplicates() -> None:
    samplers = [
        tud.DistributedSampler(range(10), num_replicas=4, rank=r, shuffle=True) for r in range(4)
    ]
    outputs = [per_sample(np.asarray(list(s))) for s in samplers]
    assert sum(len(o) for o in outputs) == 12  # two padding duplicates went in
    assert torch.equal(virtual_gather(samplers, outputs), per_sample(np.arange(10)))


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float32,
        torch.float64,
        torch.int64,
        torch.bool,
        torch.bfloat16,
        torch.uint8,
        torch.complex64,
        torch.int16,
    ],
)
def test_codec_round_trips_every_dtype(dtype: torch.dtype) -> None:
    value = (torch.arange(24).reshape(4, 3, 2) % 5).to(dtype)
    encoded = encode(value)
    assert encoded.data.dtype == torch.uint8 and encoded.meta.rows == 4
    assert torch.equal(decode(encoded.meta, encoded.data), value)


def test_codec_round_trips_empty_and_readonly() -> None:
    empty = torch.zeros((0, 5, 0))
    assert decode(encode(empty).meta, encode(empty).data).shape == (0, 5, 0)
    frozen = np.arange(6.0).reshape(3, 2)
    frozen.flags.writeable = False
    assert np.array_equal(decode(encode(frozen).meta, encode(frozen).data), frozen)


# --------------------------------------------------------- single process path
def test_single_process_shuffled_tensor_comes_back_in_dataset_order() -> None:
    sampler = DistributedSampler(50, shuffle=True, seed=3)
    sampler.set_epoch(4)
    order = np.asarray(list(sampler))
    assert not np.array_equal(order, np.arange(50))
    result = gather_in_order(per_sample(order), sampler)
    assert torch.equal(result, per_sample(np.arange(50)))
    assert gather_in_order(per_sample(order), sampler, dst=0, timeout=5.0) is not None


def test_single_process_numpy_list_and_empty() -> None:
    sampler = DistributedEvalSampler(7, shuffle=True, seed=1)
    order = list(sampler)
    result = gather_in_order(np.asarray(order, dtype=np.int32) * 2, sampler)
    assert result.dtype == np.int32 and result.tolist() == [2 * i for i in range(7)]
    assert gather_in_order([f"s{i}" for i in order], sampler) == [f"s{i}" for i in range(7)]
    with pytest.warns(UserWarning, match="empty"):
        empty = DistributedEvalSampler(0)
    assert gather_in_order([], empty) == []
    assert gather_in_order(torch.zeros(0, 4), empty).shape == (0, 4)


def test_batch_sampler_of_a_fairshard_sampler() -> None:
    sampler = DistributedSampler(9, shuffle=True, seed=2)
    batches = tud.BatchSampler(sampler, 4, drop_last=False)
    order = [i for batch in batches for i in batch]
    assert gather_in_order(torch.tensor(order), batches).tolist() == list(range(9))


# ---------------------------------------------------------------- bad inputs
def test_size_mismatch_names_both_sizes() -> None:
    sampler = DistributedEvalSampler(5)
    with pytest.raises(ConfigError, match=r"outputs have 4 samples .* rank 0's share has 5"):
        gather_in_order(torch.zeros(4, 2), sampler)
    with pytest.raises(ConfigError, match=r"outputs have 6 samples"):
        gather_in_order(list(range(6)), sampler)


def test_dropping_sampler_is_refused() -> None:
    sampler = DistributedSampler(10, num_replicas=4, rank=0, drop_last=True)
    with pytest.raises(ConfigError, match=r"drops 2 of 10 positions .*DistributedEvalSampler"):
        gather_in_order(torch.zeros(2), sampler)


def test_multi_rank_sampler_without_process_group() -> None:
    sampler = DistributedEvalSampler(10, num_replicas=2, rank=0)
    with pytest.raises(ConfigError, match=r"without a process group.*num_replicas=2"):
        gather_in_order(torch.zeros(5), sampler)


def test_unsupported_samplers() -> None:
    with pytest.raises(ConfigTypeError, match=r"got SequentialSampler.*DistributedEvalSampler"):
        gather_in_order([1], tud.SequentialSampler(range(1)))

    class Custom(tud.DistributedSampler):  # type: ignore[type-arg]
        pass

    with pytest.raises(ConfigTypeError, match="got Custom"):
        gather_in_order([1], Custom(range(1), num_replicas=1, rank=0))


@pytest.mark.parametrize(
    ("outputs", "match"),
    [
        (torch.tensor(3.0), "0-dimensional tensor"),
        (np.array([None, 1], dtype=object), "pass a list"),
        ({"a": 1}, "got dict"),
    ],
)
def test_unsupported_outputs(outputs: Any, match: str) -> None:
    with pytest.raises(ConfigTypeError, match=match):
        gather_in_order(outputs, DistributedEvalSampler(2))


def test_bad_dst_and_timeout() -> None:
    sampler = DistributedEvalSampler(2)
    with pytest.raises(ConfigError, match=r"dst must be between 0 and 0, got dst=1"):
        gather_in_order([1, 2], sampler, dst=1)
    with pytest.raises(ConfigError, match=r"timeout must be > 0.0, got timeout=0.0"):
        gather_in_order([1, 2], sampler, timeout=0)


class VariableBatches(PlannedSampler[list[int], BatchPlan], register=False):
    """A batch sampler over ``n`` indices in batches of 1, 2, 3, 1, 2, 3, ... (for the tests)."""

    kind = "VariableBatches"

    def __init__(self, n: int, **kw: Any) -> None:
        super().__init__(**kw)
        self.n = n

    def _config(self) -> dict[str, Any]:
        return {"n": self.n}

    def _build_plan(self, epoch: int) -> BatchPlan:
        flat = np.random.default_rng(epoch).permutation(self.n).astype(np.int64)
        sizes = np.resize(np.array([1, 2, 3]), self.n)
        offsets = np.minimum(np.concatenate(([0], np.cumsum(sizes))), self.n)
        offsets = offsets[: int(np.searchsorted(offsets, self.n)) + 1]
        return BatchPlan(flat, offsets)


@given(
    st.integers(1, 40),
    st.integers(1, 6),
    st.sampled_from(["strided", "blocked"]),
    st.sampled_from(["pad", "uneven"]),
)
def test_batch_plans_are_flattened_into_samples(n: int, w: int, layout: Any, tail: Any) -> None:
    samplers = [
        VariableBatches(n, num_replicas=w, rank=r, layout=layout, tail=tail) for r in range(w)
    ]
    shares = [np.asarray([i for batch in s for i in batch], dtype=np.int64) for s in samplers]
    for r, share in enumerate(shares):
        assert describe(samplers[r]).indices(r).tolist() == share.tolist()
    result = virtual_gather(samplers, [per_sample(share) for share in shares])
    assert torch.equal(result, per_sample(np.arange(n)))
