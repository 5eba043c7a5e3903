import torch
import torch.distributed as dist
from data.loader import construct_loader


def eval_epoch(val_loader, model):
    errors = torch.zeros(2)
    for inputs, labels in val_loader:
        errors += torch.tensor([(model(inputs).argmax(1) != labels).sum().item(), len(labels)])
    dist.all_reduce(errors)
    return (errors[0] / errors[1]).item()


def train(cfg, model, optimizer, train_set, val_set):
    dist.init_process_group("nccl")
    train_loader = construct_loader(cfg, train_set, "train")
    val_loader = construct_loader(cfg, val_set, "val")
    for epoch in range(cfg.EPOCHS):
        train_loader.sampler.set_epoch(epoch)
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            model(inputs).sum().backward()
            optimizer.step()
        print(eval_epoch(val_loader, model))
