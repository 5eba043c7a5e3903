"""The features come shuffled from the helper: a sampler that keeps their order is fine."""

import torch
import torch.distributed as dist
import utils
from torch.utils.data import DataLoader, DistributedSampler


def main(model, args):
    dist.init_process_group("nccl")
    features = utils.load_and_cache_examples(args.train_file, shuffle=True)
    sampler = DistributedSampler(features, shuffle=False)
    optimizer = torch.optim.AdamW(model.parameters())
    for batch in DataLoader(features, batch_size=8, sampler=sampler):
        model(batch).sum().backward()
        optimizer.step()
