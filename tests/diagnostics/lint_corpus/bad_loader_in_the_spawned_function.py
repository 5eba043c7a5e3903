# The spawned function builds the shuffling loader over the whole data, with no
# sampler: every rank reads all of it in its own order.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader


def dist_train(rank, world_size, model, items):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    for batch in DataLoader(items, batch_size=8, shuffle=True):  # expect: FS103
        model(batch).sum().backward()


if __name__ == "__main__":
    items = torch.randn(256, 4)
    model = torch.nn.Linear(4, 1)
    world_size = torch.cuda.device_count()
    mp.spawn(dist_train, args=(world_size, model, items), nprocs=world_size, join=True)
