# The split is drawn at the top level, outside the __main__ guard: every spawned child runs
# the module again as __mp_main__ and draws its own split, so the ranks' parts overlap.
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


rows = [torch.randn(4) for _ in range(100)]
train_rows, test_rows = train_test_split(rows, test_size=0.1)  # expect: FS110

if __name__ == "__main__":
    mp.spawn(main, args=(4, train_rows, test_rows), nprocs=4)
