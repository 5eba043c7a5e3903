# The same loader class; every shipped line runs the data-parallel (-p dp)
# branch, so the distributed sampler is never built.
from torch.utils.data import DataLoader, DistributedSampler

from data.sets import SegmentationSet


class SegmentationLoader(DataLoader):
    def __init__(self, root, batch_size, split, parallel_type=None):
        self.dataset = SegmentationSet(root, split)
        if parallel_type == "ddp":
            kwargs = {
                "dataset": self.dataset,
                "batch_size": batch_size,
                "shuffle": False,
                "sampler": DistributedSampler(self.dataset),
            }
        else:
            kwargs = {"dataset": self.dataset, "batch_size": batch_size, "shuffle": True}
        super().__init__(**kwargs)
