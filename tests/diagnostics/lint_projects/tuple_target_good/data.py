# The same builder, called only for training or under names that say nothing.
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.datasets import ImageFolder


def init_data(root, batch_size, training):
    dataset = ImageFolder(root, split="train" if training else "val")
    dist_sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=dist_sampler)
    return loader, dist_sampler
