# A DataLoader subclass builds its sampler in its constructor, for the branch
# the README's -p ddp run takes; the trainer's epoch loop is in another module
# and nothing in the tree calls set_epoch: every epoch repeats each rank's order.
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
                "sampler": DistributedSampler(self.dataset),  # expect: FS101
            }
        else:
            kwargs = {"dataset": self.dataset, "batch_size": batch_size, "shuffle": True}
        super().__init__(**kwargs)
