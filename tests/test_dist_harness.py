"""The gloo harness (``tests/_dist.py``) starts a run again only when its own group failed."""

from __future__ import annotations

import pytest

from tests import _dist


def test_a_group_that_did_not_form_is_started_again_on_a_fresh_run(monkeypatch) -> None:
    calls: list[int] = []

    def flaky(*args: object) -> list[int]:
        calls.append(1)
        if len(calls) < _dist._GROUP_TRIES:
            raise _dist._GroupDidNotForm("rank 1: connectFullMesh failed")
        return [0, 1]

    monkeypatch.setattr(_dist, "_run_once", flaky)
    assert _dist.run_ranks(lambda rank, world: rank, 2) == [0, 1]
    assert len(calls) == _dist._GROUP_TRIES


def test_a_group_that_never_forms_fails_saying_so(monkeypatch) -> None:
    def never(*args: object) -> list[int]:
        raise _dist._GroupDidNotForm("rank 0: connectFullMesh failed")

    monkeypatch.setattr(_dist, "_run_once", never)
    with pytest.raises(RuntimeError, match="did not form in 3 tries"):
        _dist.run_ranks(lambda rank, world: rank, 2)


def _fails_in_fn(rank: int, world: int) -> None:
    raise ValueError(f"rank {rank} of {world}")


@pytest.mark.distributed
def test_a_failure_of_the_code_under_test_is_never_retried() -> None:
    with pytest.raises(RuntimeError, match=r"rank \d failed:[\s\S]*ValueError: rank"):
        _dist.run_ranks(_fails_in_fn, 2, timeout=60)
