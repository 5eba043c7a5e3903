"""What tells a model-parallel group apart, locally: names, descriptions, ranks.

Every rank of one model-parallel group (tensor, context, pipeline parallel)
must read *identical* data, so such a group is never a sampler's world.
Two mistakes are refused at construction, each by every rank from its own
mesh and group list (no collective, so every rank decides alike and none
waits).

NOTE (the global world on a model-parallel mesh): torch keeps no
list of the meshes a process built, but every process group it creates for
a mesh dim carries the description ``mesh_<dim name>`` (Megatron's carry
``TENSOR_MODEL_PARALLEL_GROUP`` and the like). :func:`model_parallel_groups`
reads those descriptions of the groups this process belongs to -- locally,
without any collective -- so a sampler that would take the global world in
such a job is refused at construction, with the fix.

NOTE (a model-parallel group given as the data group): ``group=mesh["tp"]``
would give the tensor-parallel peers of one model different shares. Two
rules refuse it, for every data-parallel group ``groups.resolve_group``
resolves:

* by name (:func:`refuse_model_parallel_dims`): a mesh whose dims are named
  like model-parallel or expert-parallel ones (:func:`not_data_parallel_dim`:
  ``tp``, ``cp``, ``pp``, ``ep``, ``tensor``, ``pipe``, ``..._parallel``) is
  never the data group; checked before flattening creates any group;
* by ranks (:func:`refuse_model_parallel_ranks`): a data-parallel group must
  not hold two ranks of one model-parallel group of this process -- for a
  mesh, the groups of its root mesh's model-parallel dims (another mesh of
  the same job may be shaped otherwise, as when a state is resumed on
  dp=4 x tp=1 beside dp=2 x tp=2); for a ``ProcessGroup``, every
  model-parallel group this process belongs to (mesh dims and Megatron's).

A ``ProcessGroup`` of the whole job (``dist.group.WORLD``) is the explicit
way to say the whole job is meant, and stays accepted; ``verify``'s
``replicas=`` resolves its group with ``data_parallel=False``.
"""

from __future__ import annotations

from typing import Any

import torch

from .._errors import ConfigError
from .collectives import process_group_active

__all__ = [
    "MODEL_PARALLEL_DIMS",
    "PIPELINE_DIMS",
    "check_not_model_parallel",
    "is_model_parallel_dim",
    "model_parallel_groups",
    "not_data_parallel_dim",
    "refuse_model_parallel_dims",
    "refuse_model_parallel_ranks",
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


def _root(mesh: Any) -> Any:
    """The mesh ``mesh`` was sliced or flattened from (itself where torch keeps no root)."""
    get_root = getattr(mesh, "_get_root_mesh", None)
    return mesh if get_root is None else get_root()


def _data_parallel_fix(mesh: Any) -> str:
    """The fix: ``group=mesh[...]`` over the data-parallel dims of ``mesh``'s root mesh."""
    names: tuple[str, ...] = ()
    if mesh is not None:
        names = tuple(_root(mesh).mesh_dim_names or ())
    data = [n for n in names if not_data_parallel_dim(n) is None]
    fix = "group=mesh['dp']"
    if data and data != ["dp"]:
        dims = ", ".join(repr(n) for n in data)
        fix = f"group=mesh[{dims}] (group=mesh['dp'] once flattened under that name)"
    return (
        f"pass the data-parallel group: {fix}, or num_replicas/rank of the data-parallel "
        "group (group=torch.distributed.group.WORLD if the whole job is really meant)"
    )


def refuse_model_parallel_dims(mesh: Any, given: str) -> None:
    """Refuse a mesh whose dims are named like model- or expert-parallel ones.

    Args:
        mesh: The ``DeviceMesh`` given as a data-parallel group.
        given: How the caller names it in messages (``"group=mesh['tp']"``).

    Raises:
        ConfigError: a dim is named like a model- or expert-parallel one.
    """
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
    raise ConfigError(f"{given} is not a data-parallel group: {what}; {_data_parallel_fix(mesh)}")


def _own_model_parallel_groups(mesh: Any) -> list[tuple[str, list[int]]]:
    """``(kind, global ranks)`` of this process's model-parallel groups of more than one rank.

    For a mesh, its root mesh's model-parallel dims; otherwise every group of
    this process that torch or Megatron describes as model parallel.
    """
    found: list[tuple[str, list[int]]] = []
    if mesh is not None:
        root = _root(mesh)
        for dim in root.mesh_dim_names or ():
            if is_model_parallel_dim(dim):
                pg = root.get_group(dim)
                found.append((dim, list(torch.distributed.get_process_group_ranks(pg))))
    else:
        for kind, pg in _model_parallel_pgs():
            found.append((kind, list(torch.distributed.get_process_group_ranks(pg))))
    return [(k, r) for k, r in found if len(r) > 1]


def refuse_model_parallel_ranks(mesh: Any, pg: Any, given: str) -> None:
    """Refuse a data group that holds two ranks of one model-parallel group of this process.

    Args:
        mesh: The ``DeviceMesh`` the group was given as, else ``None``.
        pg: Its ``ProcessGroup``.
        given: How the caller names it in messages.

    Raises:
        ConfigError: ``pg`` holds two ranks of one model-parallel group of
            this process (a ``ProcessGroup`` of the whole job excepted).
    """
    members = list(torch.distributed.get_process_group_ranks(pg))
    if mesh is None and len(members) == torch.distributed.get_world_size():
        return  # the whole job, given explicitly
    inside = set(members)
    for kind, ranks in _own_model_parallel_groups(mesh):
        shared = [r for r in ranks if r in inside]
        if len(shared) < 2:
            continue
        raise ConfigError(
            f"{given} is not a data-parallel group: it holds global "
            f"ranks {shared}, which share this process's model-parallel group {kind} (global "
            f"ranks {ranks}) and so must read identical data; {_data_parallel_fix(mesh)}"
        )


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
