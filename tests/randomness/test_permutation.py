"""The keyed permutation: a bijection for every n, random access, pinned outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import DistributedSampler
from fairshard._core.plans import PermutationPlan
from fairshard._random.permutation import MAX_N, ROUNDS, KeyedPermutation
from fairshard._random.seeding import stream_words

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "sequences.json").read_text())


@given(n=st.integers(0, 50_000), seed=st.integers(0, 2**64 - 1), epoch=st.integers(0, 2**40))
def test_bijection(n: int, seed: int, epoch: int) -> None:
    values = PermutationPlan(n, seed, epoch).take(np.arange(n, dtype=np.int64))
    assert np.array_equal(np.sort(values), np.arange(n))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 15, 16, 17, 255, 256, 257, 65_537, 2_000_003])
def test_bijection_at_domain_edges(n: int) -> None:
    values = PermutationPlan(n, 99, 1).take(np.arange(n, dtype=np.int64))
    assert np.array_equal(np.sort(values), np.arange(n))


@pytest.mark.parametrize("n", [2**32 + 1, 2**40, 2**40 + 17, MAX_N])
def test_huge_domains_random_access(n: int) -> None:
    rng = np.random.default_rng(n % 1000)
    positions = np.unique(rng.integers(0, n, 200_000, dtype=np.int64))
    values = PermutationPlan(n, 5, 0).take(positions)
    assert values.min() >= 0 and values.max() < n
    assert np.unique(values).size == positions.size  # injective on the sample
    again = PermutationPlan(n, 5, 0).take(positions[::-1].copy())
    assert np.array_equal(again, values[::-1])  # random access: order-independent


def test_take_is_chunk_independent() -> None:
    plan = PermutationPlan(100_000, 3, 4)
    whole = plan.take(np.arange(100_000, dtype=np.int64))
    parts = np.concatenate(
        [
            plan.take(np.arange(s, min(s + 7_777, 100_000), dtype=np.int64))
            for s in range(0, 100_000, 7_777)
        ]
    )
    assert np.array_equal(whole, parts)


def test_bad_keys_and_sizes() -> None:
    with pytest.raises(ValueError, match="keys must be"):
        KeyedPermutation(10, np.zeros(3, dtype=np.uint64))
    with pytest.raises(ValueError, match="n must be"):
        KeyedPermutation(-1, np.zeros(ROUNDS, dtype=np.uint64))


@pytest.mark.parametrize(
    "case", GOLDEN["permutation"], ids=lambda c: f"n{c['n']}-s{c['seed']}-e{c['epoch']}"
)
def test_golden_permutations(case: dict) -> None:
    """Compatibility policy: these sequences never change within a major version."""
    n = case["n"]
    got = PermutationPlan(n, case["seed"], case["epoch"]).take(
        np.arange(min(n, 12), dtype=np.int64)
    )
    assert got.tolist() == case["first"]


@pytest.mark.parametrize(
    "case", GOLDEN["distributed_sampler"], ids=lambda c: f"n{c['n']}-r{c['rank']}"
)
def test_golden_sampler_sequences(case: dict) -> None:
    s = DistributedSampler(
        case["n"], case["world_size"], case["rank"], seed=case["seed"], tail=case["tail"]
    )
    s.set_epoch(case["epoch"])
    assert list(s)[:12] == case["first"]


def test_golden_stream_words() -> None:
    g = GOLDEN["stream_words"]
    assert stream_words(g["stream"], g["epoch"], g["seed"], 4).tolist() == g["words"]
