"""One factory for every split: ``shuffle`` is its parameter, ``True`` by default, and
the training script's call passes nothing, so its loader shuffles the whole set in
every process."""

from torch.utils.data import DataLoader, Dataset


def make_loader(dataset: Dataset, batch_size: int, shuffle: bool = True) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)  # expect: FS103
