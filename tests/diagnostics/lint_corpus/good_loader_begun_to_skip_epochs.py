# A resumed run begins one batch of each epoch it has done, to move the sampler's
# randomness on, and stops at once; the training loop after it sets the epoch.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(dataset, model, epochs_trained, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for _epoch in range(epochs_trained):
        for _ in loader:
            break
    for epoch in range(epochs_trained, epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch)
