"""Longer golden prefixes on several ranks, and frozen version-1 states (compatibility policy).

Two promises of docs/randomness.md's compatibility policy, pinned per family:

* the order a ``(config, seed, epoch)`` produces: the first 40 items of every
  rank of 3 in epochs 0 and 1 (``tests/golden/prefixes.json``), including
  ``ShardedIterable`` in both modes and ``HardExampleSampler`` after recorded
  losses (which pins its floating-point score path);
* a ``state_dict`` saved by version 1 keeps loading and resumes with exactly
  the items the saving run had left (``tests/golden/states_v1/*.json``), as
  numpy keeps old-version pickles loadable.

Regenerate only with a deliberate, documented change:
``python -m tests.families.test_frozen``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fairshard

from .test_golden_families import FAMILIES, N

GOLDEN = Path(__file__).parents[1] / "golden"
PREFIXES = GOLDEN / "prefixes.json"
STATES = GOLDEN / "states_v1"
LOSSES = ((np.arange(N) * 7919) % 97) / 97.0  # deterministic, uneven per-sample losses


def _hard_example_after_records(w: int, r: int) -> Any:
    sampler = fairshard.HardExampleSampler(N, num_replicas=w, rank=r, seed=7)
    sampler.record(np.arange(N), LOSSES)  # the same records on every virtual rank
    sampler.set_epoch(1)
    return sampler


def _stream_items(w: int, r: int) -> Any:
    return fairshard.ShardedIterable(list(range(N)), num_replicas=w, rank=r, seed=7)


def _stream_shards(w: int, r: int) -> Any:
    shards = [list(range(s * 6, s * 6 + 6)) for s in range(N // 6)]
    return fairshard.ShardedIterable(
        shards, mode="shard", shard_sizes=[6] * len(shards), num_replicas=w, rank=r, seed=7
    )


ALL: dict[str, Callable[[int, int], Any]] = {
    **FAMILIES,
    "hard-example-records": _hard_example_after_records,
    "stream-item": _stream_items,
    "stream-shard": _stream_shards,
}
WORLD, PREFIX = 3, 40


def _plain(items: list[Any]) -> list[Any]:
    return [list(map(int, i)) if isinstance(i, list | tuple) else int(i) for i in items]


def prefixes(name: str) -> dict[str, list[Any]]:
    out = {}
    for epoch in (0, 1):
        for rank in range(WORLD):
            sampler = ALL[name](WORLD, rank)
            if name != "hard-example-records" or epoch != 1:
                sampler.set_epoch(epoch + (1 if name == "hard-example-records" else 0))
            out[f"epoch{epoch}-rank{rank}"] = _plain(list(sampler)[:PREFIX])
    if name == "hard-example-records":
        scores = json.dumps(ALL[name](WORLD, 0).state_dict()["extra"], sort_keys=True)
        out["state-extra-sha256"] = [hashlib.sha256(scores.encode()).hexdigest()]
    return out


def frozen(name: str) -> dict[str, Any]:
    sampler = ALL[name](WORLD, 1)
    if name != "hard-example-records":
        sampler.set_epoch(1)
    it = iter(sampler)
    for _ in range(max(1, len(sampler) // 2)):  # mid-epoch
        next(it)
    state = json.loads(json.dumps(sampler.state_dict()))  # plain data, as saved to disk
    return {"state": state, "remaining": _plain(list(it))}


def _fresh(name: str) -> Any:
    if name == "hard-example-records":  # a new process knows nothing of the records
        return fairshard.HardExampleSampler(N, num_replicas=WORLD, rank=1, seed=7)
    return ALL[name](WORLD, 1)


@pytest.mark.parametrize("name", sorted(ALL))
def test_prefixes_are_pinned(name: str) -> None:
    golden = json.loads(PREFIXES.read_text())
    assert prefixes(name) == golden[name]


@pytest.mark.parametrize("name", sorted(ALL))
def test_version_1_states_keep_loading_and_resuming(name: str) -> None:
    saved = json.loads((STATES / f"{name}.json").read_text())
    assert saved["state"]["version"] == 1
    sampler = _fresh(name)
    sampler.load_state_dict(saved["state"])
    assert _plain(list(sampler)) == saved["remaining"]


def test_every_family_is_frozen() -> None:
    assert sorted(json.loads(PREFIXES.read_text())) == sorted(ALL)
    assert sorted(p.stem for p in STATES.glob("*.json")) == sorted(ALL)


if __name__ == "__main__":  # regenerate (a deliberate, documented change only)
    PREFIXES.write_text(json.dumps({n: prefixes(n) for n in sorted(ALL)}, indent=0) + "\n")
    STATES.mkdir(exist_ok=True)
    for n in sorted(ALL):
        (STATES / f"{n}.json").write_text(json.dumps(frozen(n), indent=0) + "\n")
    sys.exit(0)
