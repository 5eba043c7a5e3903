from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import (
    AttentionCost,
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    StateDictError,
)
from fairshard._batching import token_budget
from fairshard._batching.cost_balance import step_imbalance
from fairshard._batching.length_bucket import sort_key
from fairshard._batching.token_budget import TokenBudgetBatchSampler, batch_cost

from ..contract import SamplerContract, flat

LENGTHS = np.random.default_rng(9).integers(1, 300, 997)
ONE: dict[str, Any] = {"num_replicas": 1, "rank": 0}


class TestTokenBudgetPadded(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> TokenBudgetBatchSampler:
        return TokenBudgetBatchSampler(LENGTHS, 1024, num_replicas=world_size, rank=rank, **kw)


class TestTokenBudgetSumDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> TokenBudgetBatchSampler:
        return TokenBudgetBatchSampler(
            LENGTHS,
            2000,
            cost="sum",
            max_batch_size=64,
            num_replicas=world_size,
            rank=rank,
            tail="drop",
            seed=11,
            **kw,
        )


def _square_cost(lengths: np.ndarray) -> float:  # attention-like: quadratic in length
    return float((lengths.astype(float) ** 2).sum())


@given(
    lengths=st.lists(st.integers(1, 100), min_size=1, max_size=300),
    budget=st.integers(100, 1000),
    cap=st.one_of(st.none(), st.integers(1, 16)),
    cost=st.sampled_from(["padded", "sum", _square_cost]),
    world=st.integers(1, 5),
    tail=st.sampled_from(["pad", "drop"]),
    seed=st.integers(0, 1000),
)
def test_never_over_budget_every_item_once_equal_steps(
    lengths: list[int], budget: int, cap: int | None, cost: Any, world: int, tail: Any, seed: int
) -> None:
    if cost is _square_cost:
        budget *= 100  # the longest item (100) costs 10000 alone
    ranks = [
        TokenBudgetBatchSampler(
            lengths,
            budget,
            max_batch_size=cap,
            cost=cost,
            num_replicas=world,
            rank=r,
            seed=seed,
            tail=tail,
        )
        for r in range(world)
    ]
    plan = ranks[0].plan()
    batches = plan.items(np.arange(len(plan)))
    arr = np.asarray(lengths)
    for b in batches:
        assert 0 < len(b) <= (cap or len(lengths))
        assert batch_cost(arr[b], cost) <= budget
    assert sorted(flat(batches)) == list(range(len(lengths)))
    if tail == "drop" and 0 < len(plan) < world:  # every rank would get 0 steps
        with pytest.raises(ConfigError, match="gives every rank 0 steps"):
            len(ranks[0])
        return
    shares = [list(s) for s in ranks]
    assert len({len(s) for s in shares}) == 1
    assert [len(s) for s in ranks] == [len(x) for x in shares]
    for share in shares:
        for b in share:
            assert batch_cost(arr[b], cost) <= budget


def test_greedy_fills_close_to_the_budget_and_balances_steps() -> None:
    lengths = np.clip(np.random.default_rng(3).lognormal(5, 0.8, 30000), 1, 4096).astype(int)
    s = TokenBudgetBatchSampler(lengths, 8192, num_replicas=8, rank=0)
    costs = s.batch_costs()
    assert costs.max() <= 8192
    assert np.median(costs) >= 0.9 * 8192
    assert step_imbalance(costs, 8) <= 1.10


def test_oversized_item_is_an_error_naming_index_and_length() -> None:
    with pytest.raises(ConfigError, match=r"item 2 has length 50, over max_tokens=40 \(2 item"):
        TokenBudgetBatchSampler([5, 6, 50, 7, 60], 40, num_replicas=1, rank=0)


def test_skip_oversized_counts_and_warns() -> None:
    with pytest.warns(DegenerateConfigWarning, match="skipping 2 item"):
        s = TokenBudgetBatchSampler(
            [5, 6, 50, 7, 60], 40, skip_oversized=True, num_replicas=1, rank=0
        )
    assert s.num_skipped == 2
    assert sorted(flat(s)) == [0, 1, 3]


def test_callable_cost_oversized_uses_the_cost() -> None:
    with pytest.raises(ConfigError, match="item 1 has length 10"):
        TokenBudgetBatchSampler([3, 10], 50, cost=_square_cost, num_replicas=1, rank=0)


@pytest.mark.parametrize(
    ("lengths", "kwargs", "error", "match"),
    [
        ([1, 0, 2], {}, ConfigError, r"lengths\[1\] is 0; every length must be > 0"),
        ([1, 2], {"max_tokens": 0}, ConfigError, "max_tokens must be > 0"),
        ([1, 2], {"max_tokens": "10"}, ConfigTypeError, "max_tokens must be a number"),
        ([1, 2], {"max_batch_size": 0}, ConfigError, "max_batch_size must be >= 1"),
        ([1, 2], {"cost": "max"}, ConfigError, "cost must be 'padded', 'sum' or a callable"),
        ([1, 2], {"skip_oversized": "yes"}, ConfigTypeError, "skip_oversized must be a bool"),
        ([[1, 2]], {}, ConfigError, "lengths must be 1-D"),
        ([50, 60], {"skip_oversized": True}, ConfigError, "every item is longer"),
    ],
)
def test_bad_inputs(lengths: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    args = {"max_tokens": 10, **kwargs}
    with (
        pytest.warns(DegenerateConfigWarning)
        if kwargs.get("skip_oversized") is True
        else _nothing(),
        pytest.raises(error, match=match),
    ):
        TokenBudgetBatchSampler(lengths, num_replicas=1, rank=0, **args)


def _nothing() -> Any:
    import contextlib

    return contextlib.nullcontext()


def test_float_lengths_and_budget() -> None:
    lengths = np.random.default_rng(0).uniform(0.1, 3.0, 500)
    s = TokenBudgetBatchSampler(lengths, 10.0, cost="sum", num_replicas=1, rank=0)
    assert all(lengths[b].sum() <= 10.0 for b in s)


# ------------------------------------------------------------------ cost models
def test_a_resume_with_another_lambda_is_refused() -> None:
    # Every lambda is "<lambda>": the fingerprint must come from what the cost computes.
    lengths = np.random.default_rng(2).integers(1, 60, 200)
    a = TokenBudgetBatchSampler(lengths, 5000, cost=lambda x: float((x**2).sum()), **ONE)
    it = iter(a)
    next(it)
    state = a.state_dict()
    b = TokenBudgetBatchSampler(lengths, 5000, cost=lambda x: float((x**2).sum() + x.size), **ONE)
    with pytest.raises(StateDictError, match="cost"):
        b.load_state_dict(state)
    same = TokenBudgetBatchSampler(lengths, 5000, cost=lambda y: float((y * y).sum()), **ONE)
    same.load_state_dict(state)  # another function that computes the same costs resumes
    assert list(same) == list(it)


def test_named_cost_models_are_fingerprinted_exactly() -> None:
    lengths = np.arange(1, 100)
    a = TokenBudgetBatchSampler(lengths, 5000, cost=AttentionCost(0.01), **ONE)
    b = TokenBudgetBatchSampler(lengths, 5000, cost=AttentionCost(0.02), **ONE)
    with pytest.raises(StateDictError, match=r"attention\(coef=0.01"):
        b.load_state_dict(a.state_dict())
    TokenBudgetBatchSampler(lengths, 5000, cost=AttentionCost(0.01), **ONE).load_state_dict(
        a.state_dict()
    )


@pytest.mark.parametrize(
    "cost",
    [
        lambda x: float("nan") if x.size > 2 else float(x.max() * x.size),
        lambda x: float("inf") if x.size > 2 else float(x.max() * x.size),
        lambda x: -1.0 if x.size > 2 else float(x.max() * x.size),
    ],
)
def test_a_bad_batch_cost_is_an_error_naming_the_items(cost: Any) -> None:
    # NaN compared false with the budget, so a batch of cost 27 passed under 10.
    with pytest.raises(ConfigError, match=r"cost returned .* for the batch of items \[\d+, \d+"):
        TokenBudgetBatchSampler([3] * 9, 10, cost=cost, **ONE).plan(0)


def test_a_bad_item_cost_is_an_error_naming_the_item() -> None:
    with pytest.raises(ConfigError, match=r"cost returned nan for the batch of items \[1\]"):
        TokenBudgetBatchSampler(
            [3, 7, 3], 10, cost=lambda x: float("nan") if x.max() == 7 else 1.0, **ONE
        )


@given(
    lengths=st.lists(st.integers(1, 200), min_size=1, max_size=300),
    coef=st.sampled_from([0.0, 0.001, 0.05, 1.0]),
    packed=st.booleans(),
    cap=st.one_of(st.none(), st.integers(1, 16)),
    seed=st.integers(0, 100),
)
def test_attention_cost_fills_like_the_generic_search(
    lengths: list[int], coef: float, packed: bool, cap: int | None, seed: int
) -> None:
    # The closed-form fill of a named model equals the generic doubling search.
    model = AttentionCost(coef, packed)
    budget = float(model(np.array([200] * 4)))
    fast = TokenBudgetBatchSampler(
        lengths, budget, cost=model, max_batch_size=cap, seed=seed, **ONE
    )
    slow = TokenBudgetBatchSampler(
        lengths, budget, cost=lambda x: model(x), max_batch_size=cap, seed=seed, **ONE
    )
    batches = list(fast)
    assert batches == list(slow)
    assert all(model(np.array(lengths)[b]) <= budget for b in batches)


def test_attention_cost_balances_steps_under_the_quadratic_cost() -> None:
    raw = np.random.default_rng(0).lognormal(5.0, 0.8, 200_000)
    lengths = np.clip(np.rint(raw), 1, 4096).astype(np.int64)
    model = AttentionCost(1 / 1024)
    s = TokenBudgetBatchSampler(lengths, 65536, cost=model, num_replicas=8, rank=0)
    costs = s.batch_costs()
    assert costs.max() <= 65536
    assert step_imbalance(costs, 8) <= 1.05


def test_attention_cost_fit_recovers_the_coefficient() -> None:
    rng = np.random.default_rng(1)
    batches = [rng.integers(1, 2000, rng.integers(1, 64)) for _ in range(40)]
    true = AttentionCost(0.003)
    seconds = [2e-6 * true(b) for b in batches]
    assert AttentionCost.fit(batches, seconds).coef == pytest.approx(0.003, rel=1e-6)
    packed = AttentionCost(0.003, packed=True)
    fitted = AttentionCost.fit(batches, [packed(b) for b in batches], packed=True)
    assert fitted.packed and fitted.coef == pytest.approx(0.003, rel=1e-6)
    linear = AttentionCost.fit(batches, [float(len(b) * b.max()) for b in batches])
    assert linear.coef == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    ("batches", "packed"),
    [
        ([[512] * 4, [512] * 8, [512] * 16], False),  # one length, several batch sizes
        ([[512, 3], [512, 100, 7], [512] * 9], False),  # padded: only the longest counts
        ([[256] * 2, [256] * 5], True),
        ([[1, 3], [1, 3, 1, 3], [3, 1] * 4], True),  # packed: the same length mix
    ],
)
def test_attention_cost_fit_on_a_single_length_is_refused(
    batches: list[list[int]], packed: bool
) -> None:
    times = [1e-6 * sum(b) * (1 + 0.01 * k) for k, b in enumerate(batches)]  # any times
    with pytest.raises(ConfigError, match="proportional .* several clearly different lengths"):
        AttentionCost.fit(batches, times, packed=packed)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: AttentionCost(-1.0), ConfigError, r"coef must be finite and >= 0, got coef=-1.0"),
        (lambda: AttentionCost(float("nan")), ConfigError, "coef must be finite"),
        (lambda: AttentionCost("0.1"), ConfigTypeError, "coef must be a number"),  # type: ignore[arg-type]
        (lambda: AttentionCost(0.1, packed=1), ConfigTypeError, "packed must be a bool"),  # type: ignore[arg-type]
        (lambda: AttentionCost.fit([[1]], [1.0]), ConfigError, "at least two batches"),
        (
            lambda: AttentionCost.fit([[1], [100]], [0.0, 0.0]),
            ConfigError,
            "linear term came out <= 0",
        ),
    ],
)
def test_attention_cost_bad_inputs(make: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize("high", [3, 300, 40_000])  # 40_000: a wide key, sorted by argsort
def test_longest_first_is_the_stable_argsort(high: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_budget, "_SORT_CHUNK", 64)  # many chunks, keys spread over them
    lengths = np.random.default_rng(high).integers(1, high, 5000)
    key = sort_key(lengths)
    items = np.random.default_rng(1).permutation(5000).astype(np.int32)
    out = np.full(5000, -1, dtype=np.int32)
    token_budget._longest_first(key, items, out)
    assert np.array_equal(out, items[np.argsort(-lengths[items], kind="stable")])
