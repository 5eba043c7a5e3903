# The same proxy as the loader's batch_sampler, and a callback gives it each epoch:
# every epoch draws new batches.
import lightning as L
import torch.distributed as dist
from ignite.distributed import DistributedProxySampler
from torch.utils.data import BatchSampler, DataLoader, WeightedRandomSampler


class WeightedData(L.LightningDataModule):
    def __init__(self, dataset, weights, batch_size):
        super().__init__()
        self.dataset, self.weights, self.batch_size = dataset, weights, batch_size

    def train_dataloader(self):
        kwargs = {"num_workers": 4}
        kwargs["batch_sampler"] = DistributedProxySampler(
            BatchSampler(
                WeightedRandomSampler(self.weights, len(self.dataset)),
                batch_size=self.batch_size,
                drop_last=False,
            ),
            num_replicas=dist.get_world_size(),
            rank=dist.get_rank(),
        )
        return DataLoader(self.dataset, **kwargs)
