"""A training loop over a distributed sampler with no set_epoch, whose steps read a
constant the file defines: every epoch repeats the same order."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

EPOCHS = 10
GRADIENT_ACCUMULATE_EVERY = 4


def train(model, optimizer, train_set):
    dist.init_process_group("nccl")
    loader = DataLoader(train_set, batch_size=8, sampler=DistributedSampler(train_set))
    for _ in range(EPOCHS):  # expect: FS101
        for batch in loader:
            loss = model(batch).mean()
            loss.backward()
            optimizer.step()
            print(loss.item() * GRADIENT_ACCUMULATE_EVERY)
