from accelerate import Accelerator
from torch.utils.data import DataLoader

from fairshard import DistributedSampler, ShardedIterable


def prepared(dataset, stream):
    accelerator = Accelerator()
    a = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))
    b = DataLoader(ShardedIterable(stream), batch_size=8)
    return accelerator.prepare(a), accelerator.prepare(b)  # FS114 twice on this line
