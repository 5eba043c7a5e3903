# Hybrid-sharded data parallelism: a 2-D mesh whose dimensions both split the data
# (replicas of shards), handed to FSDP with HYBRID_SHARD. Every rank trains on its own
# batch, so the sampler sharding by the global world is right.
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import ShardingStrategy
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, epochs, fsdp_size):
    dist.init_process_group("nccl")
    world_size = dist.get_world_size()
    mesh_2d = init_device_mesh(
        "cuda", (world_size // fsdp_size, fsdp_size), mesh_dim_names=["dp", "fsdp"]
    )
    model = FSDP(model, device_mesh=mesh_2d, sharding_strategy=ShardingStrategy.HYBRID_SHARD)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
