"""fairshard: PyTorch samplers that stay correct on many processes.

Every sampler shares one contract: disjoint shares, equal steps on every rank,
an exact ``len()``, an order that is a pure function of (seed, epoch, config),
mid-epoch and elastic resume through ``state_dict``, and memory that does not
grow with the dataset.

The job tools also live in :mod:`fairshard.distributed`, the simulator and
checks in :mod:`fairshard.diagnostics` and the sharded formats (WebDataset,
MDS, Parquet, Arrow) in :mod:`fairshard.formats`; the names here are the same
objects.
"""

from ._batching.batch_shard import BatchShardSampler
from ._batching.class_batch import ClassBatchSampler
from ._batching.costs import AttentionCost
from ._batching.length_bucket import LengthBucketBatchSampler
from ._batching.pack_collate import PackedRows, collate_packed, collate_packed_padded
from ._batching.packing import PackingBatchSampler
from ._batching.token_budget import TokenBudgetBatchSampler
from ._core.endless import StepSampler
from ._core.partition import Partition
from ._core.registry import set_public_path as _set_public_path
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
from ._samplers.mixture_online import OnlineMixtureSampler
from ._samplers.readahead import Readahead
from ._samplers.schedules import Constant, LinearAnneal, LinearWeightAnneal
from ._samplers.sharded import ShardedSampler
from ._samplers.weighted import WeightedSampler
from ._streams.sharded_iterable import ShardedIterable
from ._streams.split import split
from ._streams.stop import StopTogether, stop_together
from ._version import __version__ as __version__
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
    "DegenerateConfigWarning",
    "DistributedEvalSampler",
    "DistributedSampler",
    "ExactMetrics",
    "FairshardWarning",
    "HardExampleSampler",
    "IndexedDataset",
    "LengthBucketBatchSampler",
    "LinearAnneal",
    "LinearWeightAnneal",
    "MixtureSampler",
    "OnlineMixtureSampler",
    "PackedRows",
    "PackingBatchSampler",
    "Partition",
    "RankMismatchError",
    "Readahead",
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

# The public path of each public object (reprs, pickles, docs); the two namespaces set
# their own.
for _name in __all__:
    _obj = globals()[_name]
    if _obj.__module__.startswith("fairshard._"):
        _set_public_path(_obj, __name__)
del _name, _obj
