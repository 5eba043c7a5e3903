import os

import torch
import torch.distributed as dist


def setup():
    world_size = int(os.environ["WORLD_SIZE"])
    dist.init_process_group(  # expect: FS111
        "nccl", rank=int(os.environ["LOCAL_RANK"]), world_size=world_size
    )
    torch.utils.data.DataLoader(range(10))
