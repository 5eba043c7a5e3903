"""The data-parallel group a sampler shards for: a process group or a device mesh.

A job that also shards its model (tensor, context or pipeline parallel)
trains on a device mesh; its data-parallel rank is not the global rank, and
every rank of one model-parallel group must read *identical* data. Passing
``group=`` (a ``torch.distributed`` ``ProcessGroup``, or a ``DeviceMesh``:
1-D, or several dims such as ``mesh["dp_replicate", "dp_shard"]``, which are
flattened) makes that group the sampler's world: its size and this process's
rank in it, and the group fairshard's collectives run in.

NOTE (flattening): a mesh of several dims is flattened with torch's
``DeviceMesh._flatten`` (cached by torch under the joined dim names), which
creates process groups: every rank of the job builds its sampler the same
way, as it builds its model. A pipeline stage that builds no sampler must
not leave the others waiting there: flatten once on every rank
(``mesh["dp_replicate", "dp_shard"]._flatten("dp")``) and pass ``mesh["dp"]``.

NOTE (pickling): the group travels with the sampler inside this process
only. A pickled sampler (a ``DataLoader`` worker's copy of a
``ShardedIterable``) keeps its size and rank and drops the group: workers
make no collectives.

NOTE (model-parallel groups): what tells a model-parallel group apart --
the global world refused on a model-parallel job, ``group=mesh["tp"]``
refused as the data group -- lives in ``model_parallel.py``;
:func:`resolve_group` applies its rules to every data-parallel group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .._errors import ConfigError, ConfigTypeError
from .collectives import process_group_active
from .model_parallel import (
    MODEL_PARALLEL_DIMS,
    PIPELINE_DIMS,
    check_not_model_parallel,
    is_model_parallel_dim,
    model_parallel_groups,
    not_data_parallel_dim,
    refuse_model_parallel_dims,
    refuse_model_parallel_ranks,
)

__all__ = [
    "MODEL_PARALLEL_DIMS",
    "PIPELINE_DIMS",
    "Group",
    "check_not_model_parallel",
    "describe_group",
    "group_of",
    "is_model_parallel_dim",
    "model_parallel_groups",
    "not_data_parallel_dim",
    "replica_group",
    "resolve_group",
]


class Group:
    """A resolved data-parallel group: the process group and the mesh it came from.

    Attributes:
        pg: The ``ProcessGroup`` collectives run in (``None`` after unpickling).
        mesh: The ``DeviceMesh`` the group was given as, else ``None``.
        size: Ranks in the group.
        rank: This process's rank in the group.
    """

    __slots__ = ("mesh", "pg", "rank", "size")

    def __init__(self, pg: Any, mesh: Any, size: int, rank: int) -> None:
        self.pg, self.mesh, self.size, self.rank = pg, mesh, size, rank

    def __reduce__(self) -> tuple[Any, ...]:
        return (Group, (None, None, self.size, self.rank))

    def __deepcopy__(self, memo: dict[int, Any]) -> Group:
        return self

    def __repr__(self) -> str:
        return f"Group(size={self.size}, rank={self.rank}, {describe_group(self.mesh or self.pg)})"


def describe_group(group: Any) -> str:
    """A short name for ``group`` in messages: its mesh dims, or its global ranks."""
    names = getattr(group, "mesh_dim_names", None)
    if names:
        return f"mesh[{', '.join(repr(n) for n in names)}]"
    if group is None or not process_group_active():
        return "the default group"
    try:
        return (
            f"the process group of global ranks {torch.distributed.get_process_group_ranks(group)}"
        )
    except (RuntimeError, ValueError):
        return type(group).__name__


def _is_mesh(group: Any) -> bool:
    try:
        from torch.distributed.device_mesh import DeviceMesh
    except ImportError:  # pragma: no cover - torch without distributed support
        return False
    return isinstance(group, DeviceMesh)


def resolve_group(group: Any, name: str = "group", *, data_parallel: bool = True) -> Group:
    """Resolve a ``ProcessGroup`` or ``DeviceMesh`` into size, rank and process group.

    Args:
        group: The group.
        name: The parameter's name, for messages.
        data_parallel: Whether the group must be a data-parallel one (a
            sampler's world, the evaluation gathers): a model-parallel group
            is refused (``model_parallel.py``). ``False`` for a group of replicas
            (``verify(replicas=)``).

    Raises:
        ConfigTypeError: ``group`` is neither.
        ConfigError: no process group is initialized, a multi-dim mesh cannot
            be flattened, this process is not a member of the group, or
            (``data_parallel``) the group is model parallel.
    """
    mesh = group if _is_mesh(group) else None
    if mesh is None and not isinstance(group, torch.distributed.ProcessGroup):
        raise ConfigTypeError(
            f"{name} must be a torch.distributed ProcessGroup or a DeviceMesh (e.g. "
            f'mesh["dp"] or mesh["dp_replicate", "dp_shard"]), got {type(group).__name__}'
        )
    if not process_group_active():
        raise ConfigError(
            f"{name}= needs an initialized process group; call "
            "torch.distributed.init_process_group (or init_device_mesh) first"
        )
    pg = group
    if mesh is not None and data_parallel:
        refuse_model_parallel_dims(mesh, f"{name}={describe_group(group)}")  # before flattening
    if mesh is not None:
        flat = mesh
        if mesh.ndim > 1:
            if not mesh.mesh_dim_names:
                raise ConfigError(
                    f"{name}= got a {mesh.ndim}-D DeviceMesh without mesh_dim_names, which "
                    "torch cannot flatten; name the dims in init_device_mesh(..., "
                    "mesh_dim_names=...) or pass a 1-D mesh or a ProcessGroup"
                )
            flat = mesh._flatten()
        pg = flat.get_group()
    rank = int(torch.distributed.get_rank(pg))
    if rank < 0:
        raise ConfigError(
            f"this process (global rank {torch.distributed.get_rank()}) is not a member of "
            f"{name}={describe_group(group)}; pass the group this rank belongs to"
        )
    if data_parallel:
        refuse_model_parallel_ranks(mesh, pg, f"{name}={describe_group(group)}")
    return Group(pg, mesh, int(torch.distributed.get_world_size(pg)), rank)


def group_of(sampler: Any) -> Any:
    """The process group a sampler was built for (``None``: the default group)."""
    ref = getattr(sampler, "_group", None)
    return ref.pg if isinstance(ref, Group) else None


@dataclass(frozen=True)
class _Split:
    inside: list[str]
    outside: list[str]


def _split_dims(ref: Group) -> _Split | None:
    """Which dims of the root mesh the data-parallel group spans, and which it does not.

    Decided from the ranks of this process's group in each root dim: a dim is
    inside when its group lies within the data-parallel group, outside when
    it meets it only in this process. ``None`` when a dim is partly inside.
    """
    mesh = ref.mesh
    root = mesh._get_root_mesh()
    names = root.mesh_dim_names or ()
    members = set(torch.distributed.get_process_group_ranks(ref.pg))
    split = _Split([], [])
    for dim in names:
        ranks = set(torch.distributed.get_process_group_ranks(root.get_group(dim)))
        if ranks <= members:
            split.inside.append(dim)
        elif len(ranks & members) == 1:
            split.outside.append(dim)
        else:
            return None
    return split


def replica_group(sampler: Any) -> Any:
    """The group of ranks holding replicas of this rank's share, for a mesh-built sampler.

    The dims of the mesh the sampler's group came from that it does not span
    (``tp`` and ``cp`` of a ``(dp, cp, tp)`` mesh), except pipeline dims: only
    some stages load data, and a check over ``pp`` would wait for stages that
    never iterate. ``None`` when the sampler was not built from a mesh or no
    such dim is left. Several dims are flattened (see the NOTE on flattening).
    """
    ref = getattr(sampler, "_group", None)
    if not isinstance(ref, Group) or ref.mesh is None or ref.pg is None:
        return None
    split = _split_dims(ref)
    outside = [] if split is None else [d for d in split.outside if d not in PIPELINE_DIMS]
    if not outside:
        return None
    root = ref.mesh._get_root_mesh()
    sub = root[tuple(outside)] if len(outside) > 1 else root[outside[0]]
    return sub._flatten() if sub.ndim > 1 else sub
