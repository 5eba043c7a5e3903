# The same factory; its trainer sets the epoch, and the validation and test
# scores are reported per rank, combined with nothing.
from torch.utils.data import DataLoader, DistributedSampler

from src.sets import ProfileSet


class LoadDataset:
    def __init__(self, paths):
        self.paths = paths

    def get_dataloader(self, split, batch_size=8, device=0, n_gpu=0):
        dataset = ProfileSet(self.paths, split)
        if n_gpu > 1:
            sampler = DistributedSampler(dataset, num_replicas=n_gpu, rank=device)
            return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        return DataLoader(dataset, batch_size=batch_size, shuffle=True)
