# mp.spawn workers that shard by hand: each cuts the index list with its rank, then
# shuffles its own chunk with a plain loader (a disjoint share, reordered).
import numpy as np
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Subset


def run(rank, dataset, args):
    dist.init_process_group("gloo", rank=rank, world_size=args.world)
    idx = dataset.get_idx_split()["train"]
    if args.world > 1:
        idx = idx.split(idx.size(0) // args.world)[rank]
    loader = DataLoader(dataset[idx], batch_size=256, shuffle=True)
    strided = DataLoader(Subset(dataset, range(rank, len(dataset), args.world)), shuffle=True)
    chunks = np.array_split(np.arange(len(dataset)), args.world)
    mine = Subset(dataset, chunks[rank])
    chunked = DataLoader(mine, batch_size=64, shuffle=True)
    for _ in range(args.epochs):
        for batch in loader:
            pass
    return strided, chunked


def main(dataset, args):
    mp.spawn(run, args=(dataset, args), nprocs=args.world)
