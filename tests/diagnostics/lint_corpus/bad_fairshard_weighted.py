from torch.utils.data import DataLoader

from fairshard import WeightedSampler


def train(model, dataset, weights, optimizer, epochs):
    sampler = WeightedSampler(weights, num_samples=len(dataset))
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):  # expect: FS101
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sub(y).pow(2).mean().backward()
            optimizer.step()
