# The data-parallel dimension of the mesh shards the data; TP peers read the same share.
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, parallelize_module
from torch.utils.data import DataLoader, DistributedSampler

import fairshard


def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
    parallelize_module(model, mesh["tp"], {"fc": ColwiseParallel()})
    dp = mesh["dp"]
    sampler = DistributedSampler(dataset, num_replicas=dp.size(), rank=dp.get_local_rank())
    other = fairshard.DistributedSampler(dataset, group=mesh["dp"])
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        other.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
