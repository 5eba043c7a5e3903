# The same stream, but each pass shuffles the sequences from the module-level RNG and
# cuts rank::world from that order: ranks disagree on it, so their shares overlap.
import random

import torch.distributed as dist
from torch.utils.data import DataLoader, Sampler


class FragmentSampler(Sampler):
    def __init__(self, starts, rank, world):
        self.starts, self.rank, self.world = starts, rank, world

    def __iter__(self):
        sequences = list(range(len(self.starts) - 1))
        while True:
            random.shuffle(sequences)  # expect: FS105
            for i in range(self.rank, len(sequences), self.world):
                begin, end = self.starts[sequences[i]], self.starts[sequences[i] + 1]
                crop = random.randint(begin, max(begin, end - 256))
                yield begin, end, crop, min(crop + 256, end)


def main(dataset, starts):
    dist.init_process_group("nccl")
    sampler = FragmentSampler(starts, dist.get_rank(), dist.get_world_size())
    return DataLoader(dataset, sampler=sampler, batch_size=32)
