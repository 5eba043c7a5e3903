"""Data helpers: an endless iterator over a loader."""

from torch.utils.data import Dataset


class Prompts(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        return self.lines[index]


def cycle(dl):
    while True:
        yield from dl
