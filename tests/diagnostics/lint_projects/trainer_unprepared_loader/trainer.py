# A transformers Trainer subclass for several GPUs: its training loader is a plain DataLoader
# over a shuffling DistributedSampler, never prepared by accelerate, and transformers 4.31 or
# later calls set_epoch only on loaders that have it, so every epoch repeats the order.
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
            sampler=DistributedSampler(self.train_dataset, shuffle=True),  # expect: FS101
        )
