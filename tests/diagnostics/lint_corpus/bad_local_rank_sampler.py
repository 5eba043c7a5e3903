import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build(args, dataset):
    dist.init_process_group("nccl", init_method="env://")
    world_size = dist.get_world_size()
    sampler = DistributedSampler(  # expect: FS111
        dataset, num_replicas=world_size, rank=args.local_rank
    )
    return DataLoader(dataset, sampler=sampler, batch_size=args.batch_size)
