# One builder for every split; which split it serves is in the config it is given.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def get_sampler(dataset, dataset_config):
    if not dist.is_initialized():
        return None
    if dataset_config["STATEFUL"]:
        return None
    return DistributedSampler(dataset)  # expect: FS109


def build_dataloader(dataset, dataset_config):
    sampler = get_sampler(dataset, dataset_config)
    return DataLoader(dataset, batch_size=dataset_config["BATCH"], sampler=sampler)
