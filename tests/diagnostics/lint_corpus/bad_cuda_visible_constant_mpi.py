import os

import torch.distributed as dist
from mpi4py import MPI
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset, args):
    # the same GPUs for every process, and after torch is imported
    os.environ["CUDA_VISIBLE_DEVICES"] = args.gpus  # expect: FS106
    rank = MPI.COMM_WORLD.Get_rank()
    dist.init_process_group("nccl", rank=rank, world_size=MPI.COMM_WORLD.Get_size())
    return DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=16)
