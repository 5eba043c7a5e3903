"""A loader class that builds its own shuffling DistributedSampler when asked to."""

from torch.utils.data import DataLoader, DistributedSampler

from lib.utils import log


class CorpusLoader(DataLoader):
    def __init__(self, dataset, **kwargs):
        if kwargs.pop("distributed", False):
            kwargs["sampler"] = DistributedSampler(dataset, shuffle=True)  # expect: FS101
        log("corpus", len(dataset))
        super().__init__(dataset, **kwargs)
