from torch.utils.data import DataLoader, DistributedSampler, Sampler


def train(model, dataset, optimizer, epochs: int):
    sampler: Sampler = DistributedSampler(dataset)
    loader: DataLoader = DataLoader(dataset, sampler=sampler, batch_size=4)
    for epoch in range(epochs):  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()
            optimizer.step()
