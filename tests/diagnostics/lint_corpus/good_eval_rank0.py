import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


def evaluate(model, test_dataset):
    if dist.get_rank() != 0:
        return None
    loader = DataLoader(test_dataset, batch_size=256, shuffle=False)
    with torch.no_grad():
        hits = sum((model(x).argmax(1) == y).sum().item() for x, y in loader)
    return hits / len(test_dataset)
