"""Per-item tables built once per node (``_core/plan_share.shared_tables``).

What a family derives from its inputs at construction (a copy of the
weights, an alias table, each item's class, the items grouped by class,
narrowed lengths) goes through the node's shared folder like its plans.
Shared tables must change nothing a rank yields, saves or resumes, for every
family (a table is mapped read-only: a family that wrote to one would fail
here); one process of a node builds them and nothing is left behind; and
the memory a build freed goes back to the OS (``_core/heap.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fairshard
from fairshard._core.heap import release_freed_memory
from fairshard._core.plans import BatchPlan, IndexPlan
from fairshard._distributed.node_arrays import share_arrays
from tests._launch import node_rank
from tests.catalog import CATALOG, Family, sampler_families

RNG = np.random.default_rng(11)
LENGTHS = RNG.integers(1, 300, 4000)
LABELS = RNG.integers(0, 7, 4000)
WEIGHTS = RNG.random(4000)

#: name -> (builder, the attributes that hold its shared tables).
TABLES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "weighted-replacement": (
        lambda: fairshard.WeightedSampler(WEIGHTS, num_replicas=2, rank=1),
        ("_table.alias", "_table.threshold"),
    ),
    "weighted": (
        lambda: fairshard.WeightedSampler(WEIGHTS, replacement=False, num_replicas=2, rank=1),
        ("_weights",),
    ),
    "class-balanced-replacement": (
        lambda: fairshard.ClassBalancedSampler(LABELS, num_replicas=2, rank=1),
        ("_members",),
    ),
    "class-balanced": (
        lambda: fairshard.ClassBalancedSampler(LABELS, replacement=False, num_replicas=2, rank=1),
        ("_inverse",),
    ),
    "length-bucket": (
        lambda: fairshard.LengthBucketBatchSampler(LENGTHS, batch_size=8, num_replicas=2, rank=1),
        ("_key",),
    ),
    "token-budget": (
        lambda: fairshard.TokenBudgetBatchSampler(LENGTHS, 2048, num_replicas=2, rank=1),
        ("_key",),
    ),
    "class-batch": (
        lambda: fairshard.ClassBatchSampler(
            LABELS, {c: 1 for c in range(7)}, batch_size=7, num_replicas=2, rank=1
        ),
        ("_members.0", "_members.6"),
    ),
    "packing": (
        lambda: fairshard.PackingBatchSampler(LENGTHS, 512, 2, num_replicas=2, rank=1),
        ("lengths",),
    ),
}


def _share(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    monkeypatch.delenv("FAIRSHARD_PLAN_CACHE", raising=False)
    if folder is None:
        monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "0")
    else:
        monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "1")
        monkeypatch.setenv("FAIRSHARD_SHARE_DIR", str(folder))


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj


def _run(family: Family) -> list[Any]:
    """Two epochs of rank 1 of 2, then a resume from a mid-epoch state."""
    sampler = family.make(60, 1, 2)
    seen: list[Any] = []
    for epoch in range(2):
        sampler.set_epoch(epoch)
        seen.append(list(sampler))
    sampler.set_epoch(2)
    items = iter(sampler)
    head = [next(items)]
    state = sampler.state_dict()
    resumed = family.make(60, 1, 2)
    resumed.load_state_dict(state)
    return [*seen, head, list(resumed), json.dumps(state, sort_keys=True, default=str)]


@pytest.mark.filterwarnings("ignore::fairshard.DegenerateConfigWarning")  # padding notes
@pytest.mark.parametrize("name", [f.name for f in sampler_families()])
def test_every_family_yields_saves_and_resumes_the_same_with_shared_tables(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _share(monkeypatch, None)
    alone = _run(CATALOG[name])
    _share(monkeypatch, tmp_path / "shm")
    assert _run(CATALOG[name]) == alone


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_are_mapped_read_only_and_equal_the_private_ones(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    build, paths = TABLES[name]
    _share(monkeypatch, None)
    private = build()
    _share(monkeypatch, tmp_path / "shm")
    shared = build()
    for path in paths:
        mine, mapped = _get(private, path), _get(shared, path)
        assert mine.flags.writeable and not mapped.flags.writeable, path
        assert mapped.dtype == mine.dtype and np.array_equal(mapped, mine), path
    shared.set_epoch(1)
    private.set_epoch(1)
    assert list(shared) == list(private)
    assert not list((tmp_path / "shm").iterdir())  # one local rank: names go at once


def test_new_weights_get_their_own_tables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _share(monkeypatch, tmp_path / "shm")
    sampler = fairshard.WeightedSampler(WEIGHTS, 1000, replacement=False, num_replicas=2, rank=0)
    private = WEIGHTS.copy()
    private[:2000] = 0.0
    sampler.set_weights(private)
    sampler.set_epoch(1)
    assert not sampler._weights.flags.writeable
    assert np.array_equal(sampler._weights, private)
    assert set(sampler).isdisjoint(range(2000))  # zero weights: never drawn


@pytest.mark.parametrize("shapes", [[(0,)], [(0,), (3,)], [(3,), (0,)], [(0, 4), (0,)]])
def test_empty_arrays_are_shared(shapes: list[tuple[int, ...]], tmp_path: Path) -> None:
    arrays = {
        f"a{i}": np.arange(int(np.prod(s)), dtype=np.int32).reshape(s) for i, s in enumerate(shapes)
    }
    got = share_arrays("k", lambda: (arrays, {"x": 1}), folder=tmp_path / "shm", local_ranks=2)
    again = share_arrays(
        "k", lambda: pytest.fail("built twice"), folder=tmp_path / "shm", local_ranks=2
    )
    for mapped in (got, again):
        assert mapped.meta == {"x": 1} and list(mapped.arrays) == list(arrays)
        for key, array in arrays.items():
            assert mapped.arrays[key].shape == array.shape
            assert np.array_equal(mapped.arrays[key], array)
    assert got.built and not again.built
    assert not list((tmp_path / "shm").iterdir())


_NODE = """
import json, sys
import numpy as np
import fairshard
from fairshard._core import plan_share
built = []
original = plan_share.share_arrays
def counting(key, build, **kw):
    got = original(key, build, **kw)
    built.append(got.built)
    return got
