# A weighted batch sampler split between ranks by ignite's proxy, handed to the loader
# as its batch_sampler: Lightning sets the epoch of loader.sampler and of
# loader.batch_sampler.sampler only, so the proxy draws epoch 0's batches every epoch.
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
        kwargs["batch_sampler"] = DistributedProxySampler(  # expect: FS101
            BatchSampler(
                WeightedRandomSampler(self.weights, len(self.dataset)),
                batch_size=self.batch_size,
                drop_last=False,
            ),
            num_replicas=dist.get_world_size(),
            rank=dist.get_rank(),
        )
        return DataLoader(self.dataset, **kwargs)
