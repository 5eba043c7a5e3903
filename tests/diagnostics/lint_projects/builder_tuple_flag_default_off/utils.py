"""One builder for both runs: a plain loader, or a sharded one (and its sampler) when asked."""

from torch.utils.data import DataLoader


def build_dataloader(dataset, batch_size, dist=False):
    sampler = None
    if not dist:
        train_loader = DataLoader(dataset, batch_size=batch_size)
    else:
        from torch.utils.data.distributed import DistributedSampler

        sampler = DistributedSampler(dataset, shuffle=True, seed=12345)
        train_loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return train_loader, sampler
