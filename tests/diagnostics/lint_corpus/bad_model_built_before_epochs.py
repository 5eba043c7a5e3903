# The same script with the model built first: the epoch loop runs, and its shuffling
# sampler is never given set_epoch. (The comprehension's `epoch` is its own scope's, not
# the loop's name read before it is bound.)
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def train(rank, world, args):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    milestones = [int(epoch) for epoch in args.milestones.split(",")]
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), 1e-4)
    data = [torch.randn(4) for _ in range(100)]
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
    for epoch in range(args.epochs):  # expect: FS101
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()
        if epoch in milestones:
            print(epoch)


if __name__ == "__main__":
    mp.spawn(train, args=(2, None), nprocs=2)
