# Intervals go to the least-loaded rank (sorted, no randomness); each rank then
# shuffles only the intervals it owns, so the global generator cannot make
# the shares overlap.
import torch
import torch.distributed as dist
from torch.utils.data import Sampler


class StitchingSampler(Sampler):
    def __init__(self, sizes):
        self.sizes = sizes
        self.rank, self.num_replicas = dist.get_rank(), dist.get_world_size()
        self.indices = self._generate()

    def _generate(self):
        order = torch.argsort(torch.tensor(self.sizes), descending=True).tolist()
        loads = [0] * self.num_replicas
        mine = []
        for index in order:
            target = min(range(self.num_replicas), key=lambda r: loads[r])
            if target == self.rank:
                mine.append(index)
            loads[target] += self.sizes[index]
        return [mine[i] for i in torch.randperm(len(mine))]

    def __iter__(self):
        return iter(self.indices)

    def __len__(self):
        return len(self.indices)
