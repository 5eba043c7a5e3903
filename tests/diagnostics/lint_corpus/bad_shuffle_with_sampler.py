from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build(dataset):
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=16, shuffle=True, sampler=sampler)  # expect: FS102
