# A progress bar made each epoch (its label reads the epoch) around the same loader:
# the loader is not rebuilt, and its sampler is never given the epoch.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from tqdm import tqdm


def train(dataset, epochs, step):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):  # expect: FS101
        bar = tqdm(enumerate(loader), total=len(loader), desc=f"epoch {epoch}")
        for i, batch in bar:
            step(batch)
