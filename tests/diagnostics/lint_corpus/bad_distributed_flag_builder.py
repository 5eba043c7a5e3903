# A builder pads under `if distributed:`; the evaluation loader's call passes the
# script's flag (unknown here, True on the multi-GPU path), and the test loop
# all-reduces its meters. The training-only branch (`is_train and ...`) is not
# reached from the evaluation call.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Sampler


class RepeatSampler(Sampler):
    """Each index three times, padded to a multiple of the world size."""

    def __init__(self, dataset, num_replicas=2):
        self.dataset, self.num_replicas = dataset, num_replicas

    def __iter__(self):
        indices = [i for i in range(len(self.dataset)) for _ in range(3)]
        total = -(-len(indices) // self.num_replicas) * self.num_replicas
        indices += indices[: (total - len(indices))]
        return iter(indices)


def build_dataloader(dataset, is_train, distributed, repeated=True):
    if distributed:
        if is_train and repeated:
            sampler = RepeatSampler(dataset)  # training only: the call sites say so
        else:
            sampler = DistributedSampler(dataset, shuffle=is_train)  # expect: FS109
        shuffle = False
    else:
        sampler = None
        shuffle = is_train
    return DataLoader(dataset, sampler=sampler, shuffle=shuffle, batch_size=64)


def main(args, model, train_set, val_set):
    dist.init_process_group("nccl")
    train_loader = build_dataloader(train_set, True, args.distributed)
    valid_loader = build_dataloader(val_set, False, args.distributed)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        correct = torch.zeros(1)
        for x, y in valid_loader:
            correct += (model(x).argmax(1) == y).sum()
        dist.all_reduce(correct)
