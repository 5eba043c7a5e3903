# A nested function reads its enclosing function's sharded loader (a closure): that is
# the same variable, iterated every epoch without set_epoch.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset, model, epochs):
    dist.init_process_group("nccl")
    train_loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))

    def run_epoch():
        for batch in train_loader:
            model(batch)

    for _ in range(epochs):  # expect: FS101
        run_epoch()
