import math

from torch.utils.data import Sampler


class OrderedDistributedSampler(Sampler):
    """Every rank the same length: the tail is padded with the head (repeats)."""

    def __init__(self, dataset, num_replicas, rank):
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        indices = list(range(len(self.dataset)))
        indices += indices[: (self.total_size - len(indices))]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self):
        return self.num_samples


class TruncatedSampler(Sampler):
    """Drops the tail instead: every sample at most once."""

    def __init__(self, dataset, num_replicas, rank):
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.total_size = len(dataset) - len(dataset) % num_replicas

    def __iter__(self):
        indices = list(range(self.total_size))
        return iter(indices[self.rank :: self.num_replicas])
