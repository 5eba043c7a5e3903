# The rank picks the device and nothing else: every process shuffles the whole set.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader


def run(rank, dataset, args):
    dist.init_process_group("gloo", rank=rank, world_size=args.world)
    idx = dataset.get_idx_split()["train"]
    torch.cuda.set_device(rank)
    loader = DataLoader(dataset[idx], batch_size=256, shuffle=True)  # expect: FS103
    for _ in range(args.epochs):
        for batch in loader:
            batch.to(rank)


def main(dataset, args):
    mp.spawn(run, args=(dataset, args), nprocs=args.world)
