"""``local_rank = 0`` under a list of two GPUs: every process pins the first one."""

import os

import torch
import torch.distributed as dist

os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"  # expect: FS106
device_ids = [0, 1]
local_rank = 0

dist.init_process_group("nccl")
device = torch.device(f"cuda:{device_ids[local_rank]}")
torch.cuda.set_device(device)
