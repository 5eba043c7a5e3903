"""One factory for every split: the training call gives a distributed sampler and no
shuffle; only the evaluation's call passes ``shuffle=True`` (a random look at the
validation set, read whole by every process on purpose)."""

from torch.utils.data import DataLoader, Dataset, Sampler


def make_loader(
    dataset: Dataset, batch_size: int, shuffle: bool = False, sampler: Sampler | None = None
) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, sampler=sampler)
