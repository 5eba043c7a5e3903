# An unnamed 2-D mesh: one dimension goes to FSDP, the other is sliced out for the
# tensor-parallel plan; the sampler shards by the global world, so tensor-parallel peers
# read different samples.
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, epochs, apply_tp):
    dist.init_process_group("nccl")
    mesh = init_device_mesh("cuda", (2, 4))
    apply_tp(model, mesh.get_group(1))
    fully_shard(model, mesh=mesh)
    sampler = DistributedSampler(dataset, shuffle=True)  # expect: FS113
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
