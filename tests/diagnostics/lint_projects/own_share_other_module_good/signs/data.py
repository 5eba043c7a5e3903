# A padded evaluation sampler built in one module; the trainer of another module
# scores each rank's own share and only rank 0 reports it. Padding repeats samples
# across ranks, never within one, and rank 0's share holds no padded position:
# no repeat reaches a reported number.
from torch.utils.data import DataLoader, DistributedSampler


def build_val_loader(val_set, batch_size):
    sampler = DistributedSampler(val_set, shuffle=False)
    return DataLoader(val_set, batch_size=batch_size, sampler=sampler)
