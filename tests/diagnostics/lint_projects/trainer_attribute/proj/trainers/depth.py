from .base import BaseTrainer


class Trainer(BaseTrainer):
    def __init__(self, config, model, train_loader, test_loader=None):
        super().__init__(config, model, train_loader, test_loader=test_loader)
