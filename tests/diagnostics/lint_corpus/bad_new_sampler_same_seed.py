# A fresh sampler each epoch with a fixed seed repeats the same order every epoch.
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, optimizer, epochs, seed):
    for epoch in range(epochs):  # expect: FS101
        sampler = DistributedSampler(dataset, seed=seed)
        for batch in DataLoader(dataset, sampler=sampler, batch_size=8):
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
