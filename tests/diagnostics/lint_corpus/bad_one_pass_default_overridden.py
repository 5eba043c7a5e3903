# The default is one pass, but a caller asks for ten: the loop repeats the order.
from torch.utils.data import DataLoader, DistributedSampler


def train(model, data_loader, epochs=1):
    for _ in range(epochs):  # expect: FS101
        for batch in data_loader:
            model(batch).sum().backward()


def main(model, dataset):
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset))
    train(model, loader, epochs=10)
