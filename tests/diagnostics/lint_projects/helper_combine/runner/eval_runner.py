import torch
from torch.utils.data import DataLoader


class EvalRunner:
    def __init__(self, model, test_loader: DataLoader, device):
        self.model, self.device = model, device
        self.test_loader = test_loader

    def clean_eval(self):
        acc_sum, acc_count = 0, 0
        with torch.no_grad():
            for images, labels in self.test_loader:
                acc_sum += (self.model(images).argmax(1) == labels).sum().item()
                acc_count += len(labels)
        return acc_sum, acc_count
