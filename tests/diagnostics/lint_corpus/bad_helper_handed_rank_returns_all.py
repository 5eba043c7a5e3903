# The helper is handed the rank but only logs it: every rank gets the whole data.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset


def load_partition(rank, world_size, data):
    print(f"rank {rank} of {world_size} loading {len(data)} rows")
    return data


def train(rank, world_size, data, model):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    share = load_partition(rank, world_size, data)
    rows = TensorDataset(torch.as_tensor(share))
    loader = DataLoader(rows, batch_size=8, shuffle=True)  # expect: FS103
    for batch in loader:
        model(batch)
