# Samplers of the project's own that subclass DistributedSampler and keep its
# padding (no __iter__ of their own, drop_last left at False), directly, two
# levels down, or wrapped by a batch sampler's constructor; the validation
# loss and accuracy are summed over the ranks.
import torch
import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler


class StatefulDistributedSampler(DistributedSampler):
    def __init__(self, dataset, batch_size, **kwargs):
        super().__init__(dataset=dataset, **kwargs)
        self.start_iter = 0
        self.batch_size = batch_size

    def set_epoch_and_start_iteration(self, epoch, start_iter):
        self.set_epoch(epoch)
        self.start_iter = start_iter


class ResumableSampler(StatefulDistributedSampler):
    def state_dict(self):
        return {"start_iter": self.start_iter}


class BalancedBatchSampler(BatchSampler):
    def __init__(self, dataset, batch_size, num_replicas, rank, shuffle, drop_last=False):
        sampler = StatefulDistributedSampler(
            dataset,
            batch_size=batch_size,
            num_replicas=num_replicas,
            rank=rank,
            shuffle=shuffle,
            drop_last=drop_last,
        )
        super().__init__(sampler, batch_size=batch_size, drop_last=drop_last)


def _summed(model, loader):
    totals = torch.zeros(2)
    for x, y in loader:
        totals += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(totals)
    return totals[0] / totals[1]


def validate_direct(model, val_set):
    val_sampler = StatefulDistributedSampler(val_set, batch_size=8, shuffle=False)  # expect: FS109
    return _summed(model, DataLoader(val_set, batch_size=8, sampler=val_sampler))


def validate_deeper(model, val_set):
    val_sampler = ResumableSampler(val_set, 8, shuffle=False)  # expect: FS109
    return _summed(model, DataLoader(val_set, batch_size=8, sampler=val_sampler))


class Trainer:
    def __init__(self, train_set, val_set, model):
        self.model = model
        self.train_sampler = self.get_sampler(train_set, 8, shuffle=True)
        self.val_sampler = self.get_sampler(val_set, 16, shuffle=False)
        self.val_loader = DataLoader(val_set, batch_sampler=self.val_sampler)

    def get_sampler(self, dataset, batch_size, shuffle):
        return BalancedBatchSampler(  # expect: FS109
            dataset,
            batch_size=batch_size,
            num_replicas=dist.get_world_size(),
            rank=dist.get_rank(),
            shuffle=shuffle,
        )

    def validate(self):
        metrics = {"total": torch.zeros(1), "numel": torch.zeros(1)}
        for x, y in self.val_loader:
            metrics["total"] += (self.model(x) - y).abs().sum()
            metrics["numel"] += y.numel()
        for value in metrics.values():
            dist.all_reduce(value)
        return metrics["total"] / metrics["numel"]
