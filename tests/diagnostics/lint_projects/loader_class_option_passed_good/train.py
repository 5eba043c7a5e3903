import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from data.loaders import SegmentationLoader
from trainers.base import Trainer


def main(rank, args, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_loader = SegmentationLoader(
        args.root, batch_size=8, split="training", parallel_type=args.parallel
    )
    Trainer(torch.nn.Identity(), train_loader, epochs=30).train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data")
    parser.add_argument("-p", "--parallel", default=None, type=str)
    args = parser.parse_args()
    world_size = torch.cuda.device_count()
    mp.spawn(main, args=(args, world_size), nprocs=world_size)
