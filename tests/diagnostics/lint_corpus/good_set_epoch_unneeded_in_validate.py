# A validation builds a sharded loader per file and sums a loss over it: no set_epoch
# is needed, since an evaluation's result does not depend on the order it reads
# (each rank keeps its own sum: nothing padded is combined).
import torch
from torch.utils.data import DataLoader, DistributedSampler


def validate(model, files, rank, world_size):
    total = torch.zeros(())
    for path in files:
        graphs = torch.load(path)
        dataloader = DataLoader(
            graphs, batch_size=8, sampler=DistributedSampler(graphs, world_size, rank)
        )
        for batch in dataloader:
            total += model(batch).sum()
    return total
