# One list of GPUs for every process and a device read from the command line: every
# process names the same GPU (cuda:{args.device_id}), so all compute on one GPU of the list.
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", type=str, default="")
parser.add_argument("--device_id", type=int, default=0)
args = parser.parse_args()
os.environ["CUDA_VISIBLE_DEVICES"] = args.cuda  # expect: FS106


def run(rank, world_size, build):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    return build().to(f"cuda:{args.device_id}")


if __name__ == "__main__":
    world = torch.cuda.device_count()
    mp.spawn(run, args=(world, torch.nn.Linear), nprocs=world)
