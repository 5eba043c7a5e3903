import torch.distributed as dist
from torch.utils.data import DataLoader

from fairshard import DistributedSampler


def main(dataset, evaluation):
    dist.init_process_group(backend="gloo")
    loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
    held_out = DataLoader(evaluation, batch_size=32, shuffle=False)
    return loader, held_out
