# The same pin in a script that reads the launcher's world size: every process of a
# torchrun launch sees GPU 0 alone.
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # expect: FS106

import torch.distributed as dist
from torch.utils.data import DataLoader


def main(model, prompts):
    dist.init_process_group("nccl", world_size=int(os.environ["WORLD_SIZE"]))
    return [model(batch) for batch in DataLoader(prompts, batch_size=4)]
