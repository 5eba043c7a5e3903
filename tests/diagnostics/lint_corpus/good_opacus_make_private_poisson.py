# opacus's make_private with Poisson sampling (the default) returns a new loader that draws
# each rank's share of every step with rate q: the sampler and the shuffle handed in are gone.
import torch
from opacus import PrivacyEngine
from opacus.distributed import DifferentiallyPrivateDistributedDataParallel as DPDDP
from torch.utils.data import DataLoader, DistributedSampler


def train(ds, model, optimizer, epochs):
    torch.distributed.init_process_group(backend="nccl", init_method="env://")
    train_loader = DataLoader(ds, batch_size=64, shuffle=True)
    model = DPDDP(model)
    model, optimizer, train_loader = PrivacyEngine().make_private(
        module=model,
        optimizer=optimizer,
        data_loader=train_loader,
        noise_multiplier=1.0,
        max_grad_norm=1.0,
    )
    for epoch in range(epochs):
        for x, y in train_loader:
            model(x).sum().backward()


def train_sampled(ds, model, optimizer, epochs):
    torch.distributed.init_process_group(backend="nccl", init_method="env://")
    loader = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds))
    model, optimizer, loader = PrivacyEngine().make_private(
        module=DPDDP(model),
        optimizer=optimizer,
        data_loader=loader,
        noise_multiplier=1.0,
        max_grad_norm=1.0,
    )
    for epoch in range(epochs):
        for batch in loader:
            model(batch).sum().backward()
