import torch
from torch.utils.data import DataLoader


def get_loader(dataset: torch.utils.data.Dataset, batch_size: int) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size)
