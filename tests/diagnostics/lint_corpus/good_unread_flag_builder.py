# A builder whose padded branch sits under a flag that is not about the run being
# distributed (`if legacy_padding:`); the call passes a value that cannot be read
# here, so the branch counts as unreached. The distributed branch does not pad.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build_dataloader(dataset, is_train, legacy_padding):
    if legacy_padding:
        sampler = DistributedSampler(dataset, shuffle=is_train)
    else:
        sampler = DistributedSampler(dataset, shuffle=is_train, drop_last=not is_train)
    return DataLoader(dataset, sampler=sampler, batch_size=64)


def main(args, model, train_set, val_set):
    dist.init_process_group("nccl")
    train_loader = build_dataloader(train_set, True, args.legacy)
    valid_loader = build_dataloader(val_set, False, args.legacy)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        correct = torch.zeros(1)
        for x, y in valid_loader:
            correct += (model(x).argmax(1) == y).sum()
        dist.all_reduce(correct)
