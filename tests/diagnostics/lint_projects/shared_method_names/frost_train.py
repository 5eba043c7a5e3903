import torch.distributed as dist
from runner.frost import FrostRunner
from torch.utils.data import DataLoader, DistributedSampler


def main(model, optimizer, train_set, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=128, sampler=sampler)
    runner = FrostRunner(model, optimizer, loader, epochs)
    runner.vertex_tar()
