# The same tree, and the trainer of another module combines the ranks' losses:
# the padded samples count twice in the reported mean.
from torch.utils.data import DataLoader, DistributedSampler


def build_val_loader(val_set, batch_size):
    sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    return DataLoader(val_set, batch_size=batch_size, sampler=sampler)
