import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.utils.data import DistributedSampler


def samplers(dataset):
    mesh = init_device_mesh("cuda", (2, 2), mesh_dim_names=("dp", "tp"))
    a = DistributedSampler(dataset)  # FS113
    b = DistributedSampler(
        dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank()
    )  # FS113
    return mesh, a, b
