import torch
import torch.distributed as dist


def init_distributed_mode(rank, world):
    torch.cuda.set_device(rank)  # each process picks its own GPU of the list
    dist.init_process_group("nccl", rank=rank, world_size=world)
