# The split is drawn once, in the __main__ block, and handed to every spawned rank: the
# children start as __mp_main__ and never draw again, so all ranks hold the same parts.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, DistributedSampler


def main(rank, world, train_rows, test_rows):
    dist.init_process_group("gloo", rank=rank, world_size=world)
    sampler = DistributedSampler(train_rows)
    loader = DataLoader(train_rows, batch_size=8, sampler=sampler)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    rows = [torch.randn(4) for _ in range(100)]
    train_rows, test_rows = train_test_split(rows, test_size=0.1)
    mp.spawn(main, args=(4, train_rows, test_rows), nprocs=4)
