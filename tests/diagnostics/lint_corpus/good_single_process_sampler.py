import random

from torch.utils.data import DataLoader, Sampler


class ShuffledChunks(Sampler):
    def __init__(self, n, chunk):
        self.n = n
        self.chunk = chunk

    def __iter__(self):
        starts = list(range(0, self.n, self.chunk))
        random.shuffle(starts)
        for start in starts:
            yield from range(start, min(start + self.chunk, self.n))

    def __len__(self):
        return self.n


def loader(dataset):
    return DataLoader(dataset, sampler=ShuffledChunks(len(dataset), 64), batch_size=16)
