# The same builder, but the sampler reaches the loader whenever the run is
# distributed (`sampler=sampler if distributed else None`): the validation
# loader pads, and its all-reduced sums count the repeated samples.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def get_data_loader(params, dataset, distributed, train):
    sampler = DistributedSampler(dataset, shuffle=train)  # expect: FS109
    dataloader = DataLoader(
        dataset,
        batch_size=params.batch_size,
        shuffle=False,
        sampler=sampler if distributed else None,
    )
    return dataloader


def main(params, model, train_set, valid_set):
    dist.init_process_group("nccl")
    train_loader = get_data_loader(params, train_set, params.distributed, True)
    valid_loader = get_data_loader(params, valid_set, params.distributed, False)
    for epoch in range(params.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        loss, count = torch.zeros(1), torch.zeros(1)
        for x, y in valid_loader:
            loss += (model(x) - y).abs().sum()
            count += len(y)
        dist.all_reduce(loss)
        dist.all_reduce(count)
        print(loss / count)
