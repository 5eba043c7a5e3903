# The evaluation helper (another module) returns per-rank sums; the caller collects them in a
# list, stacks it and reduces it to rank 0, which divides by the set's length: the padded
# repeats are counted.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler
from utils.evaluation import evaluate


def main(rank, world):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    val_set = [(torch.randn(4), torch.randn(1)) for _ in range(1338)]
    val_sampler = DistributedSampler(val_set, num_replicas=world, rank=rank)  # expect: FS109
    val_loader = DataLoader(val_set, 1, shuffle=False, sampler=val_sampler)
    model = torch.nn.Linear(4, 1)
    sums = evaluate(model, val_loader)
    names, values = [], []
    for k in sorted(sums):
        names.append(k)
        values.append(sums[k].float())
    values = torch.stack(values)
    dist.reduce(values, dst=0, op=dist.ReduceOp.SUM)
    if rank == 0:
        print(dict(zip(names, (values / len(val_set)).tolist())))


if __name__ == "__main__":
    mp.spawn(main, args=(torch.cuda.device_count(),), nprocs=torch.cuda.device_count())
