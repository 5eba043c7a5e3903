# The override keeps its plain loader and a callback sets the sampler's epoch.
from torch.utils.data import DataLoader, DistributedSampler
from transformers import Trainer, TrainerCallback


class SetEpoch(TrainerCallback):
    def __init__(self, sampler):
        self.sampler = sampler

    def on_epoch_begin(self, args, state, control, **kwargs):
        self.sampler.set_epoch(int(state.epoch or 0))


class DistributedTrainer(Trainer):
    def get_train_dataloader(self):
        sampler = DistributedSampler(self.train_dataset, shuffle=True)
        self.add_callback(SetEpoch(sampler))
        return DataLoader(self.train_dataset, batch_size=self._train_batch_size, sampler=sampler)
