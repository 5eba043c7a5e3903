"""The multi-node ``rank=LOCAL_RANK`` mistake, caught at construction without communication."""

from __future__ import annotations

import os

from .._errors import ConfigError
from .collectives import process_group_active

__all__ = ["check_not_local_rank"]


def _env_int(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() else None


def _global_world() -> tuple[int, int, str] | None:
    """This process's global (rank, world size, source), or ``None`` outside a job."""
    if process_group_active():
        import torch.distributed as dist

        pg_rank, pg_world = dist.get_rank(), dist.get_world_size()
        return pg_rank, pg_world, "the process group"
    env_rank, env_world = _env_int("RANK"), _env_int("WORLD_SIZE")
    if env_rank is None or env_world is None:
        return None
    return env_rank, env_world, "the environment (RANK, WORLD_SIZE)"


def check_not_local_rank(rank: int, num_replicas: int) -> None:
    """Refuse ``rank=LOCAL_RANK`` where the global rank belongs, on several nodes.

    The classic multi-node mistake passes the node-local rank with the
    global world size: on 2 nodes x 2 processes, ranks 0 and 1 of both nodes
    read shares 0 and 1, shares 2 and 3 are never read, and nothing else
    notices. The evidence is clear, and checked without communication, when
    all of these hold: this process belongs to a job (a process group, or
    torchrun's ``RANK``/``WORLD_SIZE``), ``num_replicas`` equals the job's
    world size, ``rank`` equals ``LOCAL_RANK`` and differs from the global
    rank.

    NOTE: a data-parallel sub-group (tensor or pipeline parallelism) passes
    its own size as ``num_replicas``, which differs from the world size, and
    is never refused; nor is a rank that merely differs from the global one
    (building another rank's sampler to inspect its share). Only the exact
    LOCAL_RANK pattern is, so the check has no false alarm in legitimate use.

    Args:
        rank: The rank the caller passed.
        num_replicas: The world size the sampler resolved.

    Raises:
        ConfigError: the pattern above.
    """
    raw = os.environ.get("LOCAL_RANK", "")
    if not raw.strip().isdigit() or int(raw) != rank:
        return
    found = _global_world()
    if found is None:
        return
    global_rank, global_world, source = found
    if num_replicas != global_world or rank == global_rank:
        return
    raise ConfigError(
        f"rank={rank} is this process's LOCAL_RANK, but its global rank is {global_rank} "
        f"(from {source}) in a job of {global_world} processes: with "
        f"num_replicas={num_replicas}, every node would read the shares of its local ranks "
        "and the other shares would never be read. Pass the global rank "
        "(rank=int(os.environ['RANK']) or torch.distributed.get_rank()), or omit rank and "
        "num_replicas to detect both; a data-parallel sub-group passes its own size as "
        "num_replicas and the rank within it"
    )
