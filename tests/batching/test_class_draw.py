"""ClassBatchSampler's draws: draw 2's P x K stop batches, and states of draw 1.

Draw 2 (``choose_stop_shuffled``) shuffles the epoch's chunks at once where
draw 1 (``choose_stop``) drew one batch per step; both keep the classes of a
batch distinct, stop when fewer than P classes have a chunk left, and
deplete the classes together. States saved by draw 1 (no ``draw`` in their
config; ``class_batch_draw1_states.json``, written by fairshard before draw
2) resume with exactly the items they had left. The rules every family with
draws keeps (unknown draws, refused states) are in ``test_draws.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard._batching import class_draw
from fairshard._batching.class_batch import ClassBatchSampler
from fairshard._batching.class_draw import choose_stop, choose_stop_shuffled
from fairshard._core.state import K_CHECKSUM, K_FORMAT, K_VERSION

from ..contract import flat

LABELS = np.random.default_rng(4).integers(0, 6, 600)
NAMES = [["ant", "bee", "cow", "doe", "elk"][i % 5] for i in range(403)]
SEALS = (K_FORMAT, K_VERSION, K_CHECKSUM)
DRAW1 = json.loads((Path(__file__).parent / "class_batch_draw1_states.json").read_text())
#: the configurations of the draw-1 states (3 ranks, rank 1, seed 7, epoch 1, mid-epoch)
CONFIGS: dict[str, tuple[Any, Any, dict[str, Any]]] = {
    "pk-stop": (LABELS, 2, {"classes_per_batch": 3}),
    "pk-recycle": (NAMES, 3, {"classes_per_batch": 3, "policy": "recycle"}),
    "fixed-recycle": (LABELS, {0: 3, 4: 7}, {"policy": "recycle", "num_batches": 40}),
}


def _sampler(name: str) -> ClassBatchSampler:
    labels, counts, kw = CONFIGS[name]
    return ClassBatchSampler(labels, counts, num_replicas=3, rank=1, seed=7, **kw)


def _plain(batches: Any) -> list[list[int]]:
    return [[int(i) for i in b] for b in batches]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_draw_1_states_resume_exactly_and_keep_draw_1(name: str) -> None:
    saved = DRAW1[name]
    assert "draw" not in saved["state"]["config"]
    sampler = _sampler(name)
    assert sampler.state_dict()["config"]["draw"] == 2  # a new sampler records its draw
    fresh = _plain(_sampler(name).plan(1).items(np.arange(len(_sampler(name).plan(1)))))
    sampler.load_state_dict(saved["state"])
    assert _plain(sampler) == saved["remaining"]
    assert "draw" not in sampler.state_dict()["config"]  # it goes on with draw 1's plans
    if name != "fixed-recycle":  # draw 2 plans differ where it draws differently
        assert _plain(sampler.plan(1).items(np.arange(len(sampler.plan(1))))) != fresh


def test_draw_2_keeps_the_fixed_stop_plan() -> None:
    """Fixed batches under stop draw nothing new: draw 1's plans (the pinned ones) stay."""
    new = ClassBatchSampler(LABELS, 2, num_replicas=1, rank=0, seed=3)
    old = ClassBatchSampler(LABELS, 2, num_replicas=1, rank=0, seed=3)
    old._draw = 1
    for epoch in (0, 2):
        np.testing.assert_array_equal(new.plan(epoch).flat, old.plan(epoch).flat)
        np.testing.assert_array_equal(new.plan(epoch).offsets, old.plan(epoch).offsets)


