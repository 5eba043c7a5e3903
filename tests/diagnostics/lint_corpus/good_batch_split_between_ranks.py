# Each step's batch, drawn in a new order every epoch by the outer loader, is split between
# the ranks by a loader whose one batch is the whole tensor: the order inside that batch
# changes nothing, so DistributedSampler(shuffle=False) is right here.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, RandomSampler, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def split_between_ranks(values):
    loader = DataLoader(
        values,
        batch_size=values.shape[0],
        sampler=DistributedSampler(values, shuffle=False),
    )
    for part in loader:
        return part


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(512, 4), torch.randn(512, 1))
    same_order = torch.Generator().manual_seed(0)  # every rank draws the same batches
    outer = DataLoader(data, batch_size=64, sampler=RandomSampler(data, generator=same_order))
    model = torch.nn.Linear(4, 1)
    for epoch in range(5):
        for x, y in outer:
            x, y = split_between_ranks(x), split_between_ranks(y)
            torch.nn.functional.mse_loss(model(x), y).backward()


if __name__ == "__main__":
    main()
