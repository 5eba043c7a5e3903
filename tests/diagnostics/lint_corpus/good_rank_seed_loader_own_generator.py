# Each process seeds the global generator differently (for its augmentations), but
# the shuffling loader draws its order from a generator of its own, seeded alike on
# every process: the global seed decides nothing of the order.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def build(cfg, dataset):
    accelerator = Accelerator()
    torch.manual_seed(cfg.seed + accelerator.process_index)
    order = torch.Generator().manual_seed(cfg.loader_seed)
    return DataLoader(dataset, batch_size=8, shuffle=True, generator=order)
