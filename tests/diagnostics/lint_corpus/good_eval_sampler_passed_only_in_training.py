# A builder makes a DistributedSampler for every split but hands it to the
# loader only when training (`sampler=sampler if train else None`, and only
# the training branch returns it): the validation loader has no sampler,
# every rank reads the same batches, and the all-reduced sums are divided by
# the all-reduced step count. Nothing is padded.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def get_data_loader(params, dataset, distributed, train):
    sampler = DistributedSampler(dataset, shuffle=train) if distributed else None
    dataloader = DataLoader(
        dataset,
        batch_size=params.batch_size,
        shuffle=False,
        sampler=sampler if train else None,
        drop_last=True,
    )
    if train:
        return dataloader, dataset, sampler
    return dataloader, dataset


def main(params, model, train_set, valid_set):
    dist.init_process_group("nccl")
    train_loader, _, train_sampler = get_data_loader(params, train_set, True, train=True)
    valid_loader, _ = get_data_loader(params, valid_set, True, train=False)
    for epoch in range(params.epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        loss, steps = torch.zeros(1), torch.zeros(1)
        for x, y in valid_loader:
            loss += (model(x) - y).abs().mean()
            steps += 1
        dist.all_reduce(loss)
        dist.all_reduce(steps)
        print(loss / steps)
