"""fairshard: PyTorch samplers that stay correct on many processes.

Every sampler shares one contract: disjoint shares, equal steps on every rank,
an exact ``len()``, an order that is a pure function of (seed, epoch, config),
mid-epoch and elastic resume through ``state_dict``, and memory that does not
grow with the dataset.
"""

from ._balanced import ClassBalancedSampler
from ._distributed import DistributedEvalSampler, DistributedSampler
from ._errors import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    FairshardWarning,
    RankMismatchError,
    StateDictError,
)
from ._hard_example import HardExampleSampler, IndexedDataset
from ._partition import Partition
from ._schedules import Constant, LinearAnneal
from ._simulate import SimulationReport, simulate
from ._verify import verify
from ._weighted import WeightedSampler
from ._wrapper import ShardedSampler

__all__ = [
    "ClassBalancedSampler",
    "ConfigError",
    "ConfigTypeError",
    "Constant",
    "DegenerateConfigWarning",
    "DistributedEvalSampler",
    "DistributedSampler",
    "FairshardWarning",
    "HardExampleSampler",
    "IndexedDataset",
    "LinearAnneal",
    "Partition",
    "RankMismatchError",
    "ShardedSampler",
    "SimulationReport",
    "StateDictError",
    "WeightedSampler",
    "simulate",
    "verify",
]

__version__ = "0.1.0"
