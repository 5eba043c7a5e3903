# One builder for every loader; the call passes a flag read from the config.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def _get_data_loader(dataset, batch_size, not_distributed=False, shuffle=True):
    not_distributed = not_distributed or not dist.is_initialized()
    if not_distributed:  # noqa: SIM108 (the branch shape the linter reads)
        sampler = None
    else:
        sampler = DistributedSampler(dataset, shuffle=shuffle)  # expect: FS109
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def get_dataloader_from_config(cfg, dataset):
    not_distributed = getattr(cfg, "loader_not_distributed", False)
    return _get_data_loader(dataset, cfg.batch_size, not_distributed, shuffle=False)
