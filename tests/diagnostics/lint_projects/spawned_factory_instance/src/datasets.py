# The factory's loaders shard with a shuffling, padding sampler on several GPUs.
# The script hands a factory instance through mp.spawn's args: the training
# loader never gets an epoch (nothing in the tree calls set_epoch) and the
# test error is summed over padded shares.
from torch.utils.data import DataLoader, DistributedSampler

from src.sets import ProfileSet


class LoadDataset:
    def __init__(self, paths):
        self.paths = paths

    def get_dataloader(self, split, batch_size=8, device=0, n_gpu=0):
        dataset = ProfileSet(self.paths, split)
        if n_gpu > 1:
            sampler = DistributedSampler(  # expect: FS109
                dataset, num_replicas=n_gpu, rank=device
            )
            return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        return DataLoader(dataset, batch_size=batch_size, shuffle=True)
