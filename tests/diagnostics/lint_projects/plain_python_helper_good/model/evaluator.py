"""An accelerate evaluation helper whose only importer runs by plain python: one process."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


class QAEvaluator:
    def __init__(self, model):
        self.accelerator = Accelerator()
        self.model = model

    def validation(self, model, eval_dataloader):
        scores = []
        for batch in eval_dataloader:
            with torch.no_grad():
                scores.append(self.accelerator.gather(model(batch)).cpu())
        return torch.cat(scores)

    def score(self, dataset):
        data_loader = DataLoader(dataset, batch_size=8)
        self.model, data_loader = self.accelerator.prepare(self.model, data_loader)
        return self.validation(self.model, data_loader).mean()
