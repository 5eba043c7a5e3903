# Known limit: samplers kept in a dict are not followed.
from torch.utils.data import DataLoader, DistributedSampler


def main(model, datasets, optimizer, epochs):
    samplers = {split: DistributedSampler(ds) for split, ds in datasets.items()}
    loaders = {split: DataLoader(datasets[split], sampler=s) for split, s in samplers.items()}
    for epoch in range(epochs):  # expect: FS101
        for batch in loaders["train"]:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
