# The same per-process seed, and the shuffling loader draws from the global generator.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def build(cfg, dataset):
    accelerator = Accelerator()
    torch.manual_seed(cfg.seed + accelerator.process_index)  # expect: FS104
    return DataLoader(dataset, batch_size=8, shuffle=True)
