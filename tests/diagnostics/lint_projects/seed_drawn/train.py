# A "randomized seed" option: each process draws its own, and it reaches the sampler.
import random

import torch.distributed as dist
from data import get_loaders


def main(args, train_set, model):
    dist.init_process_group("nccl")
    if args.randomized_seed:
        args.seed = random.randint(0, 10000)
    loader = get_loaders(train_set, 32, args.seed)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
