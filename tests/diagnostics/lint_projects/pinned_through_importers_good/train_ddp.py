"""Starts the group for the spawned process and hands its index to the solver."""

import torch
import torch.distributed as dist
from solver_ddp import Solver


def train(gpu):
    dist.init_process_group("nccl", rank=gpu, world_size=torch.cuda.device_count())
    Solver(gpu).fit()
