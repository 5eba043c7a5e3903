# One list of GPUs for every process, set before CUDA starts; each spawned process then
# puts its model and tensors on cuda:{rank} and hands DDP device_ids=[rank], so every
# process computes on its own GPU of the list without calling set_device.
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", type=str, default="")
args = parser.parse_args()
os.environ["CUDA_VISIBLE_DEVICES"] = args.cuda


def run(rank, world_size, build):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    device = f"cuda:{rank}"
    model = DDP(build().to(device), device_ids=[rank])
    return model


if __name__ == "__main__":
    world = torch.cuda.device_count()
    mp.spawn(run, args=(world, torch.nn.Linear), nprocs=world)
