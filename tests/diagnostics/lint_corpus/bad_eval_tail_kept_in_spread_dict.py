# The shared dict keeps the last partial batch: the padded repeats are
# scored and summed over the ranks.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, test_data, rank, world):
    sampler = DistributedSampler(test_data, world, rank, shuffle=False)  # expect: FS109
    cuda_kw = {"num_workers": 2, "pin_memory": True, "shuffle": False, "drop_last": False}
    config = {"batch_size": 1000, "sampler": sampler, **cuda_kw}
    loader = DataLoader(test_data, **config)
    hits = torch.zeros(2)
    for x, y in loader:
        hits += torch.tensor([(model(x).argmax(-1) == y).sum(), len(y)])
    dist.all_reduce(hits)
    return hits[0] / hits[1]
