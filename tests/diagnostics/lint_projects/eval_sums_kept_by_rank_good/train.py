# The same per-rank sums, collected in a list that no collective reads: rank 0 reports
# its own share, which holds no padded repeat.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler
from utils.evaluation import evaluate


def main(rank, world):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    val_set = [(torch.randn(4), torch.randn(1)) for _ in range(1338)]
    val_sampler = DistributedSampler(val_set, num_replicas=world, rank=rank)
    val_loader = DataLoader(val_set, 1, shuffle=False, sampler=val_sampler)
    model = torch.nn.Linear(4, 1)
    sums = evaluate(model, val_loader)
    names, values = [], []
    for k in sorted(sums):
        names.append(k)
        values.append(sums[k].float())
    values = torch.stack(values)
    if rank == 0:
        print(dict(zip(names, (values / len(val_sampler)).tolist())))


if __name__ == "__main__":
    mp.spawn(main, args=(torch.cuda.device_count(),), nprocs=torch.cuda.device_count())
