from torch.utils.data import BatchSampler, DataLoader

from data import utils


class ShortCycleBatchSampler(BatchSampler):
    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []


def construct_loader(cfg, dataset, split):
    shuffle = split == "train"
    sampler = utils.create_sampler(dataset, shuffle, cfg.NUM_GPUS)
    if cfg.SHORT_CYCLE and split == "train":
        batch_sampler = ShortCycleBatchSampler(sampler, batch_size=cfg.BATCH, drop_last=False)
        return DataLoader(dataset, batch_sampler=batch_sampler)
    return DataLoader(dataset, batch_size=cfg.BATCH, shuffle=False, sampler=sampler)