plan_share.share_arrays = counting
rng = np.random.default_rng(3)
lengths, labels, weights = rng.integers(1, 300, 5000), rng.integers(0, 5, 5000), rng.random(5000)
rank = int(sys.argv[1])
W = dict(num_replicas=3, rank=rank)
samplers = [
    fairshard.PackingBatchSampler(lengths, 512, 2, **W),
    fairshard.WeightedSampler(weights, replacement=False, **W),
    fairshard.ClassBatchSampler(labels, {c: 1 for c in range(5)}, batch_size=5, **W),
]
out = [list(s) for s in samplers]
print(json.dumps({"built": built, "items": out}, default=int), flush=True)
sys.stdin.readline()
"""


def test_a_node_builds_each_table_once_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "shm"
    procs = [node_rank(_NODE, r, folder, 3) for r in range(3)]
    try:
        reports = [json.loads(p.stdout.readline()) for p in procs if p.stdout]
        # Three tables and three plans, each built by exactly one of the three ranks.
        assert all(len(r["built"]) == 6 for r in reports)
        assert [sum(col) for col in zip(*(r["built"] for r in reports), strict=True)] == [1] * 6
        assert not list(folder.iterdir())  # every name removed once the 3rd rank mapped it
    finally:
        for p in procs:
            p.communicate("\n", timeout=60)
    for r, report in enumerate(reports):
        alone = node_rank(_NODE, r, folder, 3, FAIRSHARD_SHARE_PLANS="0")
        out, _ = alone.communicate("\n", timeout=120)
        assert alone.returncode == 0
        assert json.loads(out.splitlines()[0])["items"] == report["items"]


_HEAP = """
import numpy as np
from fairshard._core.heap import release_freed_memory
def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) // 1024
big = np.ones(24 << 17)  # a 24 MiB mapped block, then freed: glibc now serves
del big  # blocks below 24 MiB from its heap
blocks = [np.ones(1 << 17) for _ in range(96)]  # 96 MiB of 1 MiB blocks in the heap
keep = blocks[-1]  # the top block stays, so the heap cannot shrink from its end
del blocks
before = anon()
print(release_freed_memory(), before - anon())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; glibc's allocator")
def test_freed_heap_memory_goes_back_to_the_os() -> None:
    if not release_freed_memory():
        pytest.skip("this C library has no malloc_trim (not glibc)")
    out = subprocess.run(
        [sys.executable, "-c", _HEAP], capture_output=True, text=True, check=True, timeout=120
    )
    trimmed, returned = out.stdout.split()
    assert trimmed == "True" and int(returned) >= 64  # MiB of the 95 freed


@pytest.mark.parametrize(("batches", "size"), [(4000, 1), (4000, 3), (500, 64), (40, 5000)])
def test_a_batch_chunk_holds_about_an_index_chunk_of_items(batches: int, size: int) -> None:
    """What a rank holds beside a mapped plan is one chunk's Python lists: bounded by items."""
    offsets = np.arange(batches + 1, dtype=np.int64) * size
    plan = BatchPlan(np.arange(batches * size, dtype=np.int64), offsets)
    mapped = BatchPlan.from_plan_arrays(plan.plan_arrays()[0], {})
    for p in (plan, mapped):
        assert 1 <= p.max_chunk <= BatchPlan.max_chunk
        assert p.max_chunk * size <= max(IndexPlan.max_chunk, size)
        assert p.max_chunk == min(BatchPlan.max_chunk, max(1, IndexPlan.max_chunk // size))


@pytest.mark.parametrize("local", ["1", "2"])
def test_tables_never_go_to_the_plan_cache(
    local: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A cache keeps plans for restarts; tables (some new every epoch) stay out of it."""
    monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "auto")
    monkeypatch.setenv("FAIRSHARD_PLAN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAIRSHARD_SHARE_DIR", str(tmp_path / "shm"))
    monkeypatch.setenv("LOCAL_WORLD_SIZE", local)
    hard = fairshard.HardExampleSampler(4000, num_replicas=2, rank=0)
    for epoch in range(3):
        hard.set_epoch(epoch)
        seen = list(hard)
        hard.record(np.asarray(seen), np.linspace(0.0, 1.0, len(seen)))
    packing = fairshard.PackingBatchSampler(LENGTHS, 512, 2, num_replicas=2, rank=0)
    list(packing)
    assert len(list((tmp_path / "cache").glob("*.plan"))) == 1  # the packing plan alone
    assert packing.lengths.flags.writeable == (local == "1")  # shared on a node of two
