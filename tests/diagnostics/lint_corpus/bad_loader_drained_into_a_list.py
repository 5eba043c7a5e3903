# The training loader is drained into a list once: the sampler's order (and that
# pass's random augmentation) is fixed then, and set_epoch changes nothing after.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Processor:
    def load_data(self, data):
        dist.init_process_group("nccl")
        self.sampler = DistributedSampler(data)
        self.batches = list(DataLoader(data, 32, sampler=self.sampler))  # expect: FS101

    def train(self, model, epochs):
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for batch in self.batches:
                model(batch)
