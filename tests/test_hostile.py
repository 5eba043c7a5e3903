"""Hostile inputs: every public entry point rejects bad values with a documented error.

Constructors and methods raise ``ConfigTypeError`` (wrong type) or
``ConfigError`` (wrong value) with a message naming the parameter;
``load_state_dict`` raises only ``StateDictError`` -- for missing and extra
keys, wrong types, other sampler kinds, future versions, other datasets,
random nested junk and states re-sealed with a valid checksum around
impossible values -- never another exception and never silent acceptance.

The fuzz is generic: add a sampler family to ``FACTORIES`` (one line).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from torch.utils.data import BatchSampler, SequentialSampler

import fairshard
from fairshard import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    DistributedEvalSampler,
    DistributedSampler,
    Partition,
    StateDictError,
    simulate,
    verify,
)
from fairshard._core.state import K_CHECKSUM, K_FORMAT, K_VERSION, seal

N = 23


def _quiet(build: Callable[[], Any]) -> Any:
    """Build a sampler and use up its once-only padding/drop warning (tested elsewhere)."""
    sampler = build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        iter(sampler)
        sampler.set_epoch(0)
    return sampler


#: name -> factory(dataset_size, world_size, rank) for the load_state_dict fuzz.
FACTORIES: dict[str, Callable[[int, int, int], Any]] = {
    "distributed-pad-lazy": lambda n, w, r: DistributedSampler(n, w, r, seed=5),
    "distributed-drop-torch": lambda n, w, r: DistributedSampler(
        n, w, r, seed=5, drop_last=True, order="torch"
    ),
    "distributed-blocked": lambda n, w, r: DistributedSampler(n, w, r, seed=5, layout="blocked"),
    "eval": lambda n, w, r: DistributedEvalSampler(n, w, r),
    "weighted": lambda n, w, r: fairshard.WeightedSampler(
        1.0 + np.arange(n) % 3, num_replicas=w, rank=r, seed=5
    ),
    "weighted-no-replacement": lambda n, w, r: fairshard.WeightedSampler(
        1.0 + np.arange(n) % 3, n // 2, replacement=False, num_replicas=w, rank=r, seed=5
    ),
    "class-balanced": lambda n, w, r: fairshard.ClassBalancedSampler(
        np.arange(n) % 3, num_replicas=w, rank=r, seed=5
    ),
    "hard-example": lambda n, w, r: fairshard.HardExampleSampler(n, num_replicas=w, rank=r, seed=5),
    "wrapped": lambda n, w, r: fairshard.ShardedSampler(
        SequentialSampler(range(n)), num_replicas=w, rank=r, seed=5
    ),
    "class-batch": lambda n, w, r: fairshard.ClassBatchSampler(
        np.arange(n) % 3, 2, num_replicas=w, rank=r, seed=5
    ),
    "length-bucket": lambda n, w, r: fairshard.LengthBucketBatchSampler(
        1 + np.arange(n) % 7, 3, num_replicas=w, rank=r, seed=5
    ),
    "token-budget": lambda n, w, r: fairshard.TokenBudgetBatchSampler(
        1 + np.arange(n) % 7, 16, num_replicas=w, rank=r, seed=5
    ),
    "batch-shard": lambda n, w, r: _quiet(
        lambda: fairshard.BatchShardSampler(
            BatchSampler(SequentialSampler(range(n)), 4, False),
            num_replicas=w,
            rank=r,
            seed=5,
            tail="drop",
        )
    ),
}
NAMES = sorted(FACTORIES)

# ----------------------------------------------------------- constructors
BAD_SAMPLER_ARGS: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"dataset": -1}, ConfigError, "dataset size must be >= 0"),
    ({"dataset": 1.5}, ConfigTypeError, "dataset must define __len__"),
    ({"dataset": math.nan}, ConfigTypeError, "dataset must define __len__"),
    ({"dataset": math.inf}, ConfigTypeError, "dataset must define __len__"),
    ({"dataset": True}, ConfigTypeError, "dataset must be a sized dataset"),
    ({"dataset": None}, ConfigTypeError, "dataset must define __len__"),
    ({"dataset": "abcd"}, ConfigTypeError, "dataset must be a sized dataset or an int"),
    ({"dataset": 1 << 70}, ConfigError, "dataset size must be <= 2\\*\\*62"),
    ({"num_replicas": 0}, ConfigError, "num_replicas must be >= 1"),
    ({"num_replicas": -3}, ConfigError, "num_replicas must be >= 1"),
    ({"num_replicas": 2.0}, ConfigTypeError, "num_replicas must be an int"),
    ({"num_replicas": True}, ConfigTypeError, "num_replicas must be an int"),
    ({"num_replicas": "2"}, ConfigTypeError, "num_replicas must be an int"),
    ({"num_replicas": math.nan}, ConfigTypeError, "num_replicas must be an int"),
    ({"rank": -1}, ConfigError, "rank must be >= 0"),
    ({"rank": 2}, ConfigError, r"rank must be in \[0, 1\]"),
    ({"rank": 1 << 70}, ConfigError, r"rank must be in \[0, 1\]"),
    ({"rank": True}, ConfigTypeError, "rank must be an int"),
    ({"rank": 1.0}, ConfigTypeError, "rank must be an int"),
    ({"seed": 1.5}, ConfigTypeError, "seed must be an int"),
    ({"seed": math.inf}, ConfigTypeError, "seed must be an int"),
    ({"seed": False}, ConfigTypeError, "seed must be an int"),
    ({"seed": "7"}, ConfigTypeError, "seed must be an int"),
    ({"seed": 1 << 64}, ConfigError, "seed must be between"),
    ({"seed": -(1 << 63) - 1}, ConfigError, "seed must be between"),
    ({"shuffle": 2}, ConfigTypeError, "shuffle must be a bool"),
    ({"shuffle": None}, ConfigTypeError, "shuffle must be a bool"),
    ({"drop_last": -1}, ConfigTypeError, "drop_last must be a bool"),
    ({"order": "fast"}, ConfigError, "order must be one of"),
    ({"order": None}, ConfigError, "order must be one of"),
    ({"layout": "diagonal"}, ConfigError, "layout must be one of"),
    ({"layout": 1}, ConfigError, "layout must be one of"),
    ({"tail": "wrap"}, ConfigError, "tail must be one of"),
    ({"auto_epoch": 1}, ConfigError, "auto_epoch must be a bool"),
    ({"order": "torch", "layout": "blocked"}, ConfigError, "order='torch'.*layout='blocked'"),
    ({"dataset": 1, "drop_last": True}, ConfigError, "drop_last=True with 1 samples"),
]


@pytest.mark.parametrize(("kwargs", "error", "match"), BAD_SAMPLER_ARGS)
def test_distributed_sampler_rejects(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    args = {"dataset": N, "num_replicas": 2, "rank": 0, **kwargs}
    with pytest.raises(error, match=match):
        DistributedSampler(**args)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dataset": -3}, ConfigError, "dataset size must be >= 0"),
        ({"dataset": [1, 2], "num_replicas": 0}, ConfigError, "num_replicas must be >= 1"),
        ({"rank": 5}, ConfigError, "rank must be in"),
        ({"shuffle": "yes"}, ConfigTypeError, "shuffle must be a bool"),
        ({"seed": 0.5}, ConfigTypeError, "seed must be an int"),
    ],
)
def test_eval_sampler_rejects(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    args = {"dataset": N, "num_replicas": 2, "rank": 0, **kwargs}
    with pytest.raises(error, match=match):
        DistributedEvalSampler(**args)


def test_numpy_int_dataset_size_is_a_size() -> None:
    assert list(DistributedSampler(np.int64(6), 2, 1, shuffle=False)) == [1, 3, 5]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"total": -1}, ConfigError, "total must be >= 0"),
        ({"total": 1.5}, ConfigTypeError, "total must be an int"),
        ({"total": math.nan}, ConfigTypeError, "total must be an int"),
        ({"world_size": 0}, ConfigError, "world_size must be >= 1"),
        ({"world_size": True}, ConfigTypeError, "world_size must be an int"),
        ({"layout": "x"}, ConfigError, "layout must be one of"),
        ({"tail": None}, ConfigError, "tail must be one of"),
        ({"start": 11}, ConfigError, "start must be between 0 and 10"),
        ({"start": -1}, ConfigError, "start must be between 0 and 10"),
    ],
)
def test_partition_rejects(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        Partition(**{"total": 10, "world_size": 2, **kwargs})


# ---------------------------------------------------------------- methods
@pytest.mark.parametrize(
    ("epoch", "error", "match"),
    [
        (-1, ConfigError, "epoch must be >= 0"),
        (1.0, ConfigTypeError, "epoch must be an int"),
        (True, ConfigTypeError, "epoch must be an int"),
        (None, ConfigTypeError, "epoch must be an int"),
        ("1", ConfigTypeError, "epoch must be an int"),
        (math.nan, ConfigTypeError, "epoch must be an int"),
        (math.inf, ConfigTypeError, "epoch must be an int"),
    ],
)
def test_set_epoch_rejects(epoch: Any, error: type[Exception], match: str) -> None:
    sampler = DistributedSampler(N, 2, 0)
    with pytest.raises(error, match=match):
        sampler.set_epoch(epoch)
    assert sampler.epoch == 0  # unchanged


def test_huge_epoch_is_planned_or_named() -> None:
    lazy = DistributedSampler(N, 2, 0)
    lazy.set_epoch(1 << 70)  # the lazy order mixes any epoch through SeedSequence
    assert len(list(lazy)) == len(lazy)
    torch_order = DistributedSampler(N, 2, 0, order="torch")
    torch_order.set_epoch(1 << 64)
    with pytest.raises(ConfigError, match=r"seed \+ epoch.*epoch=18446744073709551616"):
        list(torch_order)


def make_two(rank: int, world_size: int) -> DistributedSampler:
    return DistributedSampler(N, world_size, rank)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((None, 2), {}, ConfigTypeError, "make must be a callable"),
        ((5, 2), {}, ConfigTypeError, "make must be a callable"),
        ((make_two, 0), {}, ConfigError, "world_size must be >= 1"),
        ((make_two, 1.5), {}, ConfigTypeError, "world_size must be an int"),
        ((make_two, True), {}, ConfigTypeError, "world_size must be an int"),
        ((make_two, 2), {"epochs": 0}, ConfigError, "epochs must be >= 1"),
        ((make_two, 2), {"epochs": math.nan}, ConfigTypeError, "epochs must be an int"),
        ((make_two, 2), {"dataset_size": -1}, ConfigError, "dataset_size must be >= 0"),
        ((make_two, 2), {"dataset_size": "23"}, ConfigTypeError, "dataset_size must be an int"),
        ((make_two, 2), {"first": -1}, ConfigError, "first must be >= 0"),
    ],
)
def test_simulate_rejects(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        simulate(*args, **kwargs)


@pytest.mark.parametrize(
    ("sampler", "timeout", "error", "match"),
    [
        (None, 1.0, ConfigTypeError, "verify\\(\\) needs a fairshard sampler"),
        ([1, 2], 1.0, ConfigTypeError, "verify\\(\\) needs a fairshard sampler"),
        (DistributedSampler(N, 2, 0), -1.0, ConfigError, "timeout must be > 0.0"),
        (DistributedSampler(N, 2, 0), 0, ConfigError, "timeout must be > 0.0"),
        (DistributedSampler(N, 2, 0), math.nan, ConfigError, "timeout must be finite"),
        (DistributedSampler(N, 2, 0), "5", ConfigTypeError, "timeout must be a number"),
    ],
)
def test_verify_rejects(sampler: Any, timeout: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        verify(sampler, timeout=timeout)


class Resizable:
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n


@pytest.mark.parametrize("new_length", [N - 1, N + 5, 0])
def test_dataset_changing_length_between_epochs(new_length: int) -> None:
    data = Resizable(N)
    sampler = DistributedSampler(data, 2, 0)
    state = sampler.state_dict()
    assert len(list(sampler)) == len(sampler)
    data.n = new_length
    sampler.set_epoch(1)
    with pytest.raises(ConfigError, match=f"had {N} samples .* has {new_length} now"):
        iter(sampler)
    with warnings.catch_warnings():  # an emptied dataset also warns; not the point here
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        rebuilt = DistributedSampler(data, 2, 0)  # a new sampler over the changed dataset ...
    with pytest.raises(StateDictError, match=f"saved with n={N} .* dataset changed size"):
        rebuilt.load_state_dict(state)  # ... refuses the old dataset's state


# ------------------------------------------------- load_state_dict fuzzing
def midway(name: str, world_size: int = 3, rank: int = 1, n: int = N) -> tuple[Any, dict[str, Any]]:
    """A sampler of family ``name`` and a state saved part way through epoch 2."""
    sampler = FACTORIES[name](n, world_size, rank)
    sampler.set_epoch(2)
    it = iter(sampler)
    for _ in range(len(sampler) // 2):
        next(it)
    return FACTORIES[name](n, world_size, rank), json.loads(json.dumps(sampler.state_dict()))


def body_of(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in (K_FORMAT, K_VERSION, K_CHECKSUM)}


def assert_rejected(sampler: Any, state: Any) -> None:
    before = (sampler.epoch, len(sampler))
    with pytest.raises(StateDictError):
        sampler.load_state_dict(state)
    assert (sampler.epoch, len(sampler)) == before, "a rejected state changed the sampler"


def assert_coherent(sampler: Any, n: int) -> None:
    """An accepted state leaves a sampler that keeps its promises."""
    length, left = len(sampler), sampler.remaining
    assert 0 <= left <= length, "remaining is not within the epoch's len()"
    with warnings.catch_warnings():  # a state at the end of its epoch warns on a new pass
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        items, lengths = [], set()
        for item in sampler:
            items.append(item)
            lengths.add(len(sampler))
    assert len(items) == left, "remaining does not match the pass"
    assert lengths <= {length}, "len() changed during the pass"
    flat = [i for item in items for i in (item if isinstance(item, list) else [item])]
    assert all(0 <= i < n for i in flat)
    resumed = sampler.state_dict()
    assert resumed["rank"] < resumed["world_size"]


plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(1 << 70), 1 << 70)
    | st.text(max_size=5)
    | st.floats(allow_nan=True, allow_infinity=True),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
junk = plain | st.sets(st.integers(), max_size=2) | st.binary(max_size=3) | st.builds(object)


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_missing_extra_and_retyped_entries_rejected(name: str, data: st.DataObject) -> None:
    sampler, state = midway(name)
    key = data.draw(st.sampled_from(sorted(state)))
    action = data.draw(st.sampled_from(["delete", "add", "replace"]))
    bad = dict(state)
    if action == "delete":
        del bad[key]
    elif action == "add":
        bad[data.draw(st.text(min_size=1, max_size=6).filter(lambda k: k not in state))] = (
            data.draw(junk)
        )
    else:
        bad[key] = data.draw(junk)
        assume(type(bad[key]) is not type(state[key]) or bad[key] != state[key])
    assert_rejected(sampler, bad)


@pytest.mark.parametrize("name", NAMES)
@given(value=junk)
def test_anything_but_a_state_rejected(name: str, value: Any) -> None:
    sampler, _ = midway(name)
    assert_rejected(sampler, value)


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_resealed_junk_rejected_or_coherent(name: str, data: st.DataObject) -> None:
    """A valid checksum around arbitrary values: an error, or a state that makes sense."""
    sampler, state = midway(name)
    body = body_of(state)
    key = data.draw(st.sampled_from(sorted(body)))
    if key in ("config", "extra") and data.draw(st.booleans()):
        inner = dict(body[key])
        inner[data.draw(st.sampled_from(sorted(inner) or ["x"]) | st.text(max_size=4))] = data.draw(
            plain
        )
        body[key] = inner
    else:
        body[key] = data.draw(plain | st.integers(-5, 40))
    try:
        sampler.load_state_dict(seal(body))
    except StateDictError:
        return
    assert_coherent(sampler, N)


IMPOSSIBLE: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str]] = [
    ("negative epoch", lambda b: {**b, "epoch": -1}, "'epoch'.* must be >= 0"),
    ("negative steps", lambda b: {**b, "steps": -4}, "'steps'.* must be >= 0"),
    ("negative start", lambda b: {**b, "start": -1}, "'start'.* must be >= 0"),
    ("rank beyond world", lambda b: {**b, "rank": b["world_size"]}, "no such rank"),
    ("no ranks", lambda b: {**b, "world_size": 0}, "'world_size'.* must be >= 1"),
    ("steps past the epoch", lambda b: {**b, "steps": 10**6}, "exceeds the"),
    ("start past the epoch", lambda b: {**b, "start": 10**6}, "beyond the epoch"),
    ("bool epoch", lambda b: {**b, "epoch": True}, "has type bool"),
    ("float steps", lambda b: {**b, "steps": 1.0}, "has type float"),
    ("other seed", lambda b: {**b, "seed": b["seed"] + 1}, "saved with seed="),
    ("other config", lambda b: {**b, "config": {**b["config"], "n": N + 1}}, "saved with n="),
    (
        "array in config",
        lambda b: {**b, "config": {**b["config"], "n": np.arange(3)}},
        "saved with n=",
    ),
    ("missing config field", lambda b: {**b, "config": {}}, "saved with"),
    (
        "learned state it never saves",
        lambda b: {**b, "extra": {**b["extra"], "bogus": [1.0]}},
        r"\['extra'\]",
    ),
    ("other kind", lambda b: {**b, "kind": "SomeOtherSampler"}, "saved by a SomeOtherSampler"),
    ("future version", lambda b: {**seal(b), "version": 2}, "version=2"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("label", "edit", "match"), IMPOSSIBLE, ids=[i[0] for i in IMPOSSIBLE])
def test_resealed_impossible_values_rejected(
    name: str, label: str, edit: Callable[[dict[str, Any]], dict[str, Any]], match: str
) -> None:
    sampler, state = midway(name)
    bad = edit(body_of(state))
    if label == "future version":  # re-sealed with the checksum a newer writer would compute
        from fairshard._core.state import digest

        bad = {**bad, K_CHECKSUM: digest({k: v for k, v in bad.items() if k != K_CHECKSUM})}
    else:
        bad = seal(bad)
    with pytest.raises(StateDictError, match=match):
        sampler.load_state_dict(bad)


@pytest.mark.filterwarnings("ignore:.*split evenly")  # another dataset's declared tail
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", NAMES)
def test_states_of_other_families_and_datasets_rejected(name: str, other: str) -> None:
    sampler, own = midway(name)
    _, foreign = midway(other, n=N + 2)  # another dataset
    assert_rejected(sampler, foreign)
    if other != name:
        _, same_data = midway(other)
        assert_rejected(sampler, same_data)
    sampler.load_state_dict(own)  # and the sampler still takes its own state
    assert_coherent(sampler, N)
