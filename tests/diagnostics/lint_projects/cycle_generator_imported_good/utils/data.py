"""Data helpers: an endless iterator over a loader that advances its sampler's epoch."""

from torch.utils.data import Dataset


class Prompts(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        return self.lines[index]


def cycle(dl):
    epoch = 0
    while True:
        dl.sampler.set_epoch(epoch)
        yield from dl
        epoch += 1
