"""Loaders for the labelled pool: the labelled loader is prepared first and wrapped in
``cycle()`` after, so accelerate shards it; the validation loader is prepared too."""

from itertools import cycle

from torch.utils.data import DataLoader, Dataset, Subset


class DataModule:
    def __init__(self, dataset: Dataset, batch_size: int) -> None:
        self.dataset = dataset
        self.batch_size = batch_size

    def setup(self, labelled: list[int], accelerator=None):
        self.train = self.create_dataloader(self.dataset, train=True)
        labelled_loader = self.create_dataloader(Subset(self.dataset, labelled), train=True)
        self.valid = self.create_dataloader(self.dataset, shuffle=False)
        if accelerator is not None:
            self.train, labelled_loader, self.valid = accelerator.prepare(
                self.train, labelled_loader, self.valid
            )
        self.labelled = cycle(labelled_loader)
        return self.train, self.labelled, self.valid

    def create_dataloader(self, dataset: Dataset, shuffle: bool = True, train: bool = False):
        size = self.batch_size if train else 250
        return DataLoader(dataset, batch_size=size, shuffle=shuffle)
