"""The distributed script imports the one-GPU evaluation and runs it on every rank."""

import torch.distributed as dist
from linear_eval import main as linear_eval


def linear_eval_ddp(args, dataset, classifier):
    print(args, dataset, classifier)


def main(args, dataset, classifier):
    dist.init_process_group("nccl")
    linear_eval(args, dataset, classifier)
