# opacus's make_private with poisson_sampling=False returns the loader as it was: its shuffling
# DistributedSampler still needs set_epoch, and nothing calls it.
import torch
from opacus import PrivacyEngine
from opacus.distributed import DifferentiallyPrivateDistributedDataParallel as DPDDP
from torch.utils.data import DataLoader, DistributedSampler


def train(ds, model, optimizer, epochs):
    torch.distributed.init_process_group(backend="nccl", init_method="env://")
    loader = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds))
    model, optimizer, loader = PrivacyEngine().make_private(
        module=DPDDP(model),
        optimizer=optimizer,
        data_loader=loader,
        noise_multiplier=1.0,
        max_grad_norm=1.0,
        poisson_sampling=False,
    )
    for epoch in range(epochs):  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()
