# The tree is the package: it imports its own modules as ``pkgself.engine``.
import torch.distributed as dist
from pkgself.engine import evaluate
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset_val):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset_val, shuffle=False)  # expect: FS109
    loader = DataLoader(dataset_val, batch_size=64, sampler=sampler)
    return evaluate(loader, model)
