# The sampler of the loader handed to BatchMemoryManager gets its epoch at every pass.
import torch
from opacus.utils.batch_memory_manager import BatchMemoryManager
from torch.utils.data import DataLoader, DistributedSampler


def train(ds, optimizer, epochs, step):
    torch.distributed.init_process_group("nccl")
    loader = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds))
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        with BatchMemoryManager(
            data_loader=loader, max_physical_batch_size=4, optimizer=optimizer
        ) as mem_loader:
            for batch in mem_loader:
                step(batch)
