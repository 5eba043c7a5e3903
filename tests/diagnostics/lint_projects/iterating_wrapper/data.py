# A loader wrapper of the tree: it builds a shuffling DistributedSampler and a DataLoader
# over it, and its __iter__ yields from that loader; nothing sets the sampler's epoch.
from torch.utils import data


class DataIterator:
    def __init__(self, dataset, batch_size, world):
        self.dataset = dataset
        self.sampler = data.distributed.DistributedSampler(dataset) if world > 1 else None
        self.dataloader = data.DataLoader(
            dataset, batch_size=batch_size // world, sampler=self.sampler
        )

    def __len__(self):
        return len(self.dataloader)

    def __iter__(self):
        for inputs, target in self.dataloader:
            yield inputs.cuda(non_blocking=True), target.cuda(non_blocking=True)
