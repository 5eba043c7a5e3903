# A ray sampler for DDP: each step draws one batch of rays with replacement
# from NumPy's global generator and hands each rank every W-th ray. A rank's
# share is a uniform sample whether or not the ranks' generators agree.
import numpy as np
import torch.distributed as dist
from torch.utils.data import Sampler


class MultipleImageDDPSampler(Sampler):
    def __init__(self, batch_size, total_rays, epoch_size):
        self.batch_size, self.total_rays, self.epoch_size = batch_size, total_rays, epoch_size
        self.rank, self.num_replicas = dist.get_rank(), dist.get_world_size()

    def __iter__(self):
        for _ in range(self.epoch_size):
            batch = np.random.choice(self.total_rays, self.batch_size)
            yield batch[self.rank :: self.num_replicas].tolist()

    def __len__(self):
        return self.epoch_size
