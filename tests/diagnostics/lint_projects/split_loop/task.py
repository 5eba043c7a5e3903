# Loaders are built in a loop over the splits, and the test split is one of them.
import torch.distributed as dist
from data import build_dataloader


class Task:
    def __init__(self, config, datasets):
        self.config = config
        self.datasets = datasets
        self.available_splits = []
        if config.TEST_MODEL:
            self.available_splits.append("TEST")
        if not config.TEST_ONLY:
            self.available_splits.append("TRAIN")

    def build_dataloaders(self):
        return {
            split.lower(): build_dataloader(self.datasets[split], self.config["DATA"][split])
            for split in self.available_splits
        }

    def test(self, model, loader):
        correct = sum(model(batch).sum() for batch in loader)
        dist.all_reduce(correct)  # the ranks' counts combined, repeats included
        return correct
