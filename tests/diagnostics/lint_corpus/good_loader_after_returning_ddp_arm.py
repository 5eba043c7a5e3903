"""``if self.ddp: return`` a sharded loader; what follows is the one-process loader."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Data:
    def __init__(self, cfg):
        self.cfg = cfg
        self.ddp = cfg.get("ddp", False)

    def train_dataloader(self, dataset):
        if self.ddp:
            return DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))
        return DataLoader(dataset, batch_size=8, shuffle=True)


def run(cfg, dataset):
    if cfg.get("ddp"):
        dist.init_process_group("nccl")
    return Data(cfg).train_dataloader(dataset)
