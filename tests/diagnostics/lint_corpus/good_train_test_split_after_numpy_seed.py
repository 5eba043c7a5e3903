# NumPy's global state is seeded alike on every rank before the datasets split draws from
# it: every rank holds the same train and test parts.
import numpy as np
import torch
import torch.distributed as dist
from datasets import load_dataset
from torch.utils.data import DataLoader, DistributedSampler

torch.manual_seed(1337)
np.random.seed(1337)
parts = load_dataset("text", data_files="corpus.txt")["train"].train_test_split(test_size=0.01)


def main(model, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(parts["train"], shuffle=True)
    loader = DataLoader(parts["train"], sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
