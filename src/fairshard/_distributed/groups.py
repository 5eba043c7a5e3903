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

NOTE (a model-parallel group given as the data group): ``group=mesh["tp"]``
would give the tensor-parallel peers of one model different shares. Two
local rules, no collective, refuse it before any group is used:

* by name: a mesh whose dims are named like model-parallel or
  expert-parallel ones (:func:`not_data_parallel_dim`: ``tp``, ``cp``,
  ``pp``, ``ep``, ``tensor``, ``pipe``, ``..._parallel``) is never the data
  group;
* by ranks: a data-parallel group must not hold two ranks of one
  model-parallel group of this process -- for a mesh, the groups of its root
  mesh's model-parallel dims (another mesh of the same job may be shaped
  otherwise, as when a state is resumed on dp=4 x tp=1 beside dp=2 x tp=2);
  for a ``ProcessGroup``, every model-parallel group this process belongs to
  (mesh dims and Megatron's, as above).

A ``ProcessGroup`` of the whole job (``dist.group.WORLD``) is the explicit
way to say the whole job is meant, and stays accepted; ``verify``'s
``replicas=`` resolves its group with ``data_parallel=False``.
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
    "is_model_parallel_dim",
    "model_parallel_groups",
    "not_data_parallel_dim",
    "replica_group",
    "resolve_group",
]

#: Mesh dim names whose ranks hold replicas of the data (identical batches).
MODEL_PARALLEL_DIMS = frozenset(
    {"tp", "cp", "pp", "sp", "etp", "mp", "tensor", "context", "pipeline", "pipe", "model"}
)
#: Model-parallel dims whose ranks need not all load data (only some pipeline stages do).
PIPELINE_DIMS = frozenset({"pp", "pipeline", "pipe"})
#: Expert-parallel dims: a part of the data-parallel ranks (with cp's replicas inside, in
#: torchtitan), never the data-parallel group on its own.
_EXPERT_DIMS = frozenset({"ep", "expert"})
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


def _normal_dim(name: str) -> str:
    low = name.strip().lower()
    for suffix in ("_parallel", "-parallel"):
        low = low.removesuffix(suffix)
    return low


def is_model_parallel_dim(name: str) -> bool:
    """Whether a mesh dim named ``name`` holds replicas (``tp``, ``tensor_parallel``...)."""
    return _normal_dim(name) in MODEL_PARALLEL_DIMS


def not_data_parallel_dim(name: str) -> str | None:
    """What kind of dim ``name`` is when it is never a data-parallel one, else ``None``.

    ``"model-parallel"`` for a dim named like ``tp``, ``cp``, ``pp``, ``sp``,
    ``tensor``, ``pipe``, ``context`` (``_parallel`` suffix or not, any case);
    ``"expert-parallel"`` for ``ep``/``expert``. Whole names only: torchtitan's
    ``dp_shard_in_ep`` is a part of its data-parallel group.
    """
    low = _normal_dim(name)
    if low in MODEL_PARALLEL_DIMS:
        return "model-parallel"
    if low in _EXPERT_DIMS:
        return "expert-parallel"
    return None


def _data_parallel_fix(mesh: Any) -> str:
    """The fix: ``group=mesh[...]`` over the data-parallel dims of ``mesh``'s root mesh."""
    names: tuple[str, ...] = ()
    if mesh is not None:
        names = tuple(mesh._get_root_mesh().mesh_dim_names or ())
    data = [n for n in names if not_data_parallel_dim(n) is None]
    fix = "group=mesh['dp']"
    if data and data != ["dp"]:
        dims = ", ".join(repr(n) for n in data)
        fix = f"group=mesh[{dims}] (group=mesh['dp'] once flattened under that name)"
    return (
        f"pass the data-parallel group: {fix}, or num_replicas/rank of the data-parallel "
        "group (group=torch.distributed.group.WORLD if the whole job is really meant)"
    )


def _refuse_by_name(mesh: Any, name: str) -> None:
    """Refuse a mesh whose dims are named like model- or expert-parallel ones."""
    dims = tuple(mesh.mesh_dim_names or ())
    bad = [(d, kind) for d in dims if (kind := not_data_parallel_dim(d)) is not None]
    if not bad:
        return
    what = "; ".join(
        f"{d} is a model-parallel dim, whose ranks hold replicas of one model and must read "
        "identical data"
        if kind == "model-parallel"
        else f"{d} is an expert-parallel dim, only a part of the data-parallel ranks"
        for d, kind in bad
    )
    raise ConfigError(
        f"{name}={describe_group(mesh)} is not a data-parallel group: {what}; "
        f"{_data_parallel_fix(mesh)}"
    )


def _own_model_parallel_groups(mesh: Any) -> list[tuple[str, list[int]]]:
    """``(kind, global ranks)`` of this process's model-parallel groups of more than one rank.

    For a mesh, its root mesh's model-parallel dims; otherwise every group of
    this process that torch or Megatron describes as model parallel.
    """
    found: list[tuple[str, list[int]]] = []
    if mesh is not None:
        root = mesh._get_root_mesh()
        for dim in root.mesh_dim_names or ():
            if is_model_parallel_dim(dim):
                pg = root.get_group(dim)
                found.append((dim, list(torch.distributed.get_process_group_ranks(pg))))
    else:
        for kind, pg in _model_parallel_pgs():
            found.append((kind, list(torch.distributed.get_process_group_ranks(pg))))
    return [(k, r) for k, r in found if len(r) > 1]


def _refuse_by_ranks(group: Any, mesh: Any, pg: Any, name: str) -> None:
    """Refuse a data group that holds two ranks of one model-parallel group of this process."""
    members = list(torch.distributed.get_process_group_ranks(pg))
    if mesh is None and len(members) == torch.distributed.get_world_size():
        return  # the whole job, given explicitly
    inside = set(members)
    for kind, ranks in _own_model_parallel_groups(mesh):
        shared = [r for r in ranks if r in inside]
        if len(shared) < 2:
            continue
        raise ConfigError(
            f"{name}={describe_group(group)} is not a data-parallel group: it holds global "
            f"ranks {shared}, which share this process's model-parallel group {kind} (global "
            f"ranks {ranks}) and so must read identical data; {_data_parallel_fix(mesh)}"
        )


def resolve_group(group: Any, name: str = "group", *, data_parallel: bool = True) -> Group:
    """Resolve a ``ProcessGroup`` or ``DeviceMesh`` into size, rank and process group.

    Args:
        group: The group.
        name: The parameter's name, for messages.
        data_parallel: Whether the group must be a data-parallel one (a
            sampler's world, the evaluation gathers): a model-parallel group
            is refused (see the NOTE above). ``False`` for a group of replicas
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
        _refuse_by_name(mesh, name)  # before flattening creates any group
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
        _refuse_by_ranks(group, mesh, pg, name)
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
    return sorted({(kind, int(pg.size())) for kind, pg in _model_parallel_pgs() if pg.size() > 1})


def _model_parallel_pgs() -> list[tuple[str, Any]]:
    """``(dim or description, group)`` for this process's model-parallel groups (local)."""
    if not process_group_active():
        return []
    from torch.distributed import distributed_c10d as c10d

    found = []
    for pg in list(getattr(c10d._world, "pg_names", {})):
        desc = str(getattr(pg, "group_desc", ""))
        dim = desc[len("mesh_") :] if desc.startswith("mesh_") else None
        if (dim is not None and is_model_parallel_dim(dim)) or desc in _MEGATRON_GROUPS:
            found.append((dim or desc, pg))
    return found


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
