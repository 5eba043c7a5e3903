"""fairshard: PyTorch samplers that stay correct on many processes.

Every sampler shares one contract: disjoint shares, equal steps on every rank,
an exact ``len()``, an order that is a pure function of (seed, epoch, config),
mid-epoch and elastic resume through ``state_dict``, and memory that does not
grow with the dataset.
"""

from ._balance import step_imbalance
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
from ._iterable import ShardedIterable
from ._length_batch import LengthBucketBatchSampler
from ._metrics import ClassificationMetrics, ExactMetrics
from ._partition import Partition
from ._shares import padding_mask
from ._simulate import SimulationReport, simulate
from ._split import split
from ._stop import StopTogether, stop_together
from ._token_budget import TokenBudgetBatchSampler
from ._verify import verify

__all__ = [
    "BatchShardSampler",
    "ClassBatchSampler",
    "ClassificationMetrics",
    "ConfigError",
    "ConfigTypeError",
    "DegenerateConfigWarning",
    "DistributedEvalSampler",
    "DistributedSampler",
    "ExactMetrics",
    "FairshardWarning",
    "LengthBucketBatchSampler",
    "Partition",
    "RankMismatchError",
    "ShardedIterable",
    "SimulationReport",
    "StateDictError",
    "StopTogether",
    "TokenBudgetBatchSampler",
    "gather_in_order",
    "padding_mask",
    "simulate",
    "split",
    "step_imbalance",
    "stop_together",
    "verify",
]

__version__ = "0.1.0"
