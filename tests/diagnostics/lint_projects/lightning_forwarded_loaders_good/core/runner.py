"""A wrapper that builds the Lightning trainer and hands the caller's loaders on to it."""

from pytorch_lightning import Trainer


class SegmentationRunner:
    def __init__(self, config):
        self.config = config

    def fit(self, model, data_module):
        trainer = Trainer(max_epochs=self.config["epochs"], devices=1)
        trainer.fit(model, *data_module)
        return trainer

    def evaluate(self, model, test_loader):
        trainer = Trainer(devices=1)
        trainer.test(model, dataloaders=test_loader)