chunk_counts = st.lists(st.integers(0, 40), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(chunk_counts, st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_shuffled_stop_draw_keeps_the_rules(chunks: list[int], per_batch: int, seed: int) -> None:
    have = np.asarray(chunks, dtype=np.int64)
    rows = choose_stop_shuffled(have, per_batch, np.random.default_rng(seed))
    assert rows.shape[1] == per_batch
    for row in rows.tolist():
        assert row == sorted(set(row))  # distinct classes, sorted
    used = np.bincount(rows.reshape(-1).astype(np.int64), minlength=have.size)
    assert (used <= have).all()  # no chunk twice: nothing repeats within the epoch
    assert np.count_nonzero(have - used) < per_batch  # it stopped by the rule


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 7), min_size=20, max_size=300),
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(0, 1000),
)
def test_stop_batches_have_exact_counts_and_no_repeats(
    labels: list[int], per_batch: int, k: int, seed: int
) -> None:
    counts = np.bincount(labels)
    usable = [c for c in range(counts.size) if counts[c] >= k]
    if len(usable) < per_batch:
        return
    kept = [x for x in labels if x in usable]
    sampler = ClassBatchSampler(
        kept, k, classes_per_batch=per_batch, num_replicas=1, rank=0, seed=seed
    )
    batches = _plain(sampler.plan(0).items(np.arange(len(sampler.plan(0)))))
    seen = [i for b in batches for i in b]
    assert len(seen) == len(set(seen))  # no sample twice in the epoch
    for batch in batches:
        classes = [kept[i] for i in batch]
        assert sorted(set(classes)) == sorted(classes[::k])  # grouped, sorted, distinct
        assert all(classes.count(c) == k for c in set(classes)) and len(set(classes)) == per_batch
    left = np.bincount([kept[i] for i in range(len(kept)) if i not in set(seen)], minlength=8)
    assert np.count_nonzero(left // k) < per_batch  # fewer than P classes could fill a chunk


def _pace(draw: Any, chunks: np.ndarray, per_batch: int, seed: int) -> tuple[int, float, float]:
    """(batches, spread of the classes' used fraction at mid-epoch, largest leftover)."""
    rows = draw(chunks, per_batch, np.random.default_rng(seed)).astype(np.int64)
    half = np.bincount(rows[: rows.shape[0] // 2].reshape(-1), minlength=chunks.size)
    left = chunks - np.bincount(rows.reshape(-1), minlength=chunks.size)
    return rows.shape[0], float(np.std(half / chunks)), float(left.max())


@pytest.mark.parametrize("skew", [0.0, 1.0])
def test_shuffled_draw_depletes_like_the_sequential_one(skew: float) -> None:
    """Epoch length, mid-epoch spread and leftovers match draw 1's over several seeds."""
    sizes = np.random.default_rng(0).integers(40, 120, 300).astype(np.float64)
    chunks = np.maximum(1, sizes * np.exp(skew * np.linspace(-1, 1, 300))).astype(np.int64)
    old = np.array([_pace(choose_stop, chunks, 8, s) for s in range(6)])
    new = np.array([_pace(choose_stop_shuffled, chunks, 8, s) for s in range(6)])
    assert abs(new[:, 0].mean() - old[:, 0].mean()) <= 0.005 * old[:, 0].mean()
    assert 0.7 <= new[:, 1].mean() / old[:, 1].mean() <= 1.4
    assert new[:, 2].max() <= max(2.0, 2 * old[:, 2].max())


def test_a_dominant_class_falls_back_to_the_exact_draw() -> None:
    """A class with most chunks cannot sit once in every shuffled batch: the tail is exact."""
    chunks = np.array([500] + [10] * 20, dtype=np.int64)
    rows = choose_stop_shuffled(chunks, 4, np.random.default_rng(1))
    old = choose_stop(chunks, 4, np.random.default_rng(1))
    assert all(len(set(r)) == 4 for r in rows.tolist())
    assert abs(rows.shape[0] - old.shape[0]) <= 2


def test_plan_batches_are_whole_for_mixed_counts() -> None:
    sampler = ClassBatchSampler(
        LABELS, {0: 3, 1: 1, 2: 2, 5: 4}, classes_per_batch=2, num_replicas=1, rank=0
    )
    plan = sampler.plan(0)
    for b in range(len(plan)):
        classes = LABELS[plan.batch(b)].tolist()
        assert len(set(classes)) == 2 and all(
            classes.count(c) == {0: 3, 1: 1, 2: 2, 5: 4}[c] for c in set(classes)
        )
    seen = flat(list(sampler))
    assert len(set(seen)) == len(seen)


@given(
    codes=st.lists(st.integers(0, 6), min_size=0, max_size=300),
    block=st.sampled_from([1, 7, 64, 1 << 20]),
)
def test_group_order_is_one_stable_argsort_of_the_codes(codes: list[int], block: int) -> None:
    """Block by block (any block size), the result is the stable order by class."""
    array = np.asarray(codes, dtype=np.uint16)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(class_draw, "_COUNT_BLOCK", block)
        order, bounds = class_draw.group_order(array, 7)
    assert order.dtype == np.int32
    assert order.tolist() == np.argsort(array, kind="stable").tolist()
    assert bounds.tolist() == [0, *np.cumsum(np.bincount(array, minlength=7)).tolist()]
    members = class_draw.split_groups(order, bounds)
    assert [m.tolist() for m in members] == [np.flatnonzero(array == c).tolist() for c in range(7)]
