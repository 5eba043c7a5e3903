"""torchrun --nproc_per_node=4 train.py: every rank mines with the default mode."""

import torch.distributed as dist
from dataset import TripletsDataset
from options import parse_arguments


def main():
    dist.init_process_group("gloo")
    args = parse_arguments()
    dataset = TripletsDataset(args, 1000)
    for epoch in range(3):
        loader = dataset.compute_triplets(args)
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            print(batch)


if __name__ == "__main__":
    main()
