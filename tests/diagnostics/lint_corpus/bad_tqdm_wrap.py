import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from tqdm import tqdm


def train(model, dataset, optimizer, epochs, rank):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):  # expect: FS101
        pbar = tqdm(loader, disable=rank != 0)
        for batch in pbar:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
