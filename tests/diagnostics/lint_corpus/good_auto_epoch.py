from torch.utils.data import DataLoader

import fairshard


def train(model, dataset, optimizer, epochs):
    sampler = fairshard.DistributedSampler(dataset, auto_epoch=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for _ in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
