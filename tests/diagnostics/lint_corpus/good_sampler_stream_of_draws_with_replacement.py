# An endless sampler that draws with replacement and cuts rank::world from each draw:
# every rank's share is an i.i.d. sample whether or not the ranks agree, and a crop's
# start drawn per item is augmentation, not order.
import random

import torch.distributed as dist
from torch.utils.data import DataLoader, Sampler


class FragmentSampler(Sampler):
    def __init__(self, starts, weights, rank, world):
        self.starts, self.weights, self.rank, self.world = starts, weights, rank, world

    def __iter__(self):
        sequences = list(range(len(self.starts) - 1))
        while True:
            drawn = random.choices(sequences, cum_weights=self.weights, k=256 * self.world)
            for i in range(self.rank, len(drawn), self.world):
                begin, end = self.starts[drawn[i]], self.starts[drawn[i] + 1]
                crop = random.randint(begin, max(begin, end - 256))
                yield begin, end, crop, min(crop + 256, end)


def main(dataset, starts, weights):
    dist.init_process_group("nccl")
    sampler = FragmentSampler(starts, weights, dist.get_rank(), dist.get_world_size())
    return DataLoader(dataset, sampler=sampler, batch_size=32)
