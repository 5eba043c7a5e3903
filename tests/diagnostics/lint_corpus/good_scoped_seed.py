import torch
from torch.utils.data import DataLoader, DistributedSampler


def worker_init(worker_id, rank, base_seed):
    seed = base_seed + 1000 * rank + worker_id  # per-worker augmentation seed: fine
    torch.manual_seed(seed)


def build(dataset, seed, rank, world_size):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, seed=seed)
    return DataLoader(dataset, sampler=sampler, batch_size=32)


def test_padding_is_visible():
    # a unit test of padding, not an evaluation loop
    sampler = DistributedSampler(range(10), num_replicas=4, rank=0)
    assert len(sampler) == 3
