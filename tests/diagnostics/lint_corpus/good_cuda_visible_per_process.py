import os

# one GPU per process, chosen from the launcher's local rank before torch is imported
if "SLURM_LOCALID" in os.environ:
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["SLURM_LOCALID"]
elif "OMPI_COMM_WORLD_LOCAL_RANK" in os.environ:
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["OMPI_COMM_WORLD_LOCAL_RANK"]
local_rank = int(os.environ.get("LOCAL_RANK", 0))
os.environ.setdefault("CUDA_VISIBLE_DEVICES", str(local_rank))

import torch.distributed as dist  # noqa: E402  (after the pinning, on purpose)
from mpi4py import MPI  # noqa: E402
from torch.utils.data import DataLoader, DistributedSampler  # noqa: E402

GPUS_PER_NODE = 8


def setup_dist():
    os.environ["CUDA_VISIBLE_DEVICES"] = f"{MPI.COMM_WORLD.Get_rank() % GPUS_PER_NODE}"
    dist.init_process_group("nccl")


def main(dataset):
    setup_dist()
    return DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=16)
