# Every spawned rank stops at the optimizer: `model` is local to train() (assigned two lines
# below) and read before it is bound, an UnboundLocalError. The epoch loop never runs.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def train(rank, world, args):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    optimizer = torch.optim.SGD(model.parameters(), 1e-4)  # noqa: F821 (the defect shown)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
    data = [torch.randn(4) for _ in range(100)]
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
    for epoch in range(args.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()


if __name__ == "__main__":
    mp.spawn(train, args=(2, None), nprocs=2)
