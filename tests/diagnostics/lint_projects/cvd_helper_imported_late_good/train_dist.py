"""torchrun --nproc_per_node=2 train_dist.py: each process picks its GPU, then imports
the helpers, whose pin comes after CUDA started and changes nothing."""

import os

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group(backend="nccl", init_method="env://")

from helpers import get_dist_info  # noqa: E402

rank, world = get_dist_info()
