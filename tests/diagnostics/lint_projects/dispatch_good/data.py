# A builder that dispatches on the dataset's name: one branch pads, the other does not.
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler
from torchvision.datasets import ImageFolder


def init_data(dataset_name, root, training=True):
    if dataset_name == "imagenet":
        return _imagenet(root, training)
    elif dataset_name == "cifar10":
        return _cifar10(root, training)
    raise ValueError(f"dataset_name={dataset_name!r}: use 'imagenet' or 'cifar10'")


def _imagenet(root, training):
    dataset = ImageFolder(root, split="train" if training else "val")
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=64, sampler=sampler), sampler


def _cifar10(root, training):
    dataset = ImageFolder(root, split="train" if training else "test")
    sampler = SequentialSampler(dataset)
    return DataLoader(dataset, batch_size=64, sampler=sampler), sampler
