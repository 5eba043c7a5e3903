"""The script builds its dataset with every argument it needs: the padded evaluation
runs, and the all-reduced sums count the repeats."""

import torch
import torch.distributed as dist
from data import MutationSet
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, valset):
    sampler = DistributedSampler(valset, shuffle=False)  # expect: FS109
    total = torch.zeros(2)
    for x in DataLoader(valset, batch_size=2, sampler=sampler):
        total += torch.stack([model(x).sum(), torch.tensor(float(len(x)))])
    dist.all_reduce(total)
    return (total[0] / total[1]).item()


def main():
    dist.init_process_group("gloo")
    model = torch.nn.Linear(4, 1)
    valset = MutationSet("wt.fasta", data=[[0.0] * 4] * 10)
    print(evaluate(model, valset))


if __name__ == "__main__":
    main()
