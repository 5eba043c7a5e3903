# The function mp.spawn runs, train(), reads the loader once (no epochs), and
# calls model.train() inside its loop over the batches: nn.Module.train, not
# this file's train(), so the loop repeats no pass.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def train(rank, world_size, dataset, model):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=8)
    for _, batch in enumerate(loader):
        model.train()
        for _step in range(4):  # edit steps within one batch
            model(batch).sum().backward()


if __name__ == "__main__":
    mp.spawn(train, args=(2, torch.randn(64, 4), torch.nn.Linear(4, 1)), nprocs=2)
