# A torchmetrics metric of the project's own: summed over the ranks on compute().
import torch
from torchmetrics import Metric


class NLL(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("total", default=torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("count", default=torch.tensor(0.0), dist_reduce_fx="sum")

    def update(self, values):
        self.total += values.sum()
        self.count += values.numel()

    def compute(self):
        return self.total / self.count
