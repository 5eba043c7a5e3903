# One machine's GPU ids in the config, indexed by the local rank to pick the
# device; the samplers split by that list's length: a node-local world.
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, cfg, trainset, testset):
        self.cfg = cfg
        self.rank = int(os.environ["LOCAL_RANK"]) if "LOCAL_RANK" in os.environ else 0
        torch.cuda.set_device(cfg.gpus[self.rank])
        self.ddp = len(cfg.gpus) > 1
        if self.ddp:
            dist.init_process_group(backend="nccl", init_method="env://")
        self.train_sampler = DistributedSampler(
            trainset, num_replicas=len(cfg.gpus), rank=self.rank, shuffle=True
        )
        self.trainloader = DataLoader(trainset, batch_size=8, sampler=self.train_sampler)

    def fit(self, model, optimizer):
        for epoch in range(self.cfg.epochs):
            self.train_sampler.set_epoch(epoch)
            for batch in self.trainloader:
                optimizer.zero_grad()
                model(batch).backward()
                optimizer.step()
