# FSDP2's hybrid sharding: an unnamed 2-D mesh handed only to fully_shard. Both
# dimensions split the data, so the global world is the sampler's.
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    mesh = init_device_mesh("cuda", (2, 4))
    for block in model.layers:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
