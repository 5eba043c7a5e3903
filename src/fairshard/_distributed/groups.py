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

NOTE (catching the global world on a model-parallel mesh): torch keeps no
list of the meshes a process built, but every process group it creates for
a mesh dim carries the description ``mesh_<dim name>`` (Megatron's carry
``TENSOR_MODEL_PARALLEL_GROUP`` and the like). :func:`model_parallel_groups`
reads those descriptions of the groups this process belongs to -- locally,
without any collective -- so a sampler that would take the global world in
such a job is refused at construction, with the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .._errors import ConfigError, ConfigTypeError
from .collectives import process_group_active

__all__ = [
    "MODEL_PARALLEL_DIMS",
    "PIPELINE_DIMS",
    "Group",
    "check_not_model_parallel",
    "describe_group",
    "group_of",
    "model_parallel_groups",
    "replica_group",
    "resolve_group",
]

#: Mesh dim names whose ranks hold replicas of the data (identical batches).
MODEL_PARALLEL_DIMS = frozenset(
    {"tp", "cp", "pp", "sp", "etp", "mp", "tensor", "context", "pipeline", "model"}
)
#: Model-parallel dims whose ranks need not all load data (only some pipeline stages do).
PIPELINE_DIMS = frozenset({"pp", "pipeline"})
#: Megatron-LM's ``parallel_state`` group descriptions of the same kinds.
_MEGATRON_GROUPS = frozenset(
    {"TENSOR_MODEL_PARALLEL_GROUP", "PIPELINE_MODEL_PARALLEL_GROUP", "CONTEXT_PARALLEL_GROUP"}
)


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


def resolve_group(group: Any, name: str = "group") -> Group:
    """Resolve a ``ProcessGroup`` or ``DeviceMesh`` into size, rank and process group.

    Raises:
        ConfigTypeError: ``group`` is neither.
        ConfigError: no process group is initialized, a multi-dim mesh cannot
            be flattened, or this process is not a member of the group.
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
    return Group(pg, mesh, int(torch.distributed.get_world_size(pg)), rank)


def group_of(sampler: Any) -> Any:
    """The process group a sampler was built for (``None``: the default group)."""
    ref = getattr(sampler, "_group", None)
    return ref.pg if isinstance(ref, Group) else None


def model_parallel_groups() -> list[tuple[str, int]]:
    """``(description, size)`` of the model-parallel groups this process belongs to.

    Read from the descriptions torch gives mesh-dim groups (``mesh_tp``) and
    Megatron gives its groups; only groups of more than one rank count. Local:
    no collective.
    """
    if not process_group_active():
        return []
    from torch.distributed import distributed_c10d as c10d

    found = []
    for pg in list(getattr(c10d._world, "pg_names", {})):
        desc = str(getattr(pg, "group_desc", ""))
        dim = desc[len("mesh_") :] if desc.startswith("mesh_") else None
        if (dim in MODEL_PARALLEL_DIMS or desc in _MEGATRON_GROUPS) and pg.size() > 1:
            found.append((dim or desc, int(pg.size())))
    return sorted(set(found))


def check_not_model_parallel(size: int, rank: int, source: str) -> None:
    """Refuse the global world for a sampler in a job with model-parallel groups.

    Raises:
        ConfigError: the world (``size``, ``rank``) is the default group's and
            this process belongs to a model-parallel group of more than one rank.
    """
    if not process_group_active() or size == 1:
        return
    if (size, rank) != (torch.distributed.get_world_size(), torch.distributed.get_rank()):
        return
    found = model_parallel_groups()
    if not found:
        return
    dims = ", ".join(f"{d}={n}" for d, n in found)
    raise ConfigError(
        f"the sampler would shard over the whole job (num_replicas={size}, rank={rank}, from "
        f"{source}), but this process belongs to model-parallel groups ({dims}) whose ranks "
        "must read identical data; pass the data-parallel group: group=mesh['dp'] (or "
        "group=mesh['dp_replicate', 'dp_shard']), or num_replicas/rank of the data-parallel "
        "group; pass group=torch.distributed.group.WORLD if the whole job is really meant"
    )


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
