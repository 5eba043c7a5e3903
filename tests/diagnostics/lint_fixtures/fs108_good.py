from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, val_dataset, epochs):
    sampler = DistributedSampler(dataset, shuffle=True)
    val_sampler = DistributedSampler(val_dataset, shuffle=False)  # noqa: FS109
    val_loader = DataLoader(val_dataset, sampler=val_sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in DataLoader(dataset, sampler=sampler):
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
        for batch in val_loader:
            model(batch)


def evaluate(model, dataset):
    sampler = DistributedSampler(dataset, shuffle=False)  # noqa: FS109
    for batch in DataLoader(dataset, sampler=sampler):
        model(batch)
