"""The distributed script imports the one-GPU evaluation but calls only its own."""

import torch.distributed as dist
from linear_eval import main as linear_eval  # noqa: F401 (left from the one-GPU script)


def linear_eval_ddp(args, dataset, classifier):
    print(args, dataset, classifier)


def main(args, dataset, classifier):
    dist.init_process_group("nccl")
    linear_eval_ddp(args, dataset, classifier)
