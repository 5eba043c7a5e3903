"""Plans shared across a node's ranks and cached across restarts (``_core/plan_share.py``).

Every materialized family's shared plan must equal the plan a rank builds on
its own; one process of a node builds while the others map; a builder that
died (mid-build or after publishing) leaves nothing another process would
read, and nothing behind once the node's ranks have mapped the plan; a cache
file that is not this job's is never read as its plan.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fairshard
from fairshard._core.plans import flatten_items
from fairshard._distributed.digest import digest
from tests._launch import child_env, node_rank

RNG = np.random.default_rng(5)
LENGTHS = RNG.integers(1, 200, 3000)
LABELS = RNG.integers(0, 5, 3000)

#: Every family whose plan is materialized, small; name -> builder(rank).
SHARED = {
    "torch-order": lambda r: fairshard.DistributedSampler(
        5000, num_replicas=4, rank=r, order="torch", seed=3
    ),
    "weighted": lambda r: fairshard.WeightedSampler(
        np.linspace(0.1, 2.0, 3000), num_samples=2000, replacement=False, num_replicas=4, rank=r
    ),
    "class-balanced": lambda r: fairshard.ClassBalancedSampler(
        LABELS, replacement=False, num_samples=2000, num_replicas=4, rank=r
    ),
    "length-bucket": lambda r: fairshard.LengthBucketBatchSampler(
        LENGTHS, batch_size=16, num_replicas=4, rank=r
    ),
    "token-budget": lambda r: fairshard.TokenBudgetBatchSampler(
        LENGTHS, max_tokens=1024, num_replicas=4, rank=r
    ),
    "class-batch": lambda r: fairshard.ClassBatchSampler(
        LABELS, {c: 2 for c in range(5)}, batch_size=10, num_replicas=4, rank=r
    ),
    "packing": lambda r: fairshard.PackingBatchSampler(LENGTHS, 512, 2, num_replicas=4, rank=r),
}


def _share(monkeypatch: pytest.MonkeyPatch, folder: Path, *, cache: bool = False) -> None:
    monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "1")
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    if cache:
        monkeypatch.setenv("FAIRSHARD_PLAN_CACHE", str(folder))
    else:
        monkeypatch.delenv("FAIRSHARD_PLAN_CACHE", raising=False)
        monkeypatch.setenv("FAIRSHARD_SHARE_DIR", str(folder))


def _ledger(sampler: object, epochs: int = 2) -> str:
    seen = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # type: ignore[attr-defined]
        seen.append(flatten_items(list(sampler))[0].tolist())  # type: ignore[call-overload]
    return digest(seen)


@pytest.mark.parametrize("family", sorted(SHARED))
def test_shared_plan_equals_the_plan_a_rank_builds(
    family: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "0")
    alone = [_ledger(SHARED[family](r)) for r in range(4)]
    _share(monkeypatch, tmp_path / "shm")
    sampler = SHARED[family](1)
    shared = [_ledger(SHARED[family](r)) for r in range(4)]
    assert shared == alone
    sampler.set_epoch(0)
    order = next(iter(vars(sampler.plan()).values()))
    assert isinstance(order, np.ndarray) and not order.flags.writeable  # mapped, read-only
    assert not list((tmp_path / "shm").iterdir())  # one local rank: the name goes at once


def test_families_that_cannot_be_keyed_do_not_share(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _share(monkeypatch, tmp_path / "shm")
    inner = fairshard.DistributedSampler(100, num_replicas=1, rank=0)
    wrapper = fairshard.ShardedSampler(inner, num_replicas=2, rank=0)
    lazy = fairshard.DistributedSampler(100, num_replicas=2, rank=0)
    assert not wrapper._shares_plan() and not lazy._shares_plan()
    list(wrapper), list(lazy)
    assert not (tmp_path / "shm").exists()


_CHILD = """
import os, sys, json, signal
import fairshard
from fairshard._core.plans import flatten_items
from fairshard._distributed.digest import digest
cls = fairshard.DistributedSampler
built = []
original = cls._build_plan
def counting(self, epoch):
    built.append(epoch)
    plan = original(self, epoch)
    if os.environ.get("DIE_AFTER_BUILD"):
        os.rename = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
    return plan
