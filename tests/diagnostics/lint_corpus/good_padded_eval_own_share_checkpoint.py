# Each rank averages its own validation losses and nothing is combined; rank 0
# saves its best weights and pictures of its outputs. No repeat enters a number.
import os

import numpy as np
import torch
import torch.distributed as dist
from PIL import Image
from torch.utils.data import DataLoader, DistributedSampler


def main(model, optimizer, dataset_train, dataset_test, result_path, epochs):
    dist.init_process_group("nccl")
    local_rank = dist.get_rank()
    train_sampler = DistributedSampler(dataset_train)
    test_sampler = DistributedSampler(dataset_test)
    train_loader = DataLoader(dataset_train, 16, sampler=train_sampler)
    test_loader = DataLoader(dataset_test, 16, sampler=test_sampler)
    best = 1e8
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for data in train_loader:
            optimizer.zero_grad()
            model(data).backward()
            optimizer.step()
        losses = []
        with torch.no_grad():
            for data in test_loader:
                losses.append(model(data).item())
        val_loss = np.array(losses).mean()
        if local_rank == 0 and val_loss < best:
            best = val_loss
            torch.save(model.state_dict(), os.path.join(result_path, "best_model.pth"))
            Image.fromarray(np.zeros((4, 4), np.uint8)).save(os.path.join(result_path, "val.png"))
