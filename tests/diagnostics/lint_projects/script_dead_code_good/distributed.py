# The script's entry runs an example; its DDP trainer is called by nothing.
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def train_per_proc(rank, world, model, dataset, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        for x, y in loader:
            model(x, y).backward()


def train_distributed(model, dataset, epochs):
    mp.spawn(train_per_proc, args=(2, model, dataset, epochs), nprocs=2)


def example():
    print("world size", dist.is_available())


if __name__ == "__main__":
    example()
