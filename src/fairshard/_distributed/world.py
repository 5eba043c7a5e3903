"""Where rank and world size come from, and the few collectives fairshard uses.

Resolution order: explicit arguments, else an initialized ``torch.distributed``
process group, else the launcher's environment (``RANK``/``WORLD_SIZE`` as set
by torchrun), else a single process. When a process group and the environment
are both present and disagree, that is an error naming both values; so is an
environment that gives only one of ``RANK`` and ``WORLD_SIZE``.

NOTE (who may talk to whom): fairshard makes a collective only for a sampler
whose world *is* the group it talks to: ``num_replicas`` equals the size of
the process group (the default one, or a group the caller passes). A sampler
built for one process (``num_replicas=1``) or for another world -- rank 0
evaluating alone, a sampler for a data-parallel sub-group -- never makes one,
so it can neither block on peers that will not come nor consume a collective
the user's code issues on the other ranks. Every rank decides this locally
from its own sampler, without communicating. :func:`talks_to_group` is that
rule; every collective fairshard makes (seed agreement, ``verify``, the
hard-example sync, ``ShardedSampler(check=True)``, the evaluation gathers)
asks it first. The collectives themselves live in ``collectives.py`` and are
re-exported here for the modules that import them from this one.

NOTE (the data-parallel group): ``group=`` (a process group or a device mesh,
see ``groups.py``) makes that group the sampler's world; every family
forwards it here, so :func:`resolve_world` is the one place that reads it.
A sampler that would take the whole job's world while this process belongs
to a model-parallel mesh dim (``tp``, ``cp``, ``pp``) is refused here too.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import Any

import torch

from .._errors import ConfigError, check_int
from .._random.seeding import DEFAULT_SEED
from .collectives import (
    _collective_device,
    all_gather_objects,
    broadcast_int,
    complete,
    group_size,
    process_group_active,
    retain,
    talks_to_group,
)
from .groups import Group, check_not_model_parallel, describe_group, resolve_group
from .lightning_exit import exit_plainly_on_child_failure
from .local_rank import check_not_local_rank, note_rank

__all__ = [
    "MAX_WORLD",
    "_collective_device",
    "World",
    "all_gather_objects",
    "broadcast_int",
    "check_not_local_rank",
    "complete",
    "group_size",
    "process_group_active",
    "resolve_seed",
    "resolve_world",
    "retain",
    "talks_to_group",
]

#: Largest world size (positions are int64).
MAX_WORLD = (1 << 63) - 1


@dataclass(frozen=True)
class World:
    """A rank and the number of ranks it belongs to."""

    rank: int
    world_size: int
    source: str
    #: The data-parallel group given as ``group=`` (``None``: the default group).
    group: Group | None = None

    @property
    def pg(self) -> Any:
        """The process group to make collectives in (``None``: the default group)."""
        return None if self.group is None else self.group.pg


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


def _implicit(need_rank: bool = True, need_world: bool = True) -> World:
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
    _check_env_pair(env_world, env_rank, need_rank, need_world)
    if env_world is not None or env_rank is not None:  # a missing one is given explicitly
        rank = 0 if env_rank is None else env_rank
        return World(rank, 1 if env_world is None else env_world, "environment")
    # No launcher yet: if Lightning's starts the others later, their refusal of a sampler
    # built like this one ends the job with code 1, not a SIGKILL (see lightning_exit).
    exit_plainly_on_child_failure()
    return World(0, 1, "single process")


def _check_env_pair(
    env_world: int | None, env_rank: int | None, need_rank: bool, need_world: bool
) -> None:
    """Refuse an environment that names only one of ``RANK`` and ``WORLD_SIZE``.

    Some launchers export ``WORLD_SIZE`` and ``LOCAL_RANK`` but not ``RANK``;
    guessing rank 0 would make every process take rank 0's share. Only the
    value that is actually needed (not passed explicitly) is required.
    """
    local = os.environ.get("LOCAL_RANK")
    seen = f" (LOCAL_RANK={local} is the rank within a node, not the global rank)" if local else ""
    if need_rank and env_world is not None and env_world > 1 and env_rank is None:
        lightning = (
            " Lightning's launcher (python script.py with Trainer(devices>1)) starts processes "
            "like this one: build the DataLoader inside LightningModule.train_dataloader() or "
            "a LightningDataModule, or after the Trainer with num_replicas=trainer.world_size, "
            "rank=trainer.global_rank."
            if local and os.environ.get("NODE_RANK") is not None
            else ""
        )
        raise ConfigError(
            f"the environment sets WORLD_SIZE={env_world} but not RANK{seen}, so this "
            "process's global rank is unknown; launch with torchrun (it sets both), export "
            f"RANK, initialize the process group first, or pass rank= explicitly.{lightning}"
        )
    if need_world and env_rank is not None and env_world is None:
        raise ConfigError(
            f"the environment sets RANK={env_rank} but not WORLD_SIZE, so the number of "
            "processes is unknown; launch with torchrun (it sets both), export WORLD_SIZE, "
            "initialize the process group first, or pass num_replicas= explicitly"
        )


def resolve_world(num_replicas: Any = None, rank: Any = None, group: Any = None) -> World:
    """Return this process's rank and world size.

    Args:
        num_replicas: Explicit world size, or ``None`` to detect it.
        rank: Explicit rank, or ``None`` to detect it.
        group: The data-parallel group (a ``ProcessGroup`` or ``DeviceMesh``):
            the world is its size and this process's rank in it.

    Raises:
        ConfigTypeError: a value is not an int, or ``group`` is neither a
            process group nor a device mesh.
        ConfigError: a value is out of range, two sources disagree (also
            ``num_replicas``/``rank`` and ``group``), the environment names
            only one of ``RANK`` and ``WORLD_SIZE``, or the world would be
            the whole job while this process belongs to a model-parallel
            group (pass the data-parallel ``group=``).
    """
    if group is not None:
        return _group_world(num_replicas, rank, group)
    explicit_world = (
        None
        if num_replicas is None
        else check_int(
            "num_replicas", num_replicas, minimum=1, fix="use the number of training processes"
        )
    )
    explicit_rank = None if rank is None else check_int("rank", rank)
    if explicit_world is not None and explicit_rank is not None:
        source = "arguments"
        world = World(explicit_rank, explicit_world, source)
    else:
        implicit = _implicit(need_rank=explicit_rank is None, need_world=explicit_world is None)
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
    if world.world_size > MAX_WORLD:
        raise ConfigError(
            f"num_replicas must be <= 2**63 - 1 (positions are 64-bit), got "
            f"num_replicas={world.world_size} (from {world.source}); use the number of "
            "training processes"
        )
    _check_rank(world)
    note_rank(world.rank, world.world_size)  # the LOCAL_RANK check runs at the first pass
    check_not_model_parallel(world.world_size, world.rank, world.source)
    return world


def _group_world(num_replicas: Any, rank: Any, group: Any) -> World:
    """The world of ``group=``; an explicit ``num_replicas``/``rank`` must agree with it."""
    ref = resolve_group(group)
    for name, value, actual in (("num_replicas", num_replicas, ref.size), ("rank", rank, ref.rank)):
        if value is None:
            continue
        given = check_int(name, value, minimum=0, fix="or leave it None: group= sets it")
        if given != actual:
            what = "has" if name == "num_replicas" else "gives this process"
            noun = "ranks" if name == "num_replicas" else "as its rank"
            raise ConfigError(
                f"{name}={given} conflicts with group={describe_group(group)}, which {what} "
                f"{actual} {noun}; pass one of them (group= alone sets both)"
            )
    return World(ref.rank, ref.size, f"group {describe_group(group)}", ref)


def _check_rank(world: World) -> None:
    """Raise unless ``0 <= rank < world_size``, in fairshard's words and PyTorch's.

    PyTorch's ``DistributedSampler`` raises ``"Invalid rank 3, rank should be
    in the interval [0, 2]"``; the message starts with those words, so code
    and tests that match them keep working after the migration.
    """
    rank, size = world.rank, world.world_size
    if 0 <= rank < size:
        return
    torch_words = f"Invalid rank {rank}, rank should be in the interval [0, {size - 1}]"
    if rank < 0:
        ours = f"rank must be >= 0, got rank={rank} (from {world.source}); ranks count from 0"
    else:
        ours = (
            f"rank must be in [0, {size - 1}] for num_replicas={size}, got rank={rank} "
            f"(from {world.source}); pass a rank below num_replicas"
        )
    raise ConfigError(f"{torch_words}: {ours}")


def resolve_seed(seed: object, world: World) -> int:
    """Return the seed every rank of ``world`` agrees on.

    An explicit seed is validated and returned unchanged (negative seeds are
    kept; plans normalize them). ``None`` means "agree on one": when the
    sampler's world is the process group (:func:`talks_to_group`), rank 0
    draws a random seed and broadcasts it; otherwise :data:`DEFAULT_SEED` (0)
    is used, which every process agrees on without communicating -- also a
    sampler built for one process inside a larger job, which must not block
    on a broadcast its peers never make. With ``group=`` the broadcast runs
    in that group when it is the whole job; a smaller data-parallel group
    needs an explicit seed (its model-parallel peers would draw another).
    """
    if seed is not None:
        return check_int("seed", seed, minimum=-(1 << 63), maximum=(1 << 64) - 1)
    if world.group is not None and world.world_size < torch.distributed.get_world_size():
        raise ConfigError(
            f"seed=None with group={describe_group(world.group.mesh or world.pg)} of "
            f"{world.world_size} ranks in a job of {torch.distributed.get_world_size()}: the "
            "model-parallel peers of a data-parallel rank must draw the same plan, and "
            "agreeing on a random seed would take a collective over the whole job; pass "
            "seed= an int, the same on every rank"
        )
    if talks_to_group(world.world_size, world.pg):
        return broadcast_int(secrets.randbits(63), group=world.pg)
    return DEFAULT_SEED
