import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from pkg.common.data_parallel import BalancedBatchSampler
from pkg.common.samplers import ResumableSampler


class BaseTrainer:
    def __init__(self, train_set, val_set, test_set, model):
        self.model = model
        self.train_sampler = self.get_sampler(train_set, 8, shuffle=True)
        self.val_sampler = self.get_sampler(val_set, 16, shuffle=False)
        self.val_loader = DataLoader(val_set, batch_sampler=self.val_sampler)
        self.test_sampler = self.build_sampler(test_set)
        self.test_loader = DataLoader(test_set, sampler=self.test_sampler)

    def get_sampler(self, dataset, batch_size, shuffle):
        return BalancedBatchSampler(
            dataset,
            batch_size=batch_size,
            num_replicas=dist.get_world_size(),
            rank=dist.get_rank(),
            shuffle=shuffle,
        )

    def build_sampler(self, dataset):
        return ResumableSampler(dataset, 8, shuffle=False, drop_last=True)

    def _aggregate(self, metrics):
        for value in metrics.values():
            dist.all_reduce(value)
        return metrics["total"] / metrics["numel"]

    def validate(self):
        metrics = {"total": torch.zeros(1), "numel": torch.zeros(1)}
        for x, y in self.val_loader:
            metrics["total"] += (self.model(x) - y).abs().sum()
            metrics["numel"] += y.numel()
        return self._aggregate(metrics)

    def test(self):
        metrics = {"total": torch.zeros(1), "numel": torch.zeros(1)}
        for x, y in self.test_loader:
            metrics["total"] += (self.model(x) - y).abs().sum()
            metrics["numel"] += y.numel()
        return self._aggregate(metrics)
