# The same data cut by the rank by hand, prepared with accelerate's defaults: accelerate
# splits the stream again, so each process keeps 1/W of its files.
import torch.distributed as dist
from accelerate import Accelerator
from torch.utils.data import DataLoader, IterableDataset


class Lines(IterableDataset):
    def __init__(self, files):
        self.files = files

    def __iter__(self):
        yield from self.files


def prepared_twice(files):
    accelerator = Accelerator()
    rank, world = dist.get_rank(), dist.get_world_size()
    mine = [f for i, f in enumerate(files) if i % world == rank]
    return accelerator.prepare(DataLoader(Lines(mine), batch_size=8))  # expect: FS115
