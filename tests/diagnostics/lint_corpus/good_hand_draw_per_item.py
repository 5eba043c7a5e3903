# Each item draws its own time offsets (random.sample) and slices them into
# input frames and target frames: a draw per item in the dataset's
# __getitem__ path, not a split of the dataset between ranks.
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Frames(Dataset):
    def __init__(self, frames, n_in):
        self.frames = frames
        self.n_in = n_in

    def __len__(self):
        return len(self.frames) - 8

    def _get_index_data(self, idx):
        offsets = random.sample(range(8), self.n_in + 1)
        inputs = offsets[: self.n_in]
        target = offsets[self.n_in :]
        return (
            torch.stack([self.frames[idx + o] for o in inputs]),
            torch.stack([self.frames[idx + o] for o in target]),
        )

    def __getitem__(self, idx):
        return self._get_index_data(idx)


def loader(frames):
    dist.init_process_group("gloo")
    data = Frames(frames, 3)
    return DataLoader(data, sampler=DistributedSampler(data), batch_size=4)
