# The __main__ block builds a shuffling loader to warm the model up, then spawns the
# ranks: the block runs once, in the parent process, and only the spawned function
# runs on every rank (where each reads its own slice).
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader


def dist_train(rank, world_size, model, items):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    share = items[rank::world_size]
    for batch in DataLoader(share, batch_size=8, shuffle=True):
        model(batch).sum().backward()


if __name__ == "__main__":
    items = torch.randn(256, 4)
    model = torch.nn.Linear(4, 1)
    warm_up = DataLoader(items[:32], batch_size=8, shuffle=True)
    with torch.no_grad():
        for batch in warm_up:
            model(batch)
    world_size = torch.cuda.device_count()
    mp.spawn(dist_train, args=(world_size, model, items), nprocs=world_size, join=True)
