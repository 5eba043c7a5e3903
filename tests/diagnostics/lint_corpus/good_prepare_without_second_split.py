# Data cut by the rank by hand, prepared with accelerate's opt-out of the second split of
# an iterable dataset (DataLoaderConfiguration(shard_iterable_dataset=False)): split once.
import torch.distributed as dist
from accelerate import Accelerator
from accelerate.utils import DataLoaderConfiguration
from torch.utils.data import DataLoader, IterableDataset


class Lines(IterableDataset):
    def __init__(self, files):
        self.files = files

    def __iter__(self):
        yield from self.files


def prepared_without_second_split(files):
    config = DataLoaderConfiguration(shard_iterable_dataset=False)
    accelerator = Accelerator(dataloader_config=config)
    rank, world = dist.get_rank(), dist.get_world_size()
    mine = [f for i, f in enumerate(files) if i % world == rank]
    return accelerator.prepare(DataLoader(Lines(mine), batch_size=8))
