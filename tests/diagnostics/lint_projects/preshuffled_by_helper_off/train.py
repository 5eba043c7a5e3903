"""The helper is told not to shuffle: every rank reads its share in the file's order."""

import torch
import torch.distributed as dist
import utils
from torch.utils.data import DataLoader, DistributedSampler


def main(model, args):
    dist.init_process_group("nccl")
    features = utils.load_and_cache_examples(args.train_file, shuffle=False)
    sampler = DistributedSampler(features, shuffle=False)  # expect: FS108
    optimizer = torch.optim.AdamW(model.parameters())
    for batch in DataLoader(features, batch_size=8, sampler=sampler):
        model(batch).sum().backward()
        optimizer.step()