cls._build_plan = counting
s = cls(20000, num_replicas=4, rank=int(sys.argv[1]), order="torch", seed=9)
items = list(s)
print(json.dumps({"built": len(built), "digest": digest(items)}), flush=True)
if os.environ.get("DIE_AFTER_MAP"):
    os.kill(os.getpid(), signal.SIGKILL)
if os.environ.get("HOLD"):
    sys.stdin.readline()
"""


def _child(rank: int, folder: Path, local: int, **extra: str) -> subprocess.Popen[str]:
    return node_rank(_CHILD, rank, folder, local, **extra)


def _expected(rank: int) -> str:
    sampler = fairshard.DistributedSampler(20000, num_replicas=4, rank=rank, order="torch", seed=9)
    return digest(list(sampler))


def _result(proc: subprocess.Popen[str]) -> dict[str, int | str]:
    """The child's report (the child may go on, holding its mapping)."""
    line = proc.stdout.readline() if proc.stdout else ""
    return dict(json.loads(line))


def _run(rank: int, folder: Path, local: int, **extra: str) -> tuple[dict[str, int | str], int]:
    """Run a child to its end: its report (empty if it died first) and its exit code."""
    proc = _child(rank, folder, local, **extra)
    out, _ = proc.communicate(timeout=120)
    lines = out.splitlines()
    return (dict(json.loads(lines[0])) if lines else {}), proc.returncode


def test_one_build_per_node_and_nothing_left(tmp_path: Path) -> None:
    folder = tmp_path / "shm"
    procs = [_child(r, folder, 3, HOLD="1") for r in range(3)]
    results = [_result(p) for p in procs]
    assert sum(int(r["built"]) for r in results) == 1
    assert [r["digest"] for r in results] == [_expected(r) for r in range(3)]
    assert not [p.name for p in folder.iterdir()]  # named until the 3rd rank mapped it
    for p in procs:
        p.communicate("\n", timeout=60)


def test_attach_after_the_builder_died(tmp_path: Path) -> None:
    folder = tmp_path / "shm"
    report, code = _run(0, folder, 2, DIE_AFTER_MAP="1")
    assert report["built"] == 1 and code == -signal.SIGKILL
    assert len(list(folder.glob("*.plan"))) == 1  # published, one of two ranks mapped it
    report, code = _run(1, folder, 2)
    assert (report, code) == ({"built": 0, "digest": _expected(1)}, 0)
    assert not list(folder.iterdir())


def test_builder_killed_mid_publish_leaves_nothing_read(tmp_path: Path) -> None:
    folder = tmp_path / "shm"
    report, code = _run(0, folder, 2, DIE_AFTER_BUILD="1")
    assert report == {} and code == -signal.SIGKILL
    assert [p.suffix for p in folder.iterdir()] == [".tmp"]  # half-published, never named
    procs = [_child(r, folder, 2, HOLD="1") for r in range(2)]
    results = [_result(p) for p in procs]
    assert sum(int(r["built"]) for r in results) == 1
    assert [r["digest"] for r in results] == [_expected(r) for r in range(2)]
    assert not list(folder.iterdir())  # the stale temporary swept, the plan's name gone
    for p in procs:
        p.communicate("\n", timeout=60)


def test_every_rank_killed_after_mapping_leaks_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "shm"
    codes = [_run(r, folder, 2, DIE_AFTER_MAP="1")[1] for r in range(2)]
    assert codes == [-signal.SIGKILL] * 2
    assert not list(folder.iterdir())


