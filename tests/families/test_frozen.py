"""Longer golden prefixes on several ranks, and frozen version-1 states (compatibility policy).

Two promises of the compatibility policy (docs/compatibility.md), pinned for
the pinned configuration of every catalog family (``tests/catalog.py``):

* the order a ``(config, seed, epoch)`` produces: the first 40 items of every
  rank of 3 in epochs 0 and 1 (``tests/golden/prefixes.json``), including
  ``ShardedIterable`` in both modes and ``HardExampleSampler`` after recorded
  losses (which pins its floating-point score path);
* a ``state_dict`` saved by version 1 keeps loading and resumes with exactly
  the items the saving run had left (``tests/golden/states_v1/*.json``), as
  numpy keeps old-version pickles loadable.

Regenerate only with a deliberate, documented change:
``python -m tests.families.test_frozen``; a new family adds its own entries
and leaves the others as they are: ``python -m tests.families.test_frozen --add``.
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
from tests.catalog import CATALOG, N_PINNED

from .test_golden_families import plain as _plain

N = N_PINNED
GOLDEN = Path(__file__).parents[1] / "golden"
PREFIXES = GOLDEN / "prefixes.json"
STATES = GOLDEN / "states_v1"
LOSSES = ((np.arange(N) * 7919) % 97) / 97.0  # deterministic, uneven per-sample losses


def _hard_example_after_records(w: int, r: int) -> Any:
    sampler = fairshard.HardExampleSampler(N, num_replicas=w, rank=r, seed=7)
    sampler.record(np.arange(N), LOSSES)  # the same records on every virtual rank
    sampler.set_epoch(1)
    return sampler


#: every catalog family's pinned configuration, plus one scenario (scores after records)
ALL: dict[str, Callable[[int, int], Any]] = {
    **{name: family.pinned for name, family in CATALOG.items()},
    "hard-example-records": _hard_example_after_records,
}
WORLD, PREFIX = 3, 40


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


def write(add_only: bool) -> None:
    """Rewrite the files; ``add_only`` keeps every existing entry as it is."""
    old = json.loads(PREFIXES.read_text()) if add_only and PREFIXES.exists() else {}
    rows = {n: old[n] if n in old else prefixes(n) for n in sorted(ALL)}
    PREFIXES.write_text(json.dumps(rows, indent=0) + "\n")
    STATES.mkdir(exist_ok=True)
    for n in sorted(ALL):
        path = STATES / f"{n}.json"
        if not (add_only and path.exists()):
            path.write_text(json.dumps(frozen(n), indent=0) + "\n")


if __name__ == "__main__":  # regenerate (a deliberate, documented change only) or --add
    write(add_only="--add" in sys.argv[1:])
    sys.exit(0)
