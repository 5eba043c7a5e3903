"""fairshard: PyTorch samplers that stay correct on many processes.

Every sampler shares one contract: disjoint shares, equal steps on every rank,
an exact ``len()``, an order that is a pure function of (seed, epoch, config),
mid-epoch and elastic resume through ``state_dict``, and memory that does not
grow with the dataset.

The job tools also live in :mod:`fairshard.distributed`, the simulator and
checks in :mod:`fairshard.diagnostics` and the sharded formats (WebDataset,
MDS, Parquet, Arrow) in :mod:`fairshard.formats`; the names here are the same
objects.

Public names resolve on first use (PEP 562, as numpy and scipy load their
submodules): ``import fairshard`` itself imports neither torch nor numpy, so
``python -m fairshard lint`` starts in milliseconds.
"""

import importlib
import typing

from ._version import __version__ as __version__

if typing.TYPE_CHECKING:  # the same names for type checkers; at run time see __getattr__
    from ._batching.batch_shard import BatchShardSampler
    from ._batching.buckets import KeyBatchSampler, ShapeBucketBatchSampler
    from ._batching.class_batch import ClassBatchSampler
    from ._batching.costs import AttentionCost
    from ._batching.length_bucket import LengthBucketBatchSampler
    from ._batching.pack_collate import PackedRows, collate_packed, collate_packed_padded
    from ._batching.packing import PackingBatchSampler
    from ._batching.token_budget import TokenBudgetBatchSampler
    from ._core.endless import StepSampler
    from ._core.migrate import DataChange
    from ._core.partition import Partition
    from ._core.steps import BatchSchedule, StepIndices
    from ._errors import (
        ConfigError,
        ConfigTypeError,
        DegenerateConfigWarning,
        FairshardWarning,
        RankMismatchError,
        StateDictError,
    )
    from ._evaluation.gather import gather_in_order
    from ._evaluation.metrics import ClassificationMetrics, ExactMetrics
    from ._evaluation.shares import padding_mask
    from ._random.seeding import sample_seed
    from ._samplers.class_balanced import ClassBalancedSampler
    from ._samplers.distributed import DistributedEvalSampler, DistributedSampler
    from ._samplers.hard_example import HardExampleSampler, IndexedDataset
    from ._samplers.mixture import MixtureSampler
    from ._samplers.mixture_change import MixtureChange
    from ._samplers.mixture_online import OnlineMixtureSampler
    from ._samplers.readahead import Readahead
    from ._samplers.schedules import Constant, LinearAnneal, LinearWeightAnneal
    from ._samplers.sharded import ShardedSampler
    from ._samplers.weighted import WeightedSampler
    from ._streams.kfold import kfold
    from ._streams.sharded_iterable import ShardedIterable
    from ._streams.split import split
    from ._streams.stop import StopTogether, stop_together
    from .diagnostics import (
        CoverageSegment,
        SimulationReport,
        check_coverage,
        plot_simulation,
        simulate,
        step_imbalance,
    )
    from .distributed import init_elastic_process_group, loader_state_dict, save_atomic, verify
    from .formats import (
        ChunkCache,
        ShardDataset,
        ShardError,
        open_arrow,
        open_mds,
        open_parquet,
        open_webdataset,
    )

__all__ = [
    "AttentionCost",
    "BatchSchedule",
    "BatchShardSampler",
    "ChunkCache",
    "ClassBalancedSampler",
    "ClassBatchSampler",
    "ClassificationMetrics",
    "ConfigError",
    "ConfigTypeError",
    "Constant",
    "CoverageSegment",
    "DataChange",
    "DegenerateConfigWarning",
    "DistributedEvalSampler",
    "DistributedSampler",
    "ExactMetrics",
    "FairshardWarning",
    "HardExampleSampler",
    "IndexedDataset",
    "KeyBatchSampler",
    "LengthBucketBatchSampler",
    "LinearAnneal",
    "LinearWeightAnneal",
    "MixtureChange",
    "MixtureSampler",
    "OnlineMixtureSampler",
    "PackedRows",
    "PackingBatchSampler",
    "Partition",
    "RankMismatchError",
    "Readahead",
    "ShapeBucketBatchSampler",
    "ShardDataset",
    "ShardError",
    "ShardedIterable",
    "ShardedSampler",
    "SimulationReport",
    "StateDictError",
    "StepIndices",
    "StepSampler",
    "StopTogether",
    "TokenBudgetBatchSampler",
    "WeightedSampler",
    "check_coverage",
    "collate_packed",
    "collate_packed_padded",
    "gather_in_order",
    "init_elastic_process_group",
    "kfold",
    "loader_state_dict",
    "open_arrow",
    "open_mds",
    "open_parquet",
    "open_webdataset",
    "padding_mask",
    "plot_simulation",
    "sample_seed",
    "save_atomic",
    "simulate",
    "split",
    "step_imbalance",
    "stop_together",
    "verify",
]

