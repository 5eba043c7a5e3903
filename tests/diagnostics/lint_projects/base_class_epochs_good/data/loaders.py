# The same tree, and the base class sets the epoch of the loader it is handed.
import torchvision
from torch.utils.data import DataLoader, DistributedSampler


def get_dataset(path, batch_size, distributed=False):
    dataset = torchvision.datasets.ImageFolder(root=path)
    if distributed:
        sampler = DistributedSampler(dataset)
        return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=sampler)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
