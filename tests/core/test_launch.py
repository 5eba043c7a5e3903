"""``init_elastic_process_group``: which path it takes, and what it refuses.

The real restarts are in ``tests/fault/`` (every fault-harness job joins
through it) and ``tests/families/test_multinode_elastic.py``.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

import fairshard
from fairshard import ConfigError, ConfigTypeError

#: node 1 of a two-agent job on torchrun's default shared store, with restarts
SHARED_TWO_AGENTS = {
    "TORCHELASTIC_RUN_ID": "job",
    "TORCHELASTIC_USE_AGENT_STORE": "True",
    "TORCHELASTIC_MAX_RESTARTS": "3",
    "TORCHELASTIC_RESTART_COUNT": "0",
    "GROUP_WORLD_SIZE": "2",
    "RANK": "2",
    "WORLD_SIZE": "4",
    "MASTER_ADDR": "127.0.0.1",
    "MASTER_PORT": "1",
}


def test_shared_store_across_agents_with_restarts_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in SHARED_TWO_AGENTS.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match="TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1"):
        fairshard.init_elastic_process_group("gloo", timeout=1)


@pytest.mark.parametrize("bad", ["10", None, True, [1]])
def test_timeout_type(bad: object) -> None:
    with pytest.raises(ConfigTypeError, match="timeout"):
        fairshard.init_elastic_process_group("gloo", timeout=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), timedelta(0)])
def test_timeout_range(bad: object) -> None:
    with pytest.raises(ConfigError, match="timeout"):
        fairshard.init_elastic_process_group("gloo", timeout=bad)  # type: ignore[arg-type]


def test_a_malformed_torchrun_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SHARED_TWO_AGENTS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GROUP_WORLD_SIZE", "two")
    with pytest.raises(ConfigError, match="GROUP_WORLD_SIZE='two'"):
        fairshard.init_elastic_process_group("gloo", timeout=1)