def test_a_stale_name_is_swept_by_the_next_build(tmp_path: Path) -> None:
    folder = tmp_path / "shm"
    assert _run(0, folder, 3)[1] == 0  # expects 3 local ranks; only one ever comes
    assert len(list(folder.glob("*.plan"))) == 1
    env = child_env(FAIRSHARD_SHARE_PLANS="1", FAIRSHARD_SHARE_DIR=str(folder))
    other = "import fairshard; list(fairshard.WeightedSampler([1.0, 2.0], replacement=False))"
    subprocess.run([sys.executable, "-c", other], env=env, check=True, timeout=120)
    assert not list(folder.iterdir())  # another key's build swept what nobody maps


def test_cache_maps_instead_of_building(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _share(monkeypatch, tmp_path / "cache", cache=True)
    first = fairshard.TokenBudgetBatchSampler(LENGTHS, max_tokens=1024, num_replicas=2, rank=0)
    expected = list(first)
    calls = []
    monkeypatch.setattr(
        fairshard.TokenBudgetBatchSampler,
        "_build_plan",
        lambda self, epoch: calls.append(epoch),  # a restart must not build
    )
    again = fairshard.TokenBudgetBatchSampler(LENGTHS, max_tokens=1024, num_replicas=2, rank=0)
    assert list(again) == expected and calls == []
    assert len(list((tmp_path / "cache").glob("*.plan"))) == 1  # kept for the next restart


def _cached_file(monkeypatch: pytest.MonkeyPatch, folder: Path) -> tuple[Path, list[int]]:
    _share(monkeypatch, folder, cache=True)
    expected = list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch"))
    (path,) = folder.glob("*.plan")
    return path, expected


def test_tampered_cache_file_is_rebuilt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path, expected = _cached_file(monkeypatch, tmp_path / "cache")
    data = bytearray(path.read_bytes())
    data[-9] ^= 0xFF  # one index byte of the order
    path.write_bytes(bytes(data))
    again = fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch")
    assert list(again) == expected


def test_cache_file_under_another_key_is_not_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    path, _ = _cached_file(monkeypatch, folder)
    other = fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch", seed=1)
    expected = list(other)
    (other_path,) = set(folder.glob("*.plan")) - {path}
    other_path.unlink()
    path.rename(other_path)  # seed 0's plan under seed 1's name
    again = fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch", seed=1)
    assert list(again) == expected


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_cache_file_of_another_user_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path, expected = _cached_file(monkeypatch, tmp_path / "cache")
    os.chown(path, 65534, 65534)
    with pytest.warns(fairshard.FairshardWarning, match="not an owner-only file of this user"):
        again = list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch"))
    assert again == expected


def test_world_readable_folder_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    _share(monkeypatch, folder)
    with pytest.warns(fairshard.FairshardWarning, match="mode 0o700"):
        items = list(fairshard.DistributedSampler(300, num_replicas=2, rank=0, order="torch"))
    monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "0")
    assert items == list(fairshard.DistributedSampler(300, num_replicas=2, rank=0, order="torch"))


def test_unknown_sharing_mode_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "yes")
    with pytest.raises(fairshard.ConfigError, match="FAIRSHARD_SHARE_PLANS='yes'"):
        list(fairshard.DistributedSampler(30, num_replicas=2, rank=0, order="torch"))


_WRITER = """
import os, sys
import fairshard
from fairshard._distributed import node_arrays
def held(*args):  # the file is written; the writer stops just before naming it
    print("written", flush=True)
    sys.stdin.readline()
node_arrays.os.rename = held
list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch"))
"""


def _cache_writer(folder: Path) -> subprocess.Popen[str]:
    """A process that builds into the plan cache ``folder`` and stops before its rename."""
    env = child_env(FAIRSHARD_SHARE_PLANS="1", FAIRSHARD_PLAN_CACHE=str(folder))
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert proc.stdout is not None and proc.stdout.readline() == "written\n"
    return proc


