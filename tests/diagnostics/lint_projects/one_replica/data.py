# A builder whose sampler's world size is its parameter.
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.datasets import ImageFolder


def init_data(root, batch_size, world_size=1, rank=0, training=True):
    dataset = ImageFolder(root, split="train" if training else "val")
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)  # expect: FS109
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return loader, sampler
