# The drawn seed is broadcast from rank 0 before it reaches the sampler.
import random

import torch.distributed as dist
from data import get_loaders


def main(args, train_set, model):
    dist.init_process_group("nccl")
    if args.randomized_seed:
        args.seed = random.randint(0, 10000)
        box = [args.seed]
        dist.broadcast_object_list(box, src=0)
        args.seed = box[0]
    loader = get_loaders(train_set, 32, args.seed)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
