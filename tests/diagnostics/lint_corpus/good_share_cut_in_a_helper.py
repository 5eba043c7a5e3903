# The helper is handed the rank and returns that rank's slice of the data: the
# shuffling loader over it reorders a disjoint share.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset


def load_partition(rank, world_size, data):
    per_rank = len(data) // world_size
    start = rank * per_rank
    return data[start : start + per_rank]


def train(rank, world_size, data, model):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    share = load_partition(rank, world_size, data)
    rows = TensorDataset(torch.as_tensor(share))
    loader = DataLoader(rows, batch_size=8, shuffle=True)
    for batch in loader:
        model(batch)
