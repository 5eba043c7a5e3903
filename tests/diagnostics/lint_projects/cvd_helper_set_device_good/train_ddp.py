# The list is the same in every process; the helper it imports picks each process's own GPU.
import os

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from utils.ddp_utils import init_distributed_mode

os.environ["CUDA_VISIBLE_DEVICES"] = "0, 1, 2, 3"


def worker(rank, world, model):
    init_distributed_mode(rank, world)
    model = DDP(model.cuda(), device_ids=[rank])
    dist.barrier()
    return model


if __name__ == "__main__":
    mp.spawn(worker, args=(4, None), nprocs=4)
