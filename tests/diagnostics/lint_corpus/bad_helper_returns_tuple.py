import torch
from torch.utils.data import DataLoader, DistributedSampler


def make_loaders(cfg, train_set):
    train_sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, batch_size=cfg.bs, sampler=train_sampler)
    return train_loader, train_sampler


def run(cfg, model, train_set, optimizer):
    torch.distributed.init_process_group("nccl")
    train_loader, train_sampler = make_loaders(cfg, train_set)
    for epoch in range(cfg.start_epoch, cfg.epochs):  # expect: FS101
        model.train()
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
