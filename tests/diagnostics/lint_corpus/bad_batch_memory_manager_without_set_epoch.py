# opacus's BatchMemoryManager: the loader it yields splits the batches of the loader handed
# to it, over the same DistributedSampler, which nothing advances.
import torch
from opacus.utils.batch_memory_manager import BatchMemoryManager
from torch.utils.data import DataLoader, DistributedSampler


def train(ds, optimizer, epochs, step):
    torch.distributed.init_process_group("nccl")
    loader = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds))
    for epoch in range(epochs):  # expect: FS101
        with BatchMemoryManager(
            data_loader=loader, max_physical_batch_size=4, optimizer=optimizer
        ) as mem_loader:
            for batch in mem_loader:
                step(batch)
