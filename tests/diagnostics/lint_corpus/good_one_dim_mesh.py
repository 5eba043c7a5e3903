# A 1-D mesh is data parallel only: the global world is the data-parallel world.
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    mesh = init_device_mesh("cuda", (8,))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
    return mesh
