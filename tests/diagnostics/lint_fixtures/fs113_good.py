from torch.distributed.device_mesh import init_device_mesh
from torch.utils.data import DistributedSampler


def samplers(dataset):
    mesh = init_device_mesh("cuda", (2, 2), mesh_dim_names=("dp", "tp"))
    dp = mesh["dp"]
    return DistributedSampler(dataset, num_replicas=dp.size(), rank=dp.get_local_rank())
