# The evaluation comes through a star import of a package that re-exports it.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from util import *  # noqa: F403


def main(model, dataset_val):
    dist.init_process_group("nccl")
    sampler_val = DistributedSampler(dataset_val, shuffle=False)  # expect: FS109
    data_loader_val = DataLoader(dataset_val, batch_size=64, sampler=sampler_val)
    return evaluate(data_loader_val, model)  # noqa: F405
