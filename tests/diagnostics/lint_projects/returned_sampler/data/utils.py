# A sampler helper returns the sampler; the loader builder wraps it in a batch
# sampler of its own and returns the loader; the evaluation all-reduces.
from torch.utils.data import DistributedSampler


def create_sampler(dataset, shuffle, num_gpus):
    return DistributedSampler(dataset, shuffle=shuffle) if num_gpus > 1 else None  # expect: FS109
