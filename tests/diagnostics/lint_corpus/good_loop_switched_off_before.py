# Pruning switched off by hand: the flag is set just before its loop, so
# the loop over the shuffling distributed sampler never runs.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def prune(model, dataset):
    dist.init_process_group("gloo")
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=8)
    stop_prune = True
    print("warning: stopping pruning")
    while not stop_prune:
        for batch in loader:
            model(batch).sum().backward()
        stop_prune = model.pruned()
