# The same subclass in a tree that pins transformers 4.26: its Trainer still calls
# train_dataloader.sampler.set_epoch(epoch) on a DataLoader with a DistributedSampler.
from torch.utils.data import DataLoader, DistributedSampler
from transformers import Trainer


def make_dataloader(dataset, batch_size, collate_fn, shuffle, sampler=None):
    return DataLoader(
        dataset, shuffle=shuffle, batch_size=batch_size, sampler=sampler, collate_fn=collate_fn
    )


class DistributedTrainer(Trainer):
    def get_train_dataloader(self):
        return make_dataloader(
            self.train_dataset,
            self._train_batch_size,
            self.data_collator,
            shuffle=False,
            sampler=DistributedSampler(self.train_dataset, shuffle=True),
        )
