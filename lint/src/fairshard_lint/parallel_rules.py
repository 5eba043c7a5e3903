"""Lint rules about training stacks above the sampler: model parallelism and accelerate.

Rules FS113 to FS115: a sampler sharded by the global world in a job whose
ranks are also tensor/pipeline-parallel peers, a fairshard loader handed
to ``accelerator.prepare``, which shards it a second time, and any other data
that already holds one rank's share handed to accelerate or to a Trainer. Each rule reads
the syntax tree (never runs the script) and yields ``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .double_shards import sharded_twice
from .flow import LOADERS, flow_of
from .names import Module, argument, dotted, env_key, name_words, tail
from .rulebook import rule

__all__: list[str] = []

#: Calls and classes that put model-parallel dimensions into a job.
_MODEL_PARALLEL_CALLS = frozenset(
    {
        "parallelize_module",
        "ColwiseParallel",
        "RowwiseParallel",
        "SequenceParallel",
        "PrepareModuleInput",
        "initialize_model_parallel",
        "PipelineModule",
        "pipeline",
    }
)
#: Modules whose import means Megatron or DeepSpeed model parallelism.
_MODEL_PARALLEL_MODULES = (
    "megatron.core.parallel_state",
    "megatron.core.mpu",
    "megatron.mpu",
    "megatron.core.tensor_parallel",
    "deepspeed.pipe",
    "torch.distributed.tensor.parallel",
    "torch.distributed.pipelining",
)
#: Words of a rank or size expression that mean the data-parallel group.
_DP_WORDS = frozenset({"dp", "data", "replicate", "shard", "dp_rank", "dp_size"})


def _multi_dim_mesh(call: ast.Call) -> bool:
    """``init_device_mesh("cuda", (2, 4), ...)`` or ``mesh_dim_names=("dp", "tp")``."""
    if tail(call) != "init_device_mesh":
        return False
    shape = argument(call, "mesh_shape", 1)
    names = argument(call, "mesh_dim_names", 2)
    return any(isinstance(v, ast.Tuple | ast.List) and len(v.elts) >= 2 for v in (shape, names))


#: Mesh dimension names that split only the data (HSDP's replicate and shard groups).
_DP_DIMENSIONS = frozenset(
    {"dp", "ddp", "fsdp", "hsdp", "data", "replicate", "shard", "dp_replicate", "dp_shard"}
)
#: Calls that shard a model's parameters over a mesh and keep every rank on its own data.
_DATA_PARALLEL_WRAPPERS = frozenset(
    {"FullyShardedDataParallel", "FSDP", "fully_shard", "replicate", "DistributedDataParallel"}
)


def _data_parallel_mesh(mod: Module, call: ast.Call) -> bool:
    """A multi-dim mesh that only splits the data: hybrid-sharded data parallelism (HSDP).

    FSDPToys' ``init_device_mesh("cuda", (world_size // fsdp_size, fsdp_size),
    mesh_dim_names=["dp", "fsdp"])`` handed to ``FSDP(...,
    sharding_strategy=ShardingStrategy.HYBRID_SHARD)`` (and to ``fully_shard(mesh=...)``):
    both dimensions are data parallel, every rank trains on its own batch, and
    the global rank is the right shard. Every dimension named for data
    (:data:`_DP_DIMENSIONS`), or the mesh handed only to FSDP-style wrappers.
    """
    names = argument(call, "mesh_dim_names", 2)
    if (
        isinstance(names, ast.Tuple | ast.List)
        and names.elts
        and all(
            isinstance(e, ast.Constant) and str(e.value).lower() in _DP_DIMENSIONS
            for e in names.elts
        )
    ):
        return True
    parent = mod.parents.get(call)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
        return False
    mesh = dotted(parent.targets[0])
    if mesh is None:
        return False
    uses = [
        node
        for node in mod.nodes
        if isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and dotted(node) == mesh
    ]
    if not uses:
        return False
    for use in uses:
        holder = mod.parents.get(use)
        if isinstance(holder, ast.keyword):
            holder = mod.parents.get(holder)
        if not (isinstance(holder, ast.Call) and tail(holder) in _DATA_PARALLEL_WRAPPERS):
            return False
    return True


def model_parallel(mod: Module) -> str | None:
    """What in the file makes it model-parallel, in words; ``None`` when nothing does."""
    for call in mod.calls:
        if _multi_dim_mesh(call) and not _data_parallel_mesh(mod, call):
            return f"a {ast.unparse(argument(call, 'mesh_shape', 1) or call)} device mesh"
        if tail(call) in _MODEL_PARALLEL_CALLS and tail(call) != "pipeline":
            return f"{tail(call)}()"
    for target in mod.aliases.values():
        if target.startswith(_MODEL_PARALLEL_MODULES) or target in (
            "megatron.core.parallel_state",
            "megatron.core.mpu",
        ):
            return f"{target}"
    for node in mod.nodes:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module in ("megatron.core", "megatron")
            and any(a.name in ("parallel_state", "mpu") for a in node.names)
        ):
            return f"{node.module}.{node.names[0].name}"
    return None


def _data_parallel(node: ast.AST) -> bool:
    """The expression reads the data-parallel group (``dp_rank``, ``mesh["dp"]``, ...)."""
    for sub in ast.walk(node):
        words: list[str] = []
        if isinstance(sub, ast.Name):
            words = name_words(sub.id)
        elif isinstance(sub, ast.Attribute):
            words = name_words(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            words = name_words(sub.value)
        if set(words) & _DP_WORDS or "data_parallel" in "_".join(words):
            return True
    return False


def _global(node: ast.AST) -> bool:
    """``dist.get_rank()``, ``RANK``, ``get_world_size()``: the whole job's world."""
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Call)
            and tail(sub) in ("get_rank", "get_world_size")
            and not sub.args
            and not sub.keywords
        ):
            return True
        if env_key(sub) in ("RANK", "WORLD_SIZE"):
            return True
    return False


