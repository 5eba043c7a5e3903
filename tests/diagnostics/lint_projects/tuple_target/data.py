# One builder returns the loader and its sampler; the caller's names say what it is for.
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.datasets import ImageFolder


def init_data(root, batch_size, training):
    dataset = ImageFolder(root, split="train" if training else "val")
    dist_sampler = DistributedSampler(dataset)  # expect: FS109
    loader = DataLoader(dataset, batch_size=batch_size, sampler=dist_sampler)
    return loader, dist_sampler
