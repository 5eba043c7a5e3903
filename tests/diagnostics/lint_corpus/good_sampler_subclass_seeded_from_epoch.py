# The same DistributedSampler subclass seeded from (seed, epoch): every rank draws the same
# permutation and takes its own stride of it.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class ShuffleSampler(DistributedSampler):
    def __init__(self, dataset, world_size, rank, seed=0):
        super().__init__(dataset, num_replicas=world_size, rank=rank, seed=seed)

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        indices = torch.randperm(len(self.dataset), generator=g)
        return iter(indices[self.rank : self.total_size : self.num_replicas].tolist())


def main(dataset, epochs):
    dist.init_process_group("nccl")
    sampler = ShuffleSampler(dataset, dist.get_world_size(), dist.get_rank())
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        yield from loader
