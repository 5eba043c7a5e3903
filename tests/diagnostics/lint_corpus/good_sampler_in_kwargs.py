# The same kwargs dicts, with set_epoch in the epoch loop.
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, epochs):
    sampler = DistributedSampler(dataset)
    kw = dict(batch_size=32, sampler=sampler)
    loader = DataLoader(dataset, **kw)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
            optimizer.step()


def evaluate(model, dataset):
    kw = {"batch_size": 64, "sampler": DistributedSampler(dataset, shuffle=False, drop_last=True)}
    return [model(batch) for batch in DataLoader(dataset, **kw)]
