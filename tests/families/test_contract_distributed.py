from typing import Any

import pytest

from fairshard import DistributedEvalSampler, DistributedSampler

from ..contract import SamplerContract


class TestDistributedSamplerLazy(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> DistributedSampler:
        return DistributedSampler(1003, world_size, rank, seed=7, **kw)


class TestDistributedSamplerDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> DistributedSampler:
        return DistributedSampler(1003, world_size, rank, seed=7, drop_last=True, **kw)


class TestDistributedSamplerTorchOrder(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> DistributedSampler:
        return DistributedSampler(501, world_size, rank, seed=3, order="torch", **kw)


class TestDistributedSamplerBlockedUneven(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> DistributedSampler:
        return DistributedSampler(
            1003, world_size, rank, seed=1, layout="blocked", tail="uneven", **kw
        )


class TestDistributedSamplerStridedUneven(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> DistributedSampler:
        return DistributedSampler(1003, world_size, rank, tail="uneven", **kw)


class TestDistributedEvalSampler(SamplerContract):
    epochs_differ = False

    def make(self, rank: int, world_size: int, **kw: Any) -> DistributedSampler:
        if kw:
            pytest.skip("the evaluation sampler takes no auto_epoch")
        return DistributedEvalSampler(1003, world_size, rank)
