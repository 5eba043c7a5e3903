# A training module with a DDP trainer and a one-GPU path beside it: the shuffling
# loader of train_single_gpu is read by one process only.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, train_set, batch_size):
        self.model = DDP(model)
        self.sampler = DistributedSampler(train_set)
        self.loader = DataLoader(train_set, batch_size=batch_size, sampler=self.sampler)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for batch in self.loader:
                self.model(batch).sum().backward()


def train_single_gpu(model, train_set, epochs):
    loader = DataLoader(train_set, batch_size=32, shuffle=True)
    for epoch in range(epochs):
        for batch in loader:
            model(batch).sum().backward()


def train_ddp(model, train_set, epochs):
    dist.init_process_group("nccl")
    Trainer(model, train_set, 32).fit(epochs)
    torch.cuda.synchronize()
