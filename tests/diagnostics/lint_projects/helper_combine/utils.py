import torch
import torch.distributed as dist


def collect(value, device, mode="mean"):
    """Every rank's value, summed (or averaged) over the ranks."""
    tensor = torch.tensor(value, device=device, dtype=torch.float)
    dist.all_reduce(tensor)
    return tensor if mode == "sum" else tensor / dist.get_world_size()
