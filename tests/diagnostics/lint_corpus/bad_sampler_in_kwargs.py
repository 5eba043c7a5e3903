# The training sampler travels in a kwargs dict built in the same function.
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, epochs):
    kw = dict(batch_size=32, sampler=DistributedSampler(dataset))
    loader = DataLoader(dataset, **kw)
    for epoch in range(epochs):  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()
            optimizer.step()


def train_spread_only(model, dataset, optimizer, epochs):
    loader_kwargs = {"batch_size": 32, "num_workers": 4}
    loader_kwargs["sampler"] = DistributedSampler(dataset, seed=0)
    loader = DataLoader(**loader_kwargs, dataset=dataset)
    for epoch in range(epochs):  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()
            optimizer.step()
