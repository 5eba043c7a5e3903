"""A public dispatcher picks a backend and hands its distributed flag on to the builder."""

from torch.utils.data import DataLoader, DistributedSampler


def _build_torch(dataset, batch_size, distributed):
    if distributed:
        sampler = DistributedSampler(dataset, shuffle=True)
        return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)


def _build_stream(dataset, batch_size):
    return iter(dataset[i : i + batch_size] for i in range(0, len(dataset), batch_size))


def build_loader(dataset, batch_size=8, distributed=False, backend="torch"):
    if backend == "stream":
        return _build_stream(dataset, batch_size)
    return _build_torch(dataset, batch_size, distributed)
