"""Where rank and world size come from, and the few collectives fairshard uses.

Resolution order: explicit arguments, else an initialized ``torch.distributed``
process group, else the launcher's environment (``RANK``/``WORLD_SIZE`` as set
by torchrun), else a single process. When a process group and the environment
are both present and disagree, that is an error naming both values.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import torch

from .._errors import ConfigError, check_int
from .._random.seeding import DEFAULT_SEED

__all__ = [
    "World",
    "all_gather_objects",
    "broadcast_int",
    "check_not_local_rank",
    "complete",
    "process_group_active",
    "resolve_seed",
    "resolve_world",
]


@dataclass(frozen=True)
class World:
    """A rank and the number of ranks it belongs to."""

    rank: int
    world_size: int
    source: str


def process_group_active() -> bool:
    """True when a default ``torch.distributed`` process group is initialized."""
    return torch.distributed.is_available() and torch.distributed.is_initialized()


def _env_int(name: str) -> int | None:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(
            f"environment variable {name} must be an integer, got {name}={raw!r}; "
            "launch with torchrun or unset it"
        ) from None


def _implicit() -> World:
    env_world, env_rank = _env_int("WORLD_SIZE"), _env_int("RANK")
    if process_group_active():
        pg_world = torch.distributed.get_world_size()
        pg_rank = torch.distributed.get_rank()
        if env_world is not None and env_world != pg_world:
            raise ConfigError(
                f"the process group says world_size={pg_world} but the environment says "
                f"WORLD_SIZE={env_world}; pass num_replicas explicitly or fix the launcher"
            )
        if env_rank is not None and env_world == pg_world and env_rank != pg_rank:
            raise ConfigError(
                f"the process group says rank={pg_rank} but the environment says "
                f"RANK={env_rank}; pass rank explicitly or fix the launcher"
            )
        return World(pg_rank, pg_world, "process group")
    if env_world is not None:
        return World(env_rank if env_rank is not None else 0, env_world, "environment")
    return World(0, 1, "single process")


def resolve_world(num_replicas: Any = None, rank: Any = None) -> World:
    """Return this process's rank and world size.

    Args:
        num_replicas: Explicit world size, or ``None`` to detect it.
        rank: Explicit rank, or ``None`` to detect it.

    Raises:
        ConfigTypeError: a value is not an int.
        ConfigError: a value is out of range, or two sources disagree.
    """
    explicit_world = (
        None
        if num_replicas is None
        else check_int(
            "num_replicas", num_replicas, minimum=1, fix="use the number of training processes"
        )
    )
    explicit_rank = (
        None if rank is None else check_int("rank", rank, minimum=0, fix="ranks count from 0")
    )
    if explicit_world is not None and explicit_rank is not None:
        source = "arguments"
        world = World(explicit_rank, explicit_world, source)
    else:
        implicit = _implicit()
        world = World(
            implicit.rank if explicit_rank is None else explicit_rank,
            implicit.world_size if explicit_world is None else explicit_world,
            implicit.source if explicit_world is None and explicit_rank is None else "mixed",
        )
    if world.world_size < 1:
        raise ConfigError(
            f"world size must be >= 1, got world_size={world.world_size} "
            f"(from {world.source}); launch with at least one process"
        )
    if not 0 <= world.rank < world.world_size:
        raise ConfigError(
            f"rank must be in [0, {world.world_size - 1}] for num_replicas={world.world_size}, "
            f"got rank={world.rank} (from {world.source}); pass a rank below num_replicas"
        )
    if explicit_rank is not None:
        check_not_local_rank(explicit_rank, world.world_size)
    return world


def _global_world() -> tuple[int, int, str] | None:
    """This process's global (rank, world size, source), or ``None`` outside a job."""
    if process_group_active():
        pg_rank, pg_world = torch.distributed.get_rank(), torch.distributed.get_world_size()
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


def broadcast_int(value: int, src: int = 0) -> int:
    """Broadcast a non-negative int below 2**63 from ``src`` to every rank."""
    backend = torch.distributed.get_backend()
    device = _collective_device(backend)
    tensor = torch.tensor([value], dtype=torch.int64, device=device)
    torch.distributed.broadcast(tensor, src=src)
    return int(tensor.item())


