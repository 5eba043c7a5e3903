# The launch script names this file through a variable and starts it with
# torchrun on two processes: the padded test shares are gathered and scored.
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, test_set):
    is_dist = dist.is_available() and dist.is_initialized()
    world_size = dist.get_world_size() if is_dist else 1
    sampler = DistributedSampler(test_set, shuffle=False) if is_dist else None  # expect: FS109
    correct = torch.zeros(2)
    for x, y in DataLoader(test_set, batch_size=16, sampler=sampler):
        correct += torch.tensor([float((model(x).argmax(1) == y).sum()), float(len(y))])
    if world_size > 1:
        dist.all_reduce(correct)
    return (correct[0] / correct[1]).item()


if __name__ == "__main__":
    if "LOCAL_RANK" in os.environ:
        dist.init_process_group("nccl")
    print(evaluate(torch.nn.Identity(), torch.load("test_set.pt")))
