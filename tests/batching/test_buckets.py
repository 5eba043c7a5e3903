"""Static-shape batching: ``ShapeBucketBatchSampler`` and ``KeyBatchSampler``.

Every batch's shape is one of ``shapes``, announced before the first epoch and
exact for every epoch; batch sizes are multiples of ``batch_multiple``; a
batch holds one bucket (one key); ranks take equal steps; errors name the
parameter. The contract, golden, frozen-state and fault suites reach both
families through ``tests/catalog.py``.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import (
    ConfigError,
    ConfigTypeError,
    FairshardWarning,
    KeyBatchSampler,
    ShapeBucketBatchSampler,
)

ONE = {"num_replicas": 1, "rank": 0}


def _epoch(sampler: Any) -> list[list[int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairshardWarning)  # padding tails, on purpose
        return [list(map(int, b)) for b in sampler]


def check_shapes(sampler: ShapeBucketBatchSampler, lengths: np.ndarray) -> None:
    batches = _epoch(sampler)
    seen = Counter((len(b), sampler.padded_length(b)) for b in batches)
    assert seen == Counter(sampler.shapes)  # exactly the announced multiset, every epoch
    items = [i for b in batches for i in b]
    assert len(items) == len(set(items)) == len(lengths) - sampler.num_left_out
    for b in batches:
        assert len(b) % sampler.batch_multiple == 0
        pad = sampler.padded_length(b)
        assert max(lengths[b]) <= pad
        assert len({sampler._bucket[i] for i in b}) == 1  # one bucket per batch
        if sampler.max_tokens is not None:
            assert len(b) * pad <= sampler.max_tokens


settings_kw = {"max_examples": 40, "deadline": None}


@settings(**settings_kw)
@given(
    lengths=st.lists(st.integers(0, 300), min_size=1, max_size=300),
    mode=st.sampled_from(["boundaries", "round_to", "exact"]),
    multiple=st.sampled_from([1, 2, 4, 8]),
    by_tokens=st.booleans(),
    drop_last=st.booleans(),
    seed=st.integers(0, 9),
)
def test_every_batch_has_an_announced_shape_a_multiple_and_one_bucket(
    lengths: list[int], mode: str, multiple: int, by_tokens: bool, drop_last: bool, seed: int
) -> None:
    lens = np.asarray(lengths)
    kwargs: dict[str, Any] = {"batch_multiple": multiple, "drop_last": drop_last, "seed": seed}
    if mode == "boundaries":
        kwargs["boundaries"] = [32, 64, 128, 300]
    elif mode == "round_to":
        kwargs["round_to"] = 50
    if by_tokens:
        kwargs["max_tokens"] = 3000
    else:
        kwargs["batch_size"] = 2 * multiple
    try:
        sampler = ShapeBucketBatchSampler(lens, **kwargs, **ONE)
    except ConfigError as e:  # a bucket below one multiple, or no batch at all: said so
        assert "batch_multiple" in str(e)
        return
    check_shapes(sampler, lens)
    sampler.set_epoch(1)
    check_shapes(sampler, lens)


@settings(**settings_kw)
@given(
    keys=st.lists(st.sampled_from(["1:1", "4:3", "16:9", "9:16"]), min_size=1, max_size=200),
    multiple=st.sampled_from([1, 2, 4]),
    drop_last=st.booleans(),
    seed=st.integers(0, 9),
)
def test_key_batches_hold_one_key_and_match_the_shapes(
    keys: list[str], multiple: int, drop_last: bool, seed: int
) -> None:
    try:
        sampler = KeyBatchSampler(
            keys, 2 * multiple, batch_multiple=multiple, drop_last=drop_last, seed=seed, **ONE
        )
    except ConfigError as e:
        assert "no bucket fills one batch" in str(e)
        return
    batches = _epoch(sampler)
    assert Counter((len(b), sampler.key_of(b)) for b in batches) == Counter(sampler.shapes)
    for b in batches:
        assert len({keys[i] for i in b}) == 1 and len(b) % multiple == 0
    items = [i for b in batches for i in b]
    assert len(items) == len(set(items)) == len(keys) - sampler.num_left_out


@pytest.mark.parametrize("world", [1, 2, 3, 5])
def test_ranks_take_equal_steps_and_cover_the_epoch(world: int) -> None:
    lengths = 1 + (np.arange(700) * 37) % 500
    make = lambda r: ShapeBucketBatchSampler(  # noqa: E731
        lengths, round_to=64, max_tokens=8192, batch_multiple=8, num_replicas=world, rank=r
    )
    shares = [_epoch(make(r)) for r in range(world)]
    assert len({len(s) for s in shares}) == 1 and all(len(s) == len(make(0)) for s in shares)
    whole = (
        _epoch(make(0))
        if world == 1
        else _epoch(
            ShapeBucketBatchSampler(lengths, round_to=64, max_tokens=8192, batch_multiple=8, **ONE)
        )
    )
    got = Counter(tuple(b) for s in shares for b in s)
    assert set(got) == {tuple(b) for b in whole}  # every batch on some rank; pads repeat whole
    keys = KeyBatchSampler(np.arange(300) % 7, 8, num_replicas=world, rank=0)
    assert all(
        len(keys) == len(KeyBatchSampler(np.arange(300) % 7, 8, num_replicas=world, rank=r))
        for r in range(world)
    )


def test_same_seed_same_batches_and_the_epoch_reshuffles() -> None:
    lengths = 1 + (np.arange(400) * 37) % 300
    a = _epoch(ShapeBucketBatchSampler(lengths, 16, boundaries=[64, 128, 300], seed=3, **ONE))
    b = _epoch(ShapeBucketBatchSampler(lengths, 16, boundaries=[64, 128, 300], seed=3, **ONE))
    s = ShapeBucketBatchSampler(lengths, 16, boundaries=[64, 128, 300], seed=3, **ONE)
    s.set_epoch(1)
    assert a == b and _epoch(s) != a
    assert Counter(s.shapes) == Counter((len(x), s.padded_length(x)) for x in a)


def test_token_budget_sizes_follow_fairseqs_multiple_rule() -> None:
    """``max_tokens // L`` rounded down to the multiple (fairseq's required_batch_size_multiple)."""
    lengths = np.repeat([100, 200, 300], 70)
    s = ShapeBucketBatchSampler(lengths, max_tokens=4000, batch_multiple=8, **ONE)
    # 4000 // 100 = 40; 4000 // 200 = 20 -> 16; 4000 // 300 = 13 -> 8. Remainders: 30 -> 24
    # (6 left out), 6 -> 0 and 6 -> 0 (6 and 6 left out).
    assert s.shapes == {(8, 300): 8, (16, 200): 4, (24, 100): 1, (40, 100): 1}
    assert s.num_left_out == 18


