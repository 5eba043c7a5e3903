import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, hf_dataset, optimizer, seed):
    dist.init_process_group("nccl")
    data = hf_dataset.shuffle(seed=seed)
    sampler = DistributedSampler(data, shuffle=False)
    for batch in DataLoader(data, sampler=sampler, batch_size=16):
        model(**batch).loss.backward()
        optimizer.step()
