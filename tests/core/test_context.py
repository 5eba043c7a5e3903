"""Where rank and world size come from, and the errors when they are wrong."""

from __future__ import annotations

import re

import pytest

from fairshard import ConfigError, ConfigTypeError, DistributedSampler
from fairshard._distributed.world import resolve_world


def test_single_process_default() -> None:
    w = resolve_world()
    assert (w.rank, w.world_size, w.source) == (0, 1, "single process")


def test_torchrun_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "8")
    monkeypatch.setenv("RANK", "5")
    w = resolve_world()
    assert (w.rank, w.world_size, w.source) == (5, 8, "environment")
    s = DistributedSampler(100)
    assert (s.rank, s.num_replicas) == (5, 8)


def test_explicit_arguments_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "8")
    monkeypatch.setenv("RANK", "5")
    w = resolve_world(3, 1)
    assert (w.rank, w.world_size) == (1, 3)


def test_environment_rank_out_of_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "4")
    with pytest.raises(
        ConfigError, match=r"rank must be in \[0, 1\].*got rank=4 \(from environment\)"
    ):
        resolve_world()


def test_garbage_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "four")
    with pytest.raises(ConfigError, match="WORLD_SIZE='four'"):
        resolve_world()


@pytest.mark.parametrize(
    ("num_replicas", "rank", "error", "match"),
    [
        (0, 0, ConfigError, "num_replicas must be >= 1, got num_replicas=0"),
        (-2, 0, ConfigError, "num_replicas must be >= 1, got num_replicas=-2"),
        (4, 4, ConfigError, r"rank must be in \[0, 3\] for num_replicas=4, got rank=4"),
        (4, -1, ConfigError, "rank must be >= 0, got rank=-1"),
        (2.0, 0, ConfigTypeError, "num_replicas must be an int, got num_replicas=2.0"),
        (2, "1", ConfigTypeError, "rank must be an int, got rank='1'"),
        (True, 0, ConfigTypeError, "num_replicas must be an int"),
    ],
)
def test_bad_world(num_replicas: object, rank: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        DistributedSampler(10, num_replicas, rank)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("num_replicas", "rank", "torch_words"),
    [
        (3, 3, "Invalid rank 3, rank should be in the interval [0, 2]"),
        (3, -1, "Invalid rank -1, rank should be in the interval [0, 2]"),
        (1, 1, "Invalid rank 1, rank should be in the interval [0, 0]"),
    ],
)
def test_invalid_rank_speaks_pytorchs_words_too(
    num_replicas: int, rank: int, torch_words: str
) -> None:
    import torch.utils.data as tud

    with pytest.raises(ValueError, match=re.escape(torch_words)):  # what PyTorch raises
        tud.DistributedSampler(range(10), num_replicas, rank)
    with pytest.raises(ConfigError, match=re.escape(torch_words)) as info:
        DistributedSampler(10, num_replicas, rank)
    assert f"got rank={rank}" in str(info.value)  # and fairshard's own explanation


def test_invalid_rank_from_the_environment_speaks_pytorchs_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "2")
    with pytest.raises(
        ConfigError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"
    ):
        DistributedSampler(10)


@pytest.mark.parametrize("local_rank", [None, "1"])
def test_world_size_without_rank_is_an_error_naming_the_variables(
    monkeypatch: pytest.MonkeyPatch, local_rank: str | None
) -> None:
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.delenv("RANK", raising=False)
    if local_rank is None:
        monkeypatch.delenv("LOCAL_RANK", raising=False)
    else:
        monkeypatch.setenv("LOCAL_RANK", local_rank)
    with pytest.raises(ConfigError, match="sets WORLD_SIZE=4 but not RANK") as info:
        DistributedSampler(100)
    assert ("LOCAL_RANK=1" in str(info.value)) == (local_rank is not None)
    assert "pass rank= explicitly" in str(info.value)
    s = DistributedSampler(100, rank=2)  # the missing value given explicitly: fine
    assert (s.rank, s.num_replicas) == (2, 4)


def test_rank_without_world_size_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(ConfigError, match="sets RANK=1 but not WORLD_SIZE"):
        resolve_world()
    mixed = resolve_world(num_replicas=2)  # the missing value given explicitly: fine
    assert (mixed.rank, mixed.world_size) == (1, 2)


def test_a_world_of_one_needs_no_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.delenv("RANK", raising=False)
    assert (resolve_world().rank, resolve_world().world_size) == (0, 1)


@pytest.mark.parametrize("num_replicas", [2**63, 2**70])
def test_a_world_too_large_for_int64_fails_at_construction(num_replicas: int) -> None:
    with pytest.raises(ConfigError, match=rf"num_replicas must be <= 2\*\*63 - 1.*{num_replicas}"):
        DistributedSampler(10, num_replicas=num_replicas, rank=0)


def test_the_largest_world_works() -> None:
    s = DistributedSampler(10, num_replicas=2**63 - 1, rank=2**63 - 2)
    assert len(s) == len(list(s)) == 1
