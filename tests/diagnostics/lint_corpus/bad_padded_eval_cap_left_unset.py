# The same quick evaluation, but the last call leaves max_batches at its None default: that
# pass reads whole shares, and the all-reduced sums count the padded repeats of the last
# ranks twice.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, loader, max_batches=None):
    total, count = torch.zeros(1), torch.zeros(1)
    with torch.no_grad():
        for i, (x, y) in enumerate(loader):
            if (max_batches is not None) and (i >= max_batches):
                break
            total += torch.nn.functional.mse_loss(model(x), y, reduction="sum")
            count += len(y)
    dist.all_reduce(total)
    dist.all_reduce(count)
    return (total / count).item()


def main(model, optimizer, train_set, test_set, steps):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set, drop_last=True)
    test_sampler = DistributedSampler(test_set, shuffle=False, drop_last=False)  # expect: FS109
    train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=4, sampler=test_sampler)
    print(evaluate(model, test_loader, max_batches=10))
    for step in range(steps):
        train_sampler.set_epoch(step)
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        print(evaluate(model, test_loader))
