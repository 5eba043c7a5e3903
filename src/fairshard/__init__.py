"""fairshard: PyTorch samplers that stay correct on many processes.

Every sampler shares one contract: disjoint shares, equal steps on every rank,
an exact ``len()``, an order that is a pure function of (seed, epoch, config),
mid-epoch and elastic resume through ``state_dict``, and memory that does not
grow with the dataset.
"""

from ._balance import step_imbalance
from ._balanced import ClassBalancedSampler
from ._batch_shard import BatchShardSampler
from ._class_batch import ClassBatchSampler
from ._distributed import DistributedEvalSampler, DistributedSampler
from ._errors import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    FairshardWarning,
    RankMismatchError,
    StateDictError,
)
from ._gather import gather_in_order
from ._hard_example import HardExampleSampler, IndexedDataset
from ._iterable import ShardedIterable
from ._length_batch import LengthBucketBatchSampler
from ._metrics import ClassificationMetrics, ExactMetrics
from ._partition import Partition
from ._schedules import Constant, LinearAnneal
from ._shares import padding_mask
from ._simulate import SimulationReport, simulate
from ._split import split
from ._stop import StopTogether, stop_together
from ._token_budget import TokenBudgetBatchSampler
from ._verify import verify
from ._weighted import WeightedSampler
from ._wrapper import ShardedSampler

__all__ = [
    "BatchShardSampler",
    "ClassBalancedSampler",
    "ClassBatchSampler",
    "ClassificationMetrics",
    "ConfigError",
    "ConfigTypeError",
    "Constant",
    "DegenerateConfigWarning",
    "DistributedEvalSampler",
    "DistributedSampler",
    "ExactMetrics",
    "FairshardWarning",
    "HardExampleSampler",
    "IndexedDataset",
    "LengthBucketBatchSampler",
    "LinearAnneal",
    "Partition",
    "RankMismatchError",
    "ShardedIterable",
    "ShardedSampler",
    "SimulationReport",
    "StateDictError",
    "StopTogether",
    "TokenBudgetBatchSampler",
    "WeightedSampler",
    "gather_in_order",
    "padding_mask",
    "simulate",
    "split",
    "step_imbalance",
    "stop_together",
    "verify",
]

__version__ = "0.1.0"
