# The same helper-built validation sampler, but each rank keeps its own loss (rank 0
# reports its own share): nothing combines the ranks, so no repeat is counted.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


def get_sampler(dataset, shuffle=True):
    if dist.is_initialized():
        from torch.utils.data.distributed import DistributedSampler

        return DistributedSampler(dataset, shuffle=shuffle)
    return None


def validate(loader, model):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            total += loss.item()
    return total / len(loader)


def main():
    dist.init_process_group("nccl")
    train_set = [(torch.randn(4), torch.randn(1)) for _ in range(100)]
    test_set = [(torch.randn(4), torch.randn(1)) for _ in range(30)]
    train_sampler = get_sampler(train_set)
    train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    test_loader = DataLoader(test_set, batch_size=8, sampler=get_sampler(test_set, shuffle=False))
    model = torch.nn.Linear(4, 1)
    best = float("inf")
    for epoch in range(10):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            torch.nn.functional.mse_loss(model(x), y).backward()
        best = min(best, validate(test_loader, model))


if __name__ == "__main__":
    main()
