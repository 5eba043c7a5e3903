import torch.distributed as dist
from experiment import JointSpar
from torch.utils.data import DataLoader, DistributedSampler


def run(dataset, model, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    spar = JointSpar(model)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            spar.step(model(batch))
