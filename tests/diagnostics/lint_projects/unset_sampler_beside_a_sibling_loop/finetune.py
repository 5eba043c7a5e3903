"""Its own loop over its own sampler, never advanced: FS101's loop check names it."""

import torch
import torch.distributed as dist
from lib.utils import log
from torch.utils.data import DataLoader, DistributedSampler


def main(epochs):
    dist.init_process_group("gloo")
    data = torch.randn(64, 3)
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
    for epoch in range(epochs):  # expect: FS101
        for batch in loader:
            log(epoch, batch.sum())


if __name__ == "__main__":
    main(10)
