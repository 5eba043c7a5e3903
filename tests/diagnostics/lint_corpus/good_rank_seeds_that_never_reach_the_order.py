# Per-rank seeds that never decide a loader's order: Python's and NumPy's generators
# (PyTorch's samplers draw from torch's), a torch seed undone by a shared reseed before
# the first pass, and a loader accelerate prepares (it syncs the sampler's generator).
import random

import numpy as np
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(args, train_dataset, model, optimizer):
    accelerator = Accelerator()
    local_seed = args.seed + accelerator.process_index
    random.seed(local_seed)
    np.random.seed(local_seed)
    torch.manual_seed(local_seed)
    loader = DataLoader(train_dataset, batch_size=8, shuffle=True)
    torch.manual_seed(args.seed)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    torch.manual_seed(local_seed)
    for _ in range(args.epochs):
        for batch in loader:
            model(batch).sum().backward()


def reseeded(args, dataset, rank):
    torch.manual_seed(args.seed + rank)
    loader = DataLoader(dataset, batch_size=8, shuffle=True)
    torch.manual_seed(args.seed)
    for batch in loader:
        pass


def prepared(args, dataset):
    accelerator = Accelerator()
    torch.manual_seed(args.seed + accelerator.process_index)
    loader = accelerator.prepare(DataLoader(dataset, batch_size=8, shuffle=True))
    for batch in loader:
        pass
