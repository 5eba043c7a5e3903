"""The same list, with the rank read from the launcher: each process pins its own GPU."""

import os

import torch
import torch.distributed as dist

os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
device_ids = [0, 1]
local_rank = int(os.environ["LOCAL_RANK"])

dist.init_process_group("nccl")
device = torch.device(f"cuda:{device_ids[local_rank]}")
torch.cuda.set_device(device)
