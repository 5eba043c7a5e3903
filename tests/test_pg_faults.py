"""Faults in the process group: a missing or dead rank never hangs ``verify``
or the hard-example sampler's epoch-boundary sync.

``verify(sampler, timeout=t)`` all-gathers a fingerprint. When a peer never
reaches the call (it skipped it, hangs elsewhere, or died) the waiting ranks
must fail within about ``t`` seconds with a ``RankMismatchError`` that says a
rank did not arrive -- not hang until the process group's (much longer)
timeout, and not die with a backend error.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import pytest

from fairshard import DistributedSampler, HardExampleSampler, RankMismatchError, verify

from ._dist import RankFailure, run_ranks

pytestmark = pytest.mark.distributed

TIMEOUT = 2.0


def _absent_or_dead(rank: int, world_size: int, mode: str) -> tuple[str, float]:
    """Rank 0 calls verify; rank 1 skips it (alive) or dies; others call it too."""
    sampler = DistributedSampler(20, world_size, rank, seed=1)
    if rank == 1:
        if mode == "dead":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(TIMEOUT * 3)  # alive but never calls verify
        return ("skipped", 0.0)
    return _timed(lambda: verify(sampler, timeout=TIMEOUT))


def _timed(call: Callable[[], object]) -> tuple[str, float]:
    """Run a collective; return how it ended and how long it took."""
    began = time.monotonic()
    try:
        call()
    except RankMismatchError as exc:
        return (f"RankMismatchError: {exc}", time.monotonic() - began)
    return ("no error", time.monotonic() - began)


def _assert_bounded(results: list[object], waiting: tuple[int, ...]) -> None:
    """The waiting ranks failed with RankMismatchError within the timeout, not a hang."""
    for rank in waiting:
        outcome = results[rank]
        assert not isinstance(outcome, RankFailure), outcome
        message, elapsed = outcome  # type: ignore[misc]
        assert message.startswith("RankMismatchError"), message
        assert "did not complete within 2.0s" in message
        assert elapsed < 20.0, f"rank {rank} waited {elapsed:.1f}s (process group timeout: 30s)"


@pytest.mark.parametrize("mode", ["absent", "dead"])
def test_verify_is_bounded_by_its_timeout(mode: str) -> None:
    results = run_ranks(
        _absent_or_dead, 3, mode, timeout=60.0, pg_timeout=30.0, allow_failures=True
    )
    _assert_bounded(results, (0, 2))
    for rank in (0, 2):
        assert "did not reach the same call" in results[rank][0]
    if mode == "dead":
        assert isinstance(results[1], RankFailure) and "died" in results[1]


def _hard_example_sync_with_a_dead_peer(rank: int, world_size: int) -> tuple[str, float]:
    """Every rank records losses; rank 1 dies before the epoch boundary's all-gather."""
    sampler = HardExampleSampler(
        40, num_replicas=world_size, rank=rank, seed=3, sync_timeout=TIMEOUT
    )
    indices = list(sampler)[:4]
    sampler.record(indices, [1.0] * len(indices))
    if rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return _timed(lambda: sampler.set_epoch(1))  # the collective sync of recorded losses


def test_hard_example_sync_is_bounded_by_its_timeout() -> None:
    results = run_ranks(
        _hard_example_sync_with_a_dead_peer, 3, timeout=60.0, pg_timeout=30.0, allow_failures=True
    )
    _assert_bounded(results, (0, 2))
    assert isinstance(results[1], RankFailure) and "died" in results[1]
