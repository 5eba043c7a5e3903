"""The multi-node ``rank=LOCAL_RANK`` mistake, caught at a first pass without communication.

NOTE (what tells the mistake from inspection): on node 1 of 2 x 2 processes
(``RANK=2``, ``LOCAL_RANK=0``), ``DistributedSampler(ds, 4, rank=0)`` is the
mistake when it is the process's own data, and legitimate when the process
looks at rank 0's share (``fairshard simulate -w 4``, a loop over every
rank). Nothing at construction tells the two apart: both build the same
sampler with the same arguments, and a loop over ranks builds rank 0 first.
What does differ is what the process does with it: the mistaken process
reads that sampler as its own share and builds no other rank's, while an
inspecting process builds several ranks' samplers before (or without)
reading one. So every construction in a job is recorded (``note_rank``: the
ranks built per world size in this process) and the decision is taken when a
sampler first starts a pass (``check_not_local_rank``): refused when the
LOCAL_RANK pattern holds and the process has built no sampler of that world
for a rank other than this one and its own global rank. The simulator's
ranks are virtual by definition (``virtual_ranks``) and never refused.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator

from .._errors import ConfigError
from .collectives import process_group_active

__all__ = ["check_not_local_rank", "note_rank", "virtual_ranks"]

#: world size -> ranks of that world whose samplers this process has built.
_BUILT: dict[int, set[int]] = {}
_VIRTUAL: contextvars.ContextVar[bool] = contextvars.ContextVar("fairshard_virtual", default=False)


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


@contextlib.contextmanager
def virtual_ranks() -> Iterator[None]:
    """Samplers built and read inside are virtual ranks (the simulator's): never refused."""
    token = _VIRTUAL.set(True)
    try:
        yield
    finally:
        _VIRTUAL.reset(token)


def note_rank(rank: int, num_replicas: int) -> None:
    """Record that this process built a sampler for ``rank`` of ``num_replicas`` (see the NOTE).

    Only samplers built inside a job count (outside one there is nothing to
    check), and not the simulator's virtual ranks.
    """
    if not _VIRTUAL.get() and _global_world() is not None:
        _BUILT.setdefault(num_replicas, set()).add(rank)


def check_not_local_rank(rank: int, num_replicas: int) -> None:
    """Refuse reading ``rank=LOCAL_RANK``'s share where the global rank belongs, on several nodes.

    Called when a sampler starts a pass. The classic multi-node mistake
    passes the node-local rank with the global world size: on 2 nodes x 2
    processes, ranks 0 and 1 of both nodes read shares 0 and 1, shares 2 and
    3 are never read, and nothing else notices. The evidence is clear, and
    checked without communication, when all of these hold: this process
    belongs to a job (a process group, or torchrun's ``RANK``/``WORLD_SIZE``),
    ``num_replicas`` equals the job's world size, ``rank`` equals
    ``LOCAL_RANK`` and differs from the global rank, and the process has
    built no sampler of that world for any other rank (module NOTE).

    NOTE: a data-parallel sub-group (tensor or pipeline parallelism) passes
    its own size as ``num_replicas``, which differs from the world size, and
    is never refused; nor is a rank that differs from ``LOCAL_RANK``, nor
    ``LOCAL_RANK``'s share read by a process that also built other ranks'
    samplers (inspection), nor anything inside ``virtual_ranks()``.

    Args:
        rank: The sampler's rank.
        num_replicas: The sampler's world size.

    Raises:
        ConfigError: the pattern above.
    """
    raw = os.environ.get("LOCAL_RANK", "")
    if not raw.strip().isdigit() or int(raw) != rank or _VIRTUAL.get():
        return
    found = _global_world()
    if found is None:
        return
    global_rank, global_world, source = found
    if num_replicas != global_world or rank == global_rank:
        return
    if _BUILT.get(num_replicas, set()) - {rank, global_rank}:
        return  # other ranks' samplers built too: this process inspects shares
    raise ConfigError(
        f"rank={rank} is this process's LOCAL_RANK, but its global rank is {global_rank} "
        f"(from {source}) in a job of {global_world} processes: with "
        f"num_replicas={num_replicas}, every node would read the shares of its local ranks "
        "and the other shares would never be read. Pass the global rank "
        "(rank=int(os.environ['RANK']) or torch.distributed.get_rank()), or omit rank and "
        "num_replicas to detect both; a data-parallel sub-group passes its own size as "
        "num_replicas and the rank within it. To read other ranks' shares on purpose, "
        "build every rank's sampler first (as fairshard.simulate does)"
    )
