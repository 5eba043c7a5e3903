"""Loaders for the labelled pool: the labelled loader is wrapped in ``cycle()`` before
``accelerator.prepare``, which hands a generator back as it came, so every process
reads the whole labelled pool."""

from itertools import cycle

from torch.utils.data import DataLoader, Dataset, Subset


class DataModule:
    def __init__(self, dataset: Dataset, batch_size: int) -> None:
        self.dataset = dataset
        self.batch_size = batch_size

    def setup(self, labelled: list[int], accelerator=None):
        self.train = self.create_dataloader(self.dataset, train=True)
        self.labelled = cycle(self.create_dataloader(Subset(self.dataset, labelled), train=True))
        self.valid = self.create_dataloader(self.dataset, shuffle=False)
        if accelerator is not None:
            self.train, self.labelled, self.valid = accelerator.prepare(
                self.train, self.labelled, self.valid
            )
        return self.train, self.labelled, self.valid

    def create_dataloader(self, dataset: Dataset, shuffle: bool = True, train: bool = False):
        size = self.batch_size if train else 250
        return DataLoader(dataset, batch_size=size, shuffle=shuffle)  # expect: FS103
