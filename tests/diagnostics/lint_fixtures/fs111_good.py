import os

import torch
import torch.distributed as dist
from torch.utils.data import DistributedSampler

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
rank = int(os.environ["RANK"])
dist.init_process_group("nccl", rank=rank, world_size=int(os.environ["WORLD_SIZE"]))


def samplers(dataset):
    node_world = int(os.environ["LOCAL_WORLD_SIZE"])
    one_node = DistributedSampler(dataset, num_replicas=node_world, rank=local_rank)
    return DistributedSampler(dataset, rank=dist.get_rank()), one_node


def device_list_sampler(dataset, cfg):
    # one machine's GPU ids, indexed by the local rank: the sampler's world is this node's
    gpu_id = cfg.gpus[local_rank]
    return DistributedSampler(dataset, num_replicas=len(cfg.gpus), rank=local_rank), gpu_id
