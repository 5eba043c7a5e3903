# The rendezvous URL names this host and the free port is joined to it apart: every
# spawned process runs on this machine, so the spawn index is the global rank.
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def worker(local_rank, nprocs, args, dataset):
    dist.init_process_group(
        backend="nccl", init_method=args.dist_url, world_size=nprocs, rank=local_rank
    )
    sampler = DistributedSampler(dataset, shuffle=True, num_replicas=nprocs, rank=local_rank)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def main(args, dataset, nprocs, port):
    dist_url = "tcp://127.0.0.1"
    args.dist_url = f"{dist_url}:{port}"
    mp.spawn(worker, nprocs=nprocs, args=(nprocs, args, dataset))
