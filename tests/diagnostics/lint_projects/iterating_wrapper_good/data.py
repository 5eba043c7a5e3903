# The same wrapper advances its sampler's epoch at every pass over it.
from torch.utils import data


class DataIterator:
    def __init__(self, dataset, batch_size, world):
        self.dataset, self.epoch = dataset, 0
        self.sampler = data.distributed.DistributedSampler(dataset) if world > 1 else None
        self.dataloader = data.DataLoader(
            dataset, batch_size=batch_size // world, sampler=self.sampler
        )

    def __iter__(self):
        if self.sampler is not None:
            self.sampler.set_epoch(self.epoch)
        self.epoch += 1
        yield from self.dataloader
