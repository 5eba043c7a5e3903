import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


def main(args, model, dataset, optimizer):
    if args.distributed:
        dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset) if args.distributed else RandomSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=4)
    for epoch in range(args.epochs):  # expect: FS101
        for images, targets in loader:
            loss = model(images, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
