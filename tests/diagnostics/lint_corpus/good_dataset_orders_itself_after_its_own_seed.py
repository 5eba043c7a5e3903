# The dataset seeds Python's generator from its configuration right before it shuffles its
# file list: every process draws the same order, so the sampler's shares stay disjoint.
import random

import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class TextMelSet(Dataset):
    def __init__(self, pairs, hparams, shuffle=True):
        self.pairs = list(pairs)
        random.seed(hparams.seed)
        if shuffle:
            random.shuffle(self.pairs)

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        return self.pairs[i]


def main(model, optimizer, pairs, hparams, epochs):
    dist.init_process_group("nccl")
    trainset = TextMelSet(pairs, hparams)
    sampler = DistributedSampler(trainset)
    loader = DataLoader(trainset, batch_size=16, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            (model(x) - y).pow(2).mean().backward()
            optimizer.step()
