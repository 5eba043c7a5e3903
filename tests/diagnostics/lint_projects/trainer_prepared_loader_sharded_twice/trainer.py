# The override hands its loader to accelerate, whose prepared loader the Trainer advances
# (no FS101); accelerate splits the DistributedSampler's share again (transformers issue
# 34365): each process trains on 1/W of its share.
from torch.utils.data import DataLoader, DistributedSampler
from transformers import Trainer


class DistributedTrainer(Trainer):
    def get_train_dataloader(self):
        sampler = DistributedSampler(self.train_dataset, shuffle=True)
        loader = DataLoader(self.train_dataset, batch_size=self._train_batch_size, sampler=sampler)
        return self.accelerator.prepare(loader)  # expect: FS115