def _says_global(node: ast.AST) -> bool:
    """A name that says it is the whole job's rank: ``global_rank``, ``world_rank``."""
    words = set(name_words(dotted(node) or ""))
    return bool(words & {"global", "world"}) and "rank" in words


@rule(
    "FS113",
    "global-rank-with-model-parallel",
    "a distributed sampler sharded by the global world (default rank, dist.get_rank()) in a "
    "script with model-parallel dimensions (a multi-dim init_device_mesh, parallelize_module, "
    "Megatron's parallel_state/mpu, DeepSpeed pipeline modules): the ranks of one tensor or "
    "pipeline group must read identical data, but each gets a different share",
    "shard by the data-parallel group: fairshard.DistributedSampler(dataset, group=mesh['dp']) "
    "(or num_replicas=dp_size, rank=dp_rank, e.g. mpu.get_data_parallel_rank())",
)
def _global_rank_with_model_parallel(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    why = model_parallel(mod)
    if why is None:
        return
    flow = flow_of(mod)
    for call in mod.calls:
        name = tail(call)
        qualified = mod.qualified(call.func) or ""
        if not (name == "DistributedSampler" or qualified.startswith("fairshard.")):
            continue
        if not name.endswith("Sampler") and name != "ShardedIterable":
            continue
        if argument(call, "group") is not None or argument(call, "mesh") is not None:
            continue
        positional = name == "DistributedSampler"
        rank = argument(call, "rank", 2 if positional else None)
        world = argument(call, "num_replicas", 1 if positional else None)
        given = [v for v in (rank, world) if v is not None]
        if any(_data_parallel(v) for v in given):
            continue
        bound = [
            value for v in given if (n := dotted(v)) for names, value in flow.bindings if n in names
        ]
        if any(_data_parallel(v) for v in bound):
            continue
        if given and not any(_global(v) or _says_global(v) for v in given + bound):
            continue  # a rank the rule cannot read: say nothing
        shown = "the default (global) rank" if not given else ast.unparse(given[0])
        yield (
            call,
            (
                f"{name} shards by {shown} in a script with model parallelism ({why}): "
                "tensor/pipeline peers read different samples; shard by the data-parallel "
                "group (group=mesh['dp'], or rank=dp_rank, num_replicas=dp_size)"
            ),
        )


def _fairshard_in(mod: Module, node: ast.AST | None, depth: int = 0) -> str | None:
    """The fairshard sampler or stream an expression is, or that its loader is built on."""
    if node is None or depth > 3:
        return None
    if isinstance(node, ast.Name | ast.Attribute):
        name = dotted(node)
        for names, value in flow_of(mod).bindings:
            if name in names and (found := _fairshard_in(mod, value, depth + 1)):
                return found
        return None
    if not isinstance(node, ast.Call):
        return None
    if (mod.qualified(node.func) or "").startswith("fairshard."):
        return tail(node)
    if tail(node) in LOADERS:
        for key, position in (("sampler", 3), ("batch_sampler", 4), ("dataset", 0)):
            if found := _fairshard_in(mod, argument(node, key, position), depth + 1):
                return found
    return None


@rule(
    "FS114",
    "accelerate-reshards-fairshard",
    "a fairshard sampler, or a DataLoader built on one, passed to accelerator.prepare: "
    "accelerate shards every loader it prepares again (BatchSamplerShard), so each process "
    "keeps 1/W of its already sharded share and (W-1)/W of the data is never used",
    "prepare it with fairshard.integrations.accelerate.prepare_data_loader(accelerator, "
    "loader), which keeps fairshard's shares (device placement, set_epoch and state included)",
)
def _accelerate_reshards(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for call in mod.calls:
        if tail(call) != "prepare" or not isinstance(call.func, ast.Attribute):
            continue
        owner = dotted(call.func.value) or ""
        if "accelerator" not in owner.lower() and not mod.imports_any(frozenset({"accelerate"})):
            continue
        for arg in call.args:
            found = _fairshard_in(mod, arg)
            if found is not None:
                yield (
                    call,
                    (
                        f"{owner}.prepare() gets a loader on fairshard's {found}: accelerate "
                        "shards it again and (W-1)/W of the data is never read; use "
                        "fairshard.integrations.accelerate.prepare_data_loader(accelerator, loader)"
                    ),
                )
                break


@rule(
    "FS115",
    "sharded-twice",
    "data that already holds one rank's share (cut by the rank, datasets' "
    "split_dataset_by_node, webdataset's split_by_node, an IterableDataset whose __iter__ "
    "keeps its rank's items) handed to accelerator.prepare in a loader, or to a transformers "
    "or trl Trainer as train_dataset/eval_dataset: accelerate splits every loader it prepares "
    "again (BatchSamplerShard, IterableDatasetShard, or the main process's batches "
    "dispatched), so each process keeps 1/W of its share and (W-1)/W of the data is never "
    "read, silently",
    "split once: hand accelerate (or the Trainer) the whole dataset and let it split, or keep "
    "your split and do not prepare that loader (accelerator.prepare(model, optimizer) only, "
    "batches moved to the device yourself)",
)
def _sharded_twice(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for call, what, why in sharded_twice(mod):
        yield (
            call,
            (
                f"{what}, but {why}: each process keeps 1/W of its share and (W-1)/W of the "
                "data is never read; split once (let the framework split the whole dataset, "
                "or do not prepare a loader you split yourself)"
            ),
        )
