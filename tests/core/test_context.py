"""Where rank and world size come from, and the errors when they are wrong."""

from __future__ import annotations

import pytest

from fairshard import ConfigError, ConfigTypeError, DistributedSampler
from fairshard._core.world import resolve_world


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
