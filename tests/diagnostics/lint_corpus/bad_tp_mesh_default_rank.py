# FSDP2 + tensor parallel on a 2-D mesh; the sampler shards by the global world.
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
    sampler = DistributedSampler(dataset, shuffle=True)  # expect: FS113
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
    return mesh
