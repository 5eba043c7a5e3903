"""Training through the wrapper: the loaders travel in a list, spread into ``fit``."""

import yaml
from core.runner import SegmentationRunner
from model import SegModel
from torch.utils.data import DataLoader


def run(config, net, train_set, val_set, test_set):
    train_loader = DataLoader(train_set, batch_size=2, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=2)  # expect: FS109
    runner = None
    runner = SegmentationRunner(config)
    runner.fit(SegModel(net), [train_loader, val_loader])
    test_loader = DataLoader(test_set, batch_size=2)  # expect: FS109
    runner.evaluate(SegModel(net), test_loader)


if __name__ == "__main__":
    with open("config.yaml") as f:
        run(yaml.safe_load(f), None, None, None, None)