#: Where each public name is defined, or re-exported by its public namespace.
_EXPORTS: dict[str, str] = {
    "AttentionCost": "._batching.costs",
    "BatchSchedule": "._core.steps",
    "BatchShardSampler": "._batching.batch_shard",
    "ChunkCache": ".formats",
    "ClassBalancedSampler": "._samplers.class_balanced",
    "ClassBatchSampler": "._batching.class_batch",
    "ClassificationMetrics": "._evaluation.metrics",
    "ConfigError": "._errors",
    "ConfigTypeError": "._errors",
    "Constant": "._samplers.schedules",
    "CoverageSegment": ".diagnostics",
    "DataChange": "._core.migrate",
    "DegenerateConfigWarning": "._errors",
    "DistributedEvalSampler": "._samplers.distributed",
    "DistributedSampler": "._samplers.distributed",
    "ExactMetrics": "._evaluation.metrics",
    "FairshardWarning": "._errors",
    "HardExampleSampler": "._samplers.hard_example",
    "IndexedDataset": "._samplers.hard_example",
    "KeyBatchSampler": "._batching.buckets",
    "LengthBucketBatchSampler": "._batching.length_bucket",
    "LinearAnneal": "._samplers.schedules",
    "LinearWeightAnneal": "._samplers.schedules",
    "MixtureChange": "._samplers.mixture_change",
    "MixtureSampler": "._samplers.mixture",
    "OnlineMixtureSampler": "._samplers.mixture_online",
    "PackedRows": "._batching.pack_collate",
    "PackingBatchSampler": "._batching.packing",
    "Partition": "._core.partition",
    "RankMismatchError": "._errors",
    "Readahead": "._samplers.readahead",
    "ShapeBucketBatchSampler": "._batching.buckets",
    "ShardDataset": ".formats",
    "ShardError": ".formats",
    "ShardedIterable": "._streams.sharded_iterable",
    "ShardedSampler": "._samplers.sharded",
    "SimulationReport": ".diagnostics",
    "StateDictError": "._errors",
    "StepIndices": "._core.steps",
    "StepSampler": "._core.endless",
    "StopTogether": "._streams.stop",
    "TokenBudgetBatchSampler": "._batching.token_budget",
    "WeightedSampler": "._samplers.weighted",
    "check_coverage": ".diagnostics",
    "collate_packed": "._batching.pack_collate",
    "collate_packed_padded": "._batching.pack_collate",
    "gather_in_order": "._evaluation.gather",
    "init_elastic_process_group": ".distributed",
    "kfold": "._streams.kfold",
    "loader_state_dict": ".distributed",
    "open_arrow": ".formats",
    "open_mds": ".formats",
    "open_parquet": ".formats",
    "open_webdataset": ".formats",
    "padding_mask": "._evaluation.shares",
    "plot_simulation": ".diagnostics",
    "sample_seed": "._random.seeding",
    "save_atomic": ".distributed",
    "simulate": ".diagnostics",
    "split": "._streams.split",
    "step_imbalance": ".diagnostics",
    "stop_together": "._streams.stop",
    "verify": ".distributed",
}
#: The public namespaces, submodules an attribute access imports.
_NAMESPACES = ("diagnostics", "distributed", "formats")


def __getattr__(name: str) -> typing.Any:
    """Resolve a public name (or namespace) on first use; see :func:`_resolve_all`."""
    if name in _NAMESPACES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _resolve_all()
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_NAMESPACES})


def _resolve_all() -> None:
    """Import every public name and give each its public path (reprs, pickles, docs).

    NOTE: all at once, on the first public name used, not one module per
    name: the first use leaves the package as an eager ``__init__`` would,
    every family registered (``_core.registry``, which the simulator reads
    by name) and every public object naming its public path, whichever name
    came first. The namespaces set their own paths when imported.
    """
    from ._core.registry import set_public_path

    found = globals()
    for name in __all__:
        obj = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        if obj.__module__.startswith("fairshard._"):
            set_public_path(obj, __name__)
        found[name] = obj
