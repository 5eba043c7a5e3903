# One process: the builder's flag keeps its default, so its loaders have no sampler.
from data_loaders import get_data_loaders


def main(datasets, epochs, step):
    train_loader, test_loader = get_data_loaders(datasets, 64)
    for epoch in range(epochs):
        for batch in train_loader:
            step(batch)
