# Pruning on: the loop runs pass after pass over the shuffling distributed
# sampler, and nothing sets its epoch.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def prune(model, dataset):
    dist.init_process_group("gloo")
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=8)
    stop_prune = False
    print("warning: stopping pruning")
    while not stop_prune:  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()
        stop_prune = model.pruned()
