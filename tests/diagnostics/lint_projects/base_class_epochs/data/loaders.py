# A neutral builder: the trainers keep its loader on self, a base class's epoch
# loop in another module calls the method that iterates it, and nothing in the
# tree calls set_epoch: every epoch repeats each rank's order.
import torchvision
from torch.utils.data import DataLoader, DistributedSampler


def get_dataset(path, batch_size, distributed=False):
    dataset = torchvision.datasets.ImageFolder(root=path)
    if distributed:
        sampler = DistributedSampler(dataset)  # expect: FS101
        return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=sampler)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
