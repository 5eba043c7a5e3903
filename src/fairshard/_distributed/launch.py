"""Join a torchrun job's process group so that a restarted generation can rejoin.

torchrun (torch 2.13) lets node 0's agent host one TCP store for all the
workers it ever starts (``TORCHELASTIC_USE_AGENT_STORE=True``, the default)
and that store outlives a restart. A plain ``init_process_group("gloo")`` of a
restarted generation can read the listening addresses the killed generation
published -- a race between the ranks' start-up -- and gloo's full-mesh
connect then fails ("Connection refused") or hangs for minutes: measured in
6 of 8 restarts (docs/faults.md). With several node agents the shared store
also stops a job from growing back: the newcomer waits for a
``MASTER_ADDR`` the surviving agent never republishes.

Launching every agent with ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1`` fixes
both: each rendezvous round gets a fresh store, hosted by the new rank 0.
:func:`init_elastic_process_group` is the worker side of that recipe.
"""

from __future__ import annotations

import os
from datetime import timedelta

import torch.distributed as dist

from .._errors import ConfigError, ConfigTypeError, check_real
from .world import process_group_active

__all__ = ["DISABLE_SHARED_STORE", "init_elastic_process_group"]

#: The launcher variable that gives every rendezvous round a fresh store.
DISABLE_SHARED_STORE = "TORCH_DISABLE_SHARE_RDZV_TCP_STORE"


def _timeout(value: float | timedelta) -> timedelta:
    if isinstance(value, timedelta):
        if value.total_seconds() <= 0:
            raise ConfigError(f"timeout must be positive, got timeout={value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigTypeError(
            f"timeout must be seconds (a number) or a timedelta, got timeout={value!r} "
            f"of type {type(value).__name__}"
        )
    seconds = check_real("timeout", value, minimum=0.0, strict_minimum=True)
    return timedelta(seconds=seconds)


def _env(name: str) -> int:
    raw = os.environ.get(name, "")
    if not raw.isdigit():
        raise ConfigError(
            f"torchrun sets {name} for its workers, got {name}={raw!r}; launch with torchrun"
        )
    return int(raw)


def init_elastic_process_group(
    backend: str | None = None, *, timeout: float | timedelta = 600.0
) -> None:
    """Initialize the default process group in a way that survives torchrun restarts.

    Call it where ``torch.distributed.init_process_group`` would be called.

    * Outside torchrun, or when the launcher gives each rendezvous round a
      fresh store (every agent started with
      ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1``, the recipe for multi-node and
      elastic ``--nnodes MIN:MAX`` jobs): the plain ``init_process_group``.
    * One node agent with torchrun's shared store (``--standalone``, the
      default): the group's keys go under a prefix per restart
      (``TORCHELASTIC_RESTART_COUNT``), which every worker of a single agent
      shares, so a restarted generation never reads a dead one's addresses.
    * Several node agents with the shared store and ``--max-restarts`` > 0:
      refused, because the agents' restart counts can differ (an agent whose
      workers fail counts a restart, one that sees a node waiting does not),
      so no prefix is common to all workers, and the default keys fail.

    Args:
        backend: As for ``init_process_group`` (``None``: torch's default).
        timeout: Seconds (or a ``timedelta``) for the store and the group's
            collectives; a dead peer then fails the generation instead of
            hanging it, and torchrun restarts it.

    Raises:
        ConfigError: a process group is already initialized; the job has
            several node agents sharing one store and may restart (the
            message gives the launcher fix); a torchrun variable is malformed.
        ConfigTypeError: ``timeout`` is neither a number nor a timedelta.
    """
    limit = _timeout(timeout)
    if process_group_active():
        raise ConfigError(
            "a default process group is already initialized; call "
            "init_elastic_process_group once per process, instead of init_process_group"
        )
    shared = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
    if "TORCHELASTIC_RUN_ID" not in os.environ or not shared:
        dist.init_process_group(backend, timeout=limit)
        return
    nodes = _env("GROUP_WORLD_SIZE")
    if nodes > 1 and _env("TORCHELASTIC_MAX_RESTARTS") > 0:
        raise ConfigError(
            f"this job has {nodes} node agents sharing node 0's store and may restart "
            f"(TORCHELASTIC_MAX_RESTARTS={os.environ['TORCHELASTIC_MAX_RESTARTS']}): a restarted "
            "generation would read the dead one's addresses and fail to connect. Launch every "
            f"agent with {DISABLE_SHARED_STORE}=1 (e.g. `{DISABLE_SHARED_STORE}=1 torchrun "
            "--nnodes 1:2 ...`) so that each rendezvous round gets a fresh store"
        )
    store = dist.TCPStore(  # type: ignore[attr-defined]
        os.environ["MASTER_ADDR"],
        _env("MASTER_PORT"),
        is_master=False,
        timeout=limit,
    )
    # NOTE: one agent's workers share its restart count, so this prefix is
    # common to the generation and new for each restart.
    prefix = f"fairshard/restart{_env('TORCHELASTIC_RESTART_COUNT')}/"
    dist.init_process_group(
        backend,
        store=dist.PrefixStore(prefix, store),  # type: ignore[attr-defined]
        rank=_env("RANK"),
        world_size=_env("WORLD_SIZE"),
        timeout=limit,
    )
