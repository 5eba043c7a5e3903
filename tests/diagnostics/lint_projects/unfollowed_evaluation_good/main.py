# The padded loader goes to an installed package's evaluation, which the linter does not
# read: nothing in the tree shows that the ranks' results are combined, so no finding.
import torch.distributed as dist
from evalkit import run_evaluation
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset_val):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset_val, shuffle=False)
    loader = DataLoader(dataset_val, batch_size=64, sampler=sampler)
    return run_evaluation(model, loader)