def _collective_device(backend: str) -> torch.device:
    if backend == "nccl" and torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def all_gather_objects(obj: Any, timeout: float | None = None) -> list[Any]:
    """All-gather one picklable object per rank, in rank order.

    Args:
        obj: This rank's object.
        timeout: Seconds to wait for the other ranks; ``None`` uses the
            process group's timeout. A dead or absent peer then raises
            instead of hanging.

    Raises:
        RankMismatchError: the peers did not all arrive within ``timeout``.
    """
    from .._errors import RankMismatchError

    world = torch.distributed.get_world_size()
    out: list[Any] = [None] * world
    if timeout is None:
        torch.distributed.all_gather_object(out, obj)
        return out
    work = _monitored_gather(out, obj, timeout)
    if not work:
        raise RankMismatchError(
            f"all_gather of {type(obj).__name__} did not complete within {timeout:.1f}s: "
            "at least one rank did not reach the same call (it died, hangs, or skipped it); "
            "raise the timeout or check the other ranks' logs"
        )
    return out


def _monitored_gather(out: list[Any], obj: Any, timeout: float) -> bool:
    """Run ``all_gather_object`` under a ``monitored_barrier``-style deadline."""
    import pickle

    device = _collective_device(torch.distributed.get_backend())  # nccl needs CUDA tensors
    payload = torch.frombuffer(bytearray(pickle.dumps(obj)), dtype=torch.uint8).to(device)
    sizes = [torch.zeros(1, dtype=torch.int64, device=device) for _ in out]
    size = torch.tensor([payload.numel()], dtype=torch.int64, device=device)
    work = torch.distributed.all_gather(sizes, size, async_op=True)
    if work is None or not _wait(work, timeout):
        return False
    longest = int(max(s.item() for s in sizes))
    padded = torch.zeros(longest, dtype=torch.uint8, device=device)
    padded[: payload.numel()] = payload
    buffers = [torch.zeros(longest, dtype=torch.uint8, device=device) for _ in out]
    work = torch.distributed.all_gather(buffers, padded, async_op=True)
    if work is None or not _wait(work, timeout):
        return False
    for i, (buf, s) in enumerate(zip(buffers, sizes, strict=True)):
        out[i] = pickle.loads(buf[: int(s.item())].cpu().numpy().tobytes())
    return True


def complete(work: Any, timeout: float | None, what: str) -> None:
    """Wait for an async collective; raise instead of hanging past ``timeout``.

    Args:
        work: The handle an ``async_op=True`` collective returned.
        timeout: Seconds to wait; ``None`` waits as long as the process group does.
        what: The operation, for the error message.

    Raises:
        RankMismatchError: no handle, or the peers did not arrive in time.
    """
    from .._errors import RankMismatchError

    if work is None:
        raise RankMismatchError(f"the process group returned no work handle for {what}")
    if timeout is None:
        work.wait()
    elif not _wait(work, timeout):
        raise RankMismatchError(
            f"{what} did not complete within {timeout:.1f}s: at least one rank did not "
            "reach it; check the other ranks' logs"
        )


def _wait(work: Any, timeout: float) -> bool:
    try:
        return bool(work.wait(timeout=timedelta(seconds=timeout)))
    except RuntimeError:
        return False


def resolve_seed(seed: object) -> int:
    """Return the seed every rank agrees on.

    An explicit seed is validated and returned unchanged (negative seeds are
    kept; plans normalize them). ``None`` means "agree on one": when a
    ``torch.distributed`` process group is initialized, rank 0 draws a random
    seed and broadcasts it; otherwise :data:`DEFAULT_SEED` (0) is used, so
    that processes launched without a process group still agree.
    """
    if seed is not None:
        return check_int("seed", seed, minimum=-(1 << 63), maximum=(1 << 64) - 1)
    if process_group_active():
        return broadcast_int(secrets.randbits(63))
    return DEFAULT_SEED
