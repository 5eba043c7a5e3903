"""Plan draws (``PlannedSampler``'s NOTE on draws) of the families that have more than one.

A new sampler records its last draw in the config; a state saved by draw 1
(no ``draw`` field; ``*_draw1_states.json``, written by fairshard before
draw 2) switches the sampler to draw 1 and resumes with exactly the items
it had left; an unknown draw or a refused state leaves the draw as it was.
``test_class_draw.py`` has ClassBatchSampler's own draw-1 states.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairshard import ClassBatchSampler, PackingBatchSampler, StateDictError
from fairshard._core.base import PlannedSampler
from fairshard._core.state import K_CHECKSUM, K_FORMAT, K_VERSION, seal

from ..catalog import CATALOG

SEALS = (K_FORMAT, K_VERSION, K_CHECKSUM)
HERE = Path(__file__).parent
PACKING_DRAW1 = json.loads((HERE / "packing_draw1_states.json").read_text())
L600 = np.random.default_rng(4).integers(1, 90, 600)
L40K = np.clip(np.rint(np.random.default_rng(5).lognormal(4.0, 0.8, 40_000)), 1, 900).astype(
    np.int64
)
#: the configurations of the draw-1 packing states (3 ranks, rank 1, seed 7, epoch 1, a third in)
PACKING: dict[str, tuple[Any, int, int, dict[str, Any]]] = {
    "tokens": (L600, 128, 2, {}),
    "attention-window": (L600, 100, 3, {"cost": "attention", "window": 50}),
    "in-place-skip": (L40K, 512, 4, {"oversized": "skip"}),
}
LABELS = np.random.default_rng(4).integers(0, 6, 600)
FAMILIES: dict[str, Callable[[], PlannedSampler[Any, Any]]] = {
    "packing": lambda: PackingBatchSampler(L600, 128, 2, num_replicas=3, rank=1, seed=7),
    "class-batch": lambda: ClassBatchSampler(
        LABELS, 2, classes_per_batch=3, num_replicas=3, rank=1, seed=7
    ),
}


def _packing(name: str) -> PackingBatchSampler:
    lengths, capacity, rows, kw = PACKING[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the skipped items' warning
        return PackingBatchSampler(lengths, capacity, rows, num_replicas=3, rank=1, seed=7, **kw)


def _plain(batches: Any) -> list[list[list[int]]]:
    return [[[int(i) for i in row] for row in b] for b in batches]


@pytest.mark.parametrize("name", sorted(PACKING))
def test_packing_draw_1_states_resume_exactly_and_keep_draw_1(name: str) -> None:
    saved = PACKING_DRAW1[name]
    assert "draw" not in saved["state"]["config"]
    sampler = _packing(name)
    assert sampler.state_dict()["config"]["draw"] == 2  # a new sampler records its draw
    fresh = sampler.plan(1).flat.copy()
    sampler.load_state_dict(saved["state"])
    rest = _plain(sampler)
    if "remaining" in saved:
        assert rest == saved["remaining"]
    else:
        assert len(rest) == saved["remaining_batches"]
        assert hashlib.sha256(json.dumps(rest).encode()).hexdigest() == saved["remaining_sha256"]
    assert "draw" not in sampler.state_dict()["config"]  # it goes on with draw 1's plans
    assert not np.array_equal(sampler.plan(1).flat, fresh)  # draw 2 cuts other windows


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_state_of_an_unknown_draw_names_the_field(family: str) -> None:
    sampler = FAMILIES[family]()
    body = {k: v for k, v in sampler.state_dict().items() if k not in SEALS}
    body["config"] = {**body["config"], "draw": 9}
    with pytest.raises(StateDictError, match="draw=9"):
        sampler.load_state_dict(seal(body))
    assert sampler.state_dict()["config"]["draw"] == 2


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_refused_draw_1_state_keeps_draw_2(family: str) -> None:
    sampler = FAMILIES[family]()
    first = sampler.plan(0).flat.copy()
    body = {k: v for k, v in sampler.state_dict().items() if k not in SEALS}
    body["config"] = {k: v for k, v in body["config"].items() if k != "draw"}
    state = seal(body)
    state["seed"] = 8  # the checksum no longer matches
    with pytest.raises(StateDictError):
        sampler.load_state_dict(state)
    assert sampler.state_dict()["config"]["draw"] == 2
    np.testing.assert_array_equal(sampler.plan(0).flat, first)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_draw_1_state_of_this_run_switches_and_resumes_it(family: str) -> None:
    """A draw-1 sampler's own state (as fairshard 0.2 saved it) resumes on a new sampler."""
    old = FAMILIES[family]()
    old._draw = 1
    it = iter(old)
    for _ in range(3):
        next(it)
    state = old.state_dict()
    assert "draw" not in state["config"]
    rest = list(it)
    new = FAMILIES[family]()
    new.load_state_dict(state)
    assert json.dumps(list(new), default=int) == json.dumps(rest, default=int)


def test_every_family_with_draws_records_its_draw() -> None:
    """A family with more than one draw puts ``draw`` in its config (else its states could not)."""
    seen = set()
    for entry in CATALOG.values():
        sampler = entry.make(200, 0, 2)
        if len(getattr(type(sampler), "_DRAWS", ())) > 1:  # streams have no plan draws
            seen.add(type(sampler).kind)
            assert sampler.full_config()["draw"] == type(sampler)._DRAWS[-1]
    assert seen == {"ClassBatchSampler", "PackingBatchSampler"}


def test_packing_draw_2_packs_as_tightly_as_draw_1() -> None:
    lengths = np.clip(np.rint(np.random.default_rng(0).lognormal(5.0, 0.8, 100_000)), 1, 4096)
    new = PackingBatchSampler(lengths.astype(np.int64), 4096, 8, num_replicas=1, rank=0)
    old = PackingBatchSampler(lengths.astype(np.int64), 4096, 8, num_replicas=1, rank=0)
    old._draw = 1
    for epoch in (0, 1):
        assert abs(new.efficiency(epoch) - old.efficiency(epoch)) < 0.002
        assert new.efficiency(epoch) > 0.985
        assert np.array_equal(np.sort(new.plan(epoch).flat), np.arange(lengths.size))