def test_bad_inputs_name_the_parameter() -> None:
    with pytest.raises(ConfigError, match=r"exactly one of batch_size and max_tokens"):
        ShapeBucketBatchSampler([1, 2], **ONE)
    with pytest.raises(ConfigError, match=r"exactly one of batch_size and max_tokens"):
        ShapeBucketBatchSampler([1, 2], 2, max_tokens=10, **ONE)
    with pytest.raises(ConfigError, match=r"boundaries or round_to, not both"):
        ShapeBucketBatchSampler([1, 2], 2, boundaries=[4], round_to=2, **ONE)
    with pytest.raises(ConfigError, match=r"strictly increasing.*boundaries=\[8, 4\]"):
        ShapeBucketBatchSampler([1, 2], 2, boundaries=[8, 4], **ONE)
    with pytest.raises(ConfigTypeError, match=r"boundaries must be a list"):
        ShapeBucketBatchSampler([1, 2], 2, boundaries=8, **ONE)
    with pytest.raises(ConfigError, match=r"item 1 has length 9, over the last of boundaries"):
        ShapeBucketBatchSampler([1, 9], 2, boundaries=[4, 8], **ONE)
    with pytest.raises(ConfigError, match=r"batch_size must be a multiple of batch_multiple=8"):
        ShapeBucketBatchSampler([1, 2] * 8, 12, batch_multiple=8, **ONE)
    with pytest.raises(ConfigError, match=r"max_tokens=100 fits 3 item\(s\) of padded length 32"):
        ShapeBucketBatchSampler([30] * 16, max_tokens=100, round_to=32, batch_multiple=8, **ONE)
    with pytest.raises(ConfigError, match=r"batch_multiple must be"):
        ShapeBucketBatchSampler([1, 2], 2, batch_multiple=0, **ONE)
    with pytest.raises(ConfigError, match=r"round_to must be"):
        ShapeBucketBatchSampler([1, 2], 2, round_to=0, **ONE)
    with pytest.raises(ConfigError, match=r"no bucket fills one batch of batch_multiple=8"):
        ShapeBucketBatchSampler([1, 2, 3], 8, batch_multiple=8, **ONE)
    with pytest.raises(ConfigError, match=r"batch_size must be a multiple of batch_multiple=4"):
        KeyBatchSampler(["a", "b"] * 8, 6, batch_multiple=4, **ONE)
    with pytest.raises(ConfigTypeError, match=r"keys"):
        KeyBatchSampler([0.5, 1.5], 1, **ONE)


