import os

import torch

local_rank = int(os.environ.get("LOCAL_RANK", "0"))
visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
os.environ["NCCL_DEBUG"] = "INFO"
if torch.cuda.is_available():
    torch.cuda.set_device(local_rank)
