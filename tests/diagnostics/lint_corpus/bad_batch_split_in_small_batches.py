# The same split of chunks read in dataset order, in batches of 8: each rank reads its
# strided part of the data in dataset order, eight rows at a time, the same every epoch.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def split_between_ranks(values):
    loader = DataLoader(
        values,
        batch_size=8,
        sampler=DistributedSampler(values, shuffle=False),  # expect: FS108
    )
    yield from loader


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(512, 4), torch.randn(512, 1))
    outer = DataLoader(data, batch_size=64)  # chunks in dataset order
    model = torch.nn.Linear(4, 1)
    for epoch in range(5):
        for x, y in outer:
            for xs, ys in zip(split_between_ranks(x), split_between_ranks(y)):
                torch.nn.functional.mse_loss(model(xs), ys).backward()


if __name__ == "__main__":
    main()
