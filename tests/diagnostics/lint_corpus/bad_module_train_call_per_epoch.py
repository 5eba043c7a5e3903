# The epoch loop calls this file's own train(), which reads the shuffling
# distributed loader; no pass sets the sampler's epoch.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(loader, model):
    model.train()
    for batch in loader:
        model(batch).sum().backward()


def main(dataset, epochs):
    dist.init_process_group("gloo")
    model = torch.nn.Linear(4, 1)
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=8)
    for _epoch in range(epochs):  # expect: FS101
        train(loader, model)