@settings(**settings_kw)
@given(
    lengths=st.lists(st.integers(1, 200), min_size=1, max_size=300),
    multiple=st.sampled_from([2, 4, 8]),
    cost=st.sampled_from(["padded", "sum"]),
    cap=st.sampled_from([None, 12]),
)
def test_token_budget_batch_multiple_rounds_down_like_fairseq(
    lengths: list[int], multiple: int, cost: str, cap: int | None
) -> None:
    """Batches are multiples of ``batch_multiple`` unless the budget fits fewer or the epoch ends.

    fairseq's ``required_batch_size_multiple``: the greedy fill's size is
    rounded down to a multiple; a batch the budget holds fewer than
    ``batch_multiple`` of stays as it is. Nothing is left out.
    """
    from fairshard import TokenBudgetBatchSampler

    kw: dict[str, Any] = {"cost": cost, "max_batch_size": cap, **ONE}
    s = TokenBudgetBatchSampler(lengths, 400, batch_multiple=multiple, **kw)
    sizes = s.plan().sizes().tolist()
    assert sum(1 for k in sizes if k >= multiple and k % multiple) <= 1  # the epoch's last
    assert sorted(i for b in _epoch(s) for i in b) == list(range(len(lengths)))
    assert all(c <= 400 for c in s.batch_costs())
    plain = TokenBudgetBatchSampler(lengths, 400, **kw)
    assert "batch_multiple" not in plain.state_dict()["config"]  # older states stay valid
    assert s.state_dict()["config"]["batch_multiple"] == multiple


@settings(**settings_kw)
@given(
    pairs=st.lists(st.tuples(st.integers(1, 300), st.integers(1, 150)), min_size=1, max_size=300),
    multiple=st.sampled_from([1, 4, 8]),
    by_tokens=st.booleans(),
)
def test_two_dimensional_buckets_input_by_output(
    pairs: list[tuple[int, int]], multiple: int, by_tokens: bool
) -> None:
    src = np.asarray([a for a, _ in pairs])
    tgt = np.asarray([b for _, b in pairs])
    size: dict[str, Any] = {"max_tokens": 4800} if by_tokens else {"batch_size": 2 * multiple}
    try:
        s = ShapeBucketBatchSampler(
            src, boundaries=[50, 100, 300], target_lengths=tgt, target_round_to=50,
            batch_multiple=multiple, **size, **ONE,
        )  # fmt: skip
    except ConfigError as e:
        assert "batch_multiple" in str(e)
        return
    batches = _epoch(s)
    seen = Counter((len(b), *s.padded_length(b)) for b in batches)
    assert seen == Counter(s.shapes)
    for b in batches:
        pad_in, pad_out = s.padded_length(b)
        assert src[b].max() <= pad_in and tgt[b].max() <= pad_out and pad_out % 50 == 0
        assert len({(s._bucket[i]) for i in b}) == 1 and len(b) % multiple == 0
        if by_tokens:
            assert len(b) * max(pad_in, pad_out) <= 4800
    items = [i for b in batches for i in b]
    assert len(items) == len(set(items)) == len(pairs) - s.num_left_out


def test_two_dimensional_bad_inputs_name_the_parameter() -> None:
    with pytest.raises(ConfigError, match=r"target_lengths must hold one length per item"):
        ShapeBucketBatchSampler([1, 2, 3], 1, target_lengths=[1, 2], **ONE)
    with pytest.raises(ConfigError, match=r"target_boundaries and target_round_to bucket"):
        ShapeBucketBatchSampler([1, 2, 3], 1, target_round_to=8, **ONE)
    with pytest.raises(ConfigError, match=r"item 2 has target_length 40, over the last of "
                       r"target_boundaries=\[16, 32\]"):  # fmt: skip
        ShapeBucketBatchSampler([1, 2, 3], 1, target_lengths=[1, 2, 40],
                                target_boundaries=[16, 32], **ONE)  # fmt: skip
    with pytest.raises(ConfigError, match=r"give target_boundaries or target_round_to, not both"):
        ShapeBucketBatchSampler([1, 2], 1, target_lengths=[1, 2], target_boundaries=[4],
                                target_round_to=2, **ONE)  # fmt: skip
