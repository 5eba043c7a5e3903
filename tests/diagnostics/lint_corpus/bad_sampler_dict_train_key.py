# The key names training: an unshuffled training sampler is still reported.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(args, model, optimizer, dataset):
    dist.init_process_group("nccl")
    sampler = {}
    sampler["train"] = DistributedSampler(dataset["train"], shuffle=False)  # expect: FS108
    loader = DataLoader(dataset["train"], sampler=sampler["train"], batch_size=8)
    for epoch in range(args.epochs):
        sampler["train"].set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
