"""The launcher: the sequence loaders, sharded by rank; the RAE loaders are never asked for."""

import torch.distributed as dist
from data import sequence_loader


def main(dataset):
    dist.init_process_group("nccl")
    for batch in sequence_loader(dataset, dist.get_rank(), dist.get_world_size()):
        print(batch)


if __name__ == "__main__":
    main(list(range(100)))
