import torch.distributed as dist
from torch.utils.data import DataLoader


def main(dataset):
    dist.init_process_group(backend="gloo")
    loader = DataLoader(dataset, batch_size=32, shuffle=True)  # FS103
    return loader
