"""torchrun --nproc_per_node=2 train_dist.py: the helpers are imported first, so their
pin hides every GPU but 0 before the process picks its own."""

import os

import torch
import torch.distributed as dist
from helpers import get_dist_info

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group(backend="nccl", init_method="env://")

rank, world = get_dist_info()
