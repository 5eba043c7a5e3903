import os

from torch.utils.data import DataLoader

world_size = int(os.environ.get("WORLD_SIZE", 1))


def build(dataset, batch_size):
    per_rank = batch_size // world_size
    return DataLoader(dataset, batch_size=per_rank, shuffle=True, num_workers=8)  # expect: FS103
