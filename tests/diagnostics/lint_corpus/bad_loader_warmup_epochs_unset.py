# Warm-up epochs read the whole loader before the training loop, never setting the
# epoch: each warm-up epoch repeats the same order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(dataset, model, warmup_epochs, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for _epoch in range(warmup_epochs):  # expect: FS101
        for batch in loader:
            model.warm_up(batch)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch)