def test_a_live_writers_temporary_file_is_never_swept(tmp_path: Path) -> None:
    from fairshard._distributed.node_arrays import sweep

    folder = tmp_path / "cache"
    writer = _cache_writer(folder)
    try:
        (tmp,) = folder.glob(".*.tmp")
        assert str(writer.pid) in tmp.name
        for keep_published in (True, False):  # a plan cache's sweep, the node folder's
            assert sweep(folder, keep_published=keep_published) == []  # as a lock holder would
        assert tmp.exists()  # its writer is alive: not stale
    finally:
        writer.kill()
        writer.communicate(timeout=60)
    assert writer.returncode == -signal.SIGKILL
    assert sweep(folder, keep_published=True) == [tmp.name]
    assert not list(folder.iterdir())


def test_cache_writer_killed_before_rename_is_swept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    writer = _cache_writer(folder)
    os.kill(writer.pid, signal.SIGKILL)  # between the write and the rename
    writer.communicate(timeout=60)
    assert writer.returncode == -signal.SIGKILL
    (tmp,) = folder.glob(".*.tmp")
    _share(monkeypatch, folder, cache=True)
    # The next build of any key sweeps it; the kept plans stay.
    other = list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch", seed=1))
    assert not tmp.exists() and len(list(folder.glob("*.plan"))) == 1
    again = list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch"))
    assert sorted(p.name.startswith(".") for p in folder.iterdir()) == [False, False]
    monkeypatch.setenv("FAIRSHARD_SHARE_PLANS", "0")
    assert other == list(
        fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch", seed=1)
    )
    assert again == list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch"))


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o666])
def test_cache_file_of_this_user_with_group_or_other_bits_is_rebuilt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: int
) -> None:
    path, expected = _cached_file(monkeypatch, tmp_path / "cache")
    path.chmod(mode)
    built = []
    original = fairshard.DistributedSampler._build_plan

    def counting(self: fairshard.DistributedSampler, epoch: int) -> object:
        built.append(epoch)
        return original(self, epoch)

    monkeypatch.setattr(fairshard.DistributedSampler, "_build_plan", counting)
    again = list(fairshard.DistributedSampler(3000, num_replicas=2, rank=0, order="torch"))
    assert again == expected and built == [0]  # built again, never trusted after a chmod
    assert path.stat().st_mode & 0o777 == 0o600  # and published again owner-only


def test_a_killed_writer_not_yet_reaped_is_dead(tmp_path: Path) -> None:
    """A launcher reaps its children late: a zombie writes nothing more."""
    import time

    from fairshard._distributed.node_arrays import sweep

    folder = tmp_path / "cache"
    writer = _cache_writer(folder)
    (tmp,) = folder.glob(".*.tmp")
    os.kill(writer.pid, signal.SIGKILL)
    stat = Path(f"/proc/{writer.pid}/stat")
    deadline = time.monotonic() + 30
    while stat.read_text().rpartition(")")[2].split()[0] != "Z":
        assert time.monotonic() < deadline, "the writer did not die"
        time.sleep(0.01)
    try:
        assert sweep(folder, keep_published=True) == [tmp.name]
    finally:
        writer.communicate(timeout=60)


def test_only_this_hosts_dead_writers_are_swept(tmp_path: Path) -> None:
    from fairshard._distributed import node_arrays

    dead = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process has it
    host = node_arrays._HOST
    names = {
        "mine": f".k1@{host}.{dead}.tmp",
        "other host": f".k1@other-{host}.{dead}.tmp",  # a shared cache: that host's to judge
        "suffix host": f".k1@x.{host}.{dead}.tmp",  # another host whose name ends like ours
        "alive": f".k1@{host}.{os.getpid()}.tmp",
        "not ours": ".k1.tmp",
    }
    for name in names.values():
        (tmp_path / name).write_bytes(b"")
    assert node_arrays.sweep(tmp_path, keep_published=True) == [names["mine"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        n for k, n in names.items() if k != "mine"
    )
